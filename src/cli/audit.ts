// `lead-ingress audit …`: what operators did, in the console and on the command line.
import { listAudit } from "../console/audit.ts";
import type { CommandGroup } from "./command.ts";
import { takeLimit, takeSwitch } from "./args.ts";
import { count, isoTime, renderListing, tableTime } from "./output.ts";

const DEFAULT_LIMIT = 50;

export const auditGroup: CommandGroup = {
  name: "audit",
  about: "List the audit log: who (operator:NAME in the console, cli:USER here) did what to which subject, and when.",
  subcommands: {
    list: {
      args: "[--limit N] [--json]",
      about: `Lists audit entries, newest first (the newest ${DEFAULT_LIMIT} unless --limit says otherwise).`,
      async run(args, context) {
        const limit = takeLimit(args, DEFAULT_LIMIT);
        const asJson = takeSwitch(args, "--json");
        const entries = await context.useDatabase(args, (database) => listAudit(database.store, limit));
        const lines = renderListing(entries, {
          asJson,
          asJsonValue: (e) => ({ ...e, at: isoTime(e.at) }),
          empty: "The audit log is empty.",
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
