// An operator's decision during the hold (docs/contract.md §7): recorded now, applied when the hold ends.
import { op, type Script } from "../db/script.ts";
import { auditEntry } from "../store/audit/index.ts";
import type { Store, Tables } from "../store/index.ts";
import type { LeadStatus } from "../db/schema.ts";
import type { OperatorDecision } from "../store/leads/index.ts";

export class DecisionError extends Error {}

/** The audit log's action of a recorded decision: its entry says who decided, when, and what. */
export const DECISION_ACTION = "lead.decide";

/**
 * How far a decision's time (the deciding instance's clock) may stray outside its lead's life as
 * other instances' clocks recorded it (created_at, decided_at): the window its entry is looked for in.
 */
export const CLOCK_SKEW_MS = 60_000;

/** Records the decision on a pending lead, audited; otherwise answers the lead's status (null: no such lead). */
function* decide(
  t: Tables,
  leadId: string,
  decision: OperatorDecision,
  reason: string | null,
  actor: string,
  now: number,
): Script<"recorded" | LeadStatus | null> {
  if (!(yield* op(t.leads.recordOperatorDecision(leadId, decision, reason)))) return yield* op(t.leads.statusOf(leadId));
  yield* op(t.audit.append(auditEntry({ actor, action: DECISION_ACTION, subject: leadId, detail: reason ? `${decision}: ${reason}` : decision }, now)));
  return "recorded";
}

export async function recordOperatorDecision(
  store: Store,
  leadId: string,
  decision: OperatorDecision,
  reason: string | null,
  actor: string,
  now = Date.now(),
): Promise<void> {
  const outcome = await store.write((t) => decide(t, leadId, decision, reason, actor, now));
  if (outcome === "recorded") return;
  throw new DecisionError(outcome ? `Lead ${leadId} is already ${outcome}; final results never change` : `No such lead: ${leadId}`);
}
