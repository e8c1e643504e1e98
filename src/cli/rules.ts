// `lead-ingress rules …`: the acceptance policy (docs/policy.md). import checks a document whole and
// replaces the policy in force (every instance within about a second); export prints it as
// imported; test says what postLead would answer for a lead under it, storing nothing.
import { loadConfig } from "../config/index.ts";
import { compilePolicy } from "../policy/index.ts";
import type { Explanation } from "../policy-in-force/explain.ts";
import { explainLeadWithCaps } from "../policy-in-force/explain-caps.ts";
import { exportPolicy, importPolicy, readPolicyText } from "../policy-in-force/manage.ts";
import { OperatorError, takeFlag, takeRequired, takeSwitch, takeTime } from "./args.ts";
import type { CommandContext, CommandGroup } from "./command.ts";
import { json, printable } from "./output.ts";

async function readFile(path: string): Promise<string> {
  const file = Bun.file(path);
  if (!(await file.exists())) throw new OperatorError(`No file at ${path}.`);
  return await file.text();
}

export const rulesGroup: CommandGroup = {
  name: "rules",
  about: "The acceptance policy (rules, caps and schedules): import a document, export the one in force, test a lead against it.",
  subcommands: {
    import: {
      args: "FILE [--json]",
      about:
        "Checks the policy document in FILE whole and replaces the policy in force with it: the running service applies it within " +
        "about a second, on every instance. An invalid document changes nothing: every problem is printed by its JSON path and " +
        "the exit code is 1. The change is in the audit log with what it added, removed and changed.",
      async run(args, context) {
        const file = takeRequired(args, "FILE");
        const asJson = takeSwitch(args, "--json");
        const text = await readFile(file);
        const outcome = await context.useDatabase(args, (database) => importPolicy(database.store, text, context.actor));
        if (outcome.kind === "invalid") {
          if (asJson) context.print(json({ imported: false, problems: outcome.problems }));
          for (const problem of outcome.problems) context.printError(printable(`${problem.path || "/"}: ${problem.message}`));
          context.printError(`Nothing changed: ${file} has ${outcome.problems.length} problem${outcome.problems.length === 1 ? "" : "s"}.`);
          return 1;
        }
        if (asJson) context.print(json({ imported: true, version: outcome.version, changes: outcome.changes, not_applied: outcome.notApplied }));
        else {
          context.print(`Imported ${file}: the policy is now version ${outcome.version}.`);
          for (const change of outcome.changes) context.print(printable(`  ${change}`));
        }
        for (const entry of outcome.notApplied) context.printError(printable(`note: ${entry}`));
        return 0;
      },
    },
    export: {
      args: "",
      about: "Prints the policy document in force, exactly as it was imported ({} when none was); it imports back unchanged.",
      async run(args, context) {
        const { document } = await context.useDatabase(args, (database) => exportPolicy(database.store));
        context.print(document.replace(/\n$/, ""));
        return 0;
      },
    },
    test: {
      args: "--lead FILE [--vendor NAME] [--at TIME] [--json]",
      about:
        "Says what postLead would answer for the lead in FILE (a postLead body) under the policy in force, and which schedule, " +
        "rules or full caps refuse it and why, storing nothing. --vendor: the sending vendor (default: none, so only entries for every vendor " +
        "apply); --at: an ISO 8601 time (default: now). Duplicates and suppression are not judged here.",
      async run(args, context) {
        const leadFile = takeFlag(args, "--lead");
        if (leadFile === undefined) throw new OperatorError("rules test needs --lead FILE: a postLead body in JSON.");
        const vendor = takeFlag(args, "--vendor") ?? "";
        const at = takeTime(args, "--at", Date.now()) ?? Date.now();
        const asJson = takeSwitch(args, "--json");
        let body: unknown;
        try {
          body = JSON.parse(await readFile(leadFile));
        } catch (error) {
          if (error instanceof OperatorError) throw error;
          throw new OperatorError(`${leadFile} is not JSON: ${(error as Error).message}`);
        }
        const { allowPrivateCallbacks } = loadConfig(context.env, []);
        const explanation = await context.useDatabase(args, async (database) => {
          const reading = readPolicyText((await exportPolicy(database.store)).document);
          if (!reading.ok) throw new OperatorError("The stored policy cannot be read by this release.");
          return explainLeadWithCaps(database.store, compilePolicy(reading.policy), { body, vendor, at, allowPrivateCallbacks });
        });
        printExplanation(context, explanation, asJson);
        return 0;
      },
    },
  },
};

function printExplanation(context: CommandContext, explanation: Explanation, asJson: boolean): void {
  if (asJson) {
    const message = explanation.status === 400 ? explanation.errors : explanation.status === 422 ? explanation.refusedBy.map((entry) => entry.reason) : [];
    context.print(
      json({
        status: explanation.status,
        message: message.map((error) => ({ error })),
        ...("refusedBy" in explanation ? { refused_by: explanation.refusedBy } : {}),
      }),
    );
    return;
  }
  if (explanation.status === 200) context.print("postLead would answer 200: the policy accepts this lead (duplicates and suppression are not judged here).");
  else if (explanation.status === 400) {
    context.print("postLead would answer 400: the lead's fields are invalid.");
    for (const error of explanation.errors) context.print(printable(`  ${error}`));
  } else {
    context.print("postLead would answer 422:");
    for (const entry of explanation.refusedBy) context.print(printable(`  ${entry.reason}   (${entry.kind} ${entry.name})`));
  }
}
