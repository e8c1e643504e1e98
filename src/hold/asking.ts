// Asking a provider about leads during their hold, the shape both hold jobs share (certificates/job.ts:
// TrustedForm; checks/final-job.ts: the policy's final-stage checks). A pass claims the leads it
// found askable (a lease in each lead's finding row, store/findings/: instances sharing a PostgreSQL
// database ask once, and a crashed asker's claim runs out), asks about each claimed one, at most
// `concurrency` at once, and stores each answer as it comes, while the lead is still pending.
// Asking twice is harmless (the answer is the same, a check's webhook-id the same); losing an answer
// is not, so an answer is stored before the pass moves on, and a failed store fails the pass.
import { BACKGROUND } from "../db/group-commit.ts";
import { op, type Script } from "../db/script.ts";
import type { FindingAnswer, FindingKey } from "../store/findings/index.ts";
import type { Answering, Store, Tables } from "../store/index.ts";

/** A claim outlives its request by this much, so only a dead asker's claim runs out. */
export const LEASE_MARGIN_MS = 5_000;

export interface Asking {
  store: Store<Answering, "promise">;
  key: FindingKey;
  /** One request's bound: the claim's lease outlives it by LEASE_MARGIN_MS. */
  timeoutMs: number;
  concurrency: number;
  /** Aborted when the service stops: no more leads are asked about. */
  signal: AbortSignal;
}

/**
 * Claims `leads` for `asking.key` at `now` and runs `ask` for each one claimed, with its attempt's
 * number (1 = the first request); resolves to how many were claimed, once all were asked.
 */
export async function claimAndAsk<L extends { id: string }>(
  asking: Asking,
  leads: readonly L[],
  now: number,
  ask: (lead: L, attempts: number) => Promise<void>,
): Promise<number> {
  if (leads.length === 0) return 0;
  const byId = new Map(leads.map((lead) => [lead.id, lead]));
  const leaseUntil = now + asking.timeoutMs + LEASE_MARGIN_MS;
  const claimed = await asking.store.write((t) => op(t.findings.claim(asking.key, [...byId.keys()], now, leaseUntil)), BACKGROUND);
  const queue = claimed.map(({ leadId, attempts }) => ({ lead: byId.get(leadId)!, attempts }));
  const runner = async () => {
    for (let next = queue.shift(); next && !asking.signal.aborted; next = queue.shift()) await ask(next.lead, next.attempts);
  };
  await Promise.all(Array.from({ length: Math.min(asking.concurrency, queue.length) }, runner));
  return claimed.length;
}

/**
 * Stores an answer while the lead is pending, and bumps its facts version so a decision read
 * before it is not recorded (store/batches/: fenced by that version). A lead decided meanwhile
 * keeps the findings its decision read: nothing is written.
 */
export function* storeFinding(t: Tables, key: FindingKey, leadId: string, answer: FindingAnswer): Script<boolean> {
  if (!(yield* op(t.leads.touchFacts(leadId)))) return false;
  return yield* op(t.findings.answer(key, leadId, answer));
}
