// Which leads PostgreSQL's batched intake (backend/pg-intake.ts: one statement for a turn's leads)
// may take: one predicate, so that whatever the statement cannot express sends a lead to its
// per-lead script (acceptLead), whose answer is then the lead's, the same answer either way.
import type { LeadToAccept } from "./service.ts";

/** The leads the batch being gathered already carries. */
export interface BatchContext {
  /** Their numbers (E.164). */
  numbers: Set<string>;
  /** Their idempotency keys, per vendor (batchKeyOf). */
  keys: Set<string>;
}

export const emptyBatchContext = (): BatchContext => ({ numbers: new Set(), keys: new Set() });

/** A lead's idempotency key as the batch tells keys apart (a key is a vendor's own). */
const batchKeyOf = (lead: LeadToAccept): string | null => lead.key && `${lead.lead.vendorId}\n${lead.key.key}`;

/**
 * Can the statement settle `lead` within the batch `context`? Not when another lead of the batch
 * carries its number or its key: one statement cannot claim one number (or save one key) twice, so
 * it waits for the batch's commit and runs alone, seeing the batch's claim and key. A lead a
 * policy's cap counts joins too: the statement takes its batch's slots together, or fails and
 * leaves every lead to its own script (store/batches/pg-intake.ts). An intake check, when it comes,
 * goes here.
 */
export function canTakeBatchedIntake(lead: LeadToAccept, context: BatchContext): boolean {
  const key = batchKeyOf(lead);
  return !context.numbers.has(lead.fields.phoneE164) && !(key !== null && context.keys.has(key));
}

/** Counts `lead` into the batch `context` (after canTakeBatchedIntake said yes). */
export function joinBatch(lead: LeadToAccept, context: BatchContext): void {
  context.numbers.add(lead.fields.phoneE164);
  const key = batchKeyOf(lead);
  if (key !== null) context.keys.add(key);
}
