// `lead-ingress audit …`: what operators did, in the console and on the command line.
import { searchAudit } from "../console/audit.ts";
import type { CommandGroup } from "./command.ts";
import { takeFlag, takeLimit, takeSwitch, takeTime } from "./args.ts";
import { count, isoTime, renderListing, tableTime } from "./output.ts";

const DEFAULT_LIMIT = 50;

export const auditGroup: CommandGroup = {
  name: "audit",
  about: "List the audit log: who (operator:NAME in the console, cli:USER here) did what to which subject, and when.",
  subcommands: {
    list: {
      args: "[--actor WHO] [--action WHAT] [--since TIME] [--until TIME] [--limit N] [--json]",
      about:
        `Lists audit entries, newest first (the newest ${DEFAULT_LIMIT} unless --limit says otherwise). --actor: operator:NAME or cli:USER, or a bare ` +
        "name for either; --action: one action (vendor.disable) or all of a first word (vendor); --since and --until: a window, each a duration back (7d) or an ISO 8601 time.",
      async run(args, context) {
        const now = Date.now();
        const actor = takeFlag(args, "--actor");
        const action = takeFlag(args, "--action");
        const from = takeTime(args, "--since", now);
        const before = takeTime(args, "--until", now);
        const limit = takeLimit(args, DEFAULT_LIMIT);
        const asJson = takeSwitch(args, "--json");
        const filter = { actor, action, from, before, limit };
        const entries = (await context.useDatabase(args, (database) => searchAudit(database.store, filter))).map(({ id: _, ...entry }) => entry);
        const lines = renderListing(entries, {
          asJson,
          asJsonValue: (e) => ({ ...e, at: isoTime(e.at) }),
          empty: "No audit entries match.",
          headers: ["AT", "ACTOR", "ACTION", "SUBJECT", "DETAIL"],
          row: (e) => [tableTime(e.at), e.actor, e.action, e.subject, e.detail ?? ""],
        });
        for (const line of lines) context.print(line);
        if (!asJson && entries.length === limit) context.print(`(the newest ${count(limit)}; --limit N shows more)`);
        return 0;
      },
    },
  },
};
