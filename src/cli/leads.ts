// `lead-ingress leads decide …`: an operator's decision during a lead's hold period.
import type { Config } from "../config/index.ts";
import { openDatabase } from "../db/client.ts";
import { DecisionError, recordOperatorDecision } from "../final-results/operator.ts";
import { takeFlag, takePositionals, UsageError } from "./args.ts";

export const LEADS_HELP = `Usage:
  lead-ingress leads decide LEAD_ID accept|reject [--reason TEXT] [--database FILE]
      Records an operator decision for a pending lead; it is applied when the hold period ends.`;

export async function leadsCommand(args: string[], loadConfig: (rest: string[]) => Config, print: (line: string) => void): Promise<number> {
  const [action, leadId, decision] = takePositionals(args, 3);
  if (action !== "decide" || !leadId || (decision !== "accept" && decision !== "reject")) throw new UsageError(LEADS_HELP);
  const reason = takeFlag(args, "--reason") ?? null;
  const database = openDatabase(loadConfig(args).databasePath);
  try {
    recordOperatorDecision(database.sqlite, leadId, decision, reason);
    print(`Recorded: lead ${leadId} will be ${decision === "accept" ? "accepted" : "rejected"} when its hold period ends.`);
    return 0;
  } catch (error) {
    if (error instanceof DecisionError) throw new UsageError(error.message);
    throw error;
  } finally {
    database.close();
  }
}
