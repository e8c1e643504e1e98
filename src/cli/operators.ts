// `lead-ingress operators …`: the accounts that sign in to the console. Each change is written to
// the audit log under the OS user who ran the command.
import { createOperator, listOperators, OPERATOR_PASSWORD_MIN, setOperatorEnabled } from "../console/operators.ts";
import type { CommandGroup, Subcommand } from "./command.ts";
import { takeRequired, takeSwitch, UsageError } from "./args.ts";
import { isoTime, renderFields, renderListing, tableTime } from "./output.ts";

function enabling(enabled: boolean): Subcommand {
  return {
    args: "NAME",
    about: enabled ? "Lets a disabled operator sign in again." : "Locks an operator out of the console and ends its sessions at once.",
    async run(args, context) {
      const name = takeRequired(args, "NAME");
      await context.useDatabase(args, (database) => setOperatorEnabled(database.store, name, enabled, context.actor));
      context.print(`Operator ${name} is ${enabled ? "enabled" : "disabled"}.`);
      return 0;
    },
  };
}

/** The first line of standard input: a password piped in never shows in `ps` or the shell's history. */
async function passwordFromStdin(): Promise<string> {
  const password = (await Bun.stdin.text()).split(/\r?\n/)[0] ?? "";
  if (password === "") throw new UsageError("--password-stdin: standard input is empty");
  return password;
}

export const operatorsGroup: CommandGroup = {
  name: "operators",
  about: "Add, list, disable and enable the operators who sign in to the console.",
  subcommands: {
    add: {
      args: "NAME [--password-stdin]",
      about: `Creates an operator. Its password is generated and printed once, or read from the first line of standard input with --password-stdin (at least ${OPERATOR_PASSWORD_MIN} characters).`,
      async run(args, context) {
        const name = takeRequired(args, "NAME");
        const password = takeSwitch(args, "--password-stdin") ? await passwordFromStdin() : undefined;
        const created = await context.useDatabase(args, (database) => createOperator(database.store, name, context.actor, password));
        if (password !== undefined) {
          context.print(`Operator ${name} is added.`);
          return 0;
        }
        for (const line of renderFields(
          [
            ["operator:", name],
            ["password:", created.password],
          ],
          "",
        ))
          context.print(line);
        context.print("Store it now: the password is not shown again.");
        return 0;
      },
    },
    list: {
      args: "[--json]",
      about: "Lists operators by name: enabled or disabled, created, last changed. Never shows passwords.",
      async run(args, context) {
        const asJson = takeSwitch(args, "--json");
        const operators = await context.useDatabase(args, (database) => listOperators(database.store));
        const lines = renderListing(operators, {
          asJson,
          asJsonValue: (o) => ({ name: o.name, enabled: o.enabled, created_at: isoTime(o.createdAt), updated_at: isoTime(o.updatedAt) }),
          empty: "No operators. Add one with: lead-ingress operators add NAME",
          headers: ["NAME", "STATUS", "CREATED", "UPDATED"],
          row: (o) => [o.name, o.enabled ? "enabled" : "disabled", tableTime(o.createdAt), tableTime(o.updatedAt)],
        });
        for (const line of lines) context.print(line);
        return 0;
      },
    },
    disable: enabling(false),
    enable: enabling(true),
  },
};
