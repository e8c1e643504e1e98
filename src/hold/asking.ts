// Asking a provider about leads during their hold, the shape both hold jobs share (certificates/job.ts:
// TrustedForm; checks/final-job.ts: the policy's final-stage checks). A pass claims as many of the
// leads it found askable as there are free places in the provider's flight (a lease in each lead's
// finding row, store/findings/: instances sharing a PostgreSQL database ask once, and a crashed
// asker's claim runs out), starts a request for each and returns without waiting for them: each
// answer is stored as it comes, while the lead is still pending. So a slow or hanging provider
// holds back no other provider's pass (docs/contract.md §11), and a lead is claimed only when its
// request starts, so its lease (one request's bound + LEASE_MARGIN_MS) never runs out in a queue.
// Asking twice is harmless (the answer is the same, a check's webhook-id the same); losing an answer
// is not, so a failed store fails the next pass (the loop backs off and reports it).
import { BACKGROUND } from "../db/group-commit.ts";
import { op, type Script } from "../db/script.ts";
import type { FindingAnswer, FindingKey } from "../store/findings/index.ts";
import type { Answering, Store, Tables } from "../store/index.ts";

/** A claim outlives its request by this much, so only a dead asker's claim runs out. */
export const LEASE_MARGIN_MS = 5_000;

/**
 * One provider's requests in flight, at most `concurrency`, kept from pass to pass. Places are
 * refilled half the flight at a time: a pass costs a read (over the pending leads) and a claim
 * whatever it takes, and refilling each place as it freed cost ~1.45 ms of CPU a lead against ~0.5
 * (bench/hold-asking.ts, bench/README.md).
 */
export class Flight {
  private readonly requests = new Map<string, Promise<void>>();
  /** The free places a pass waits for. */
  private readonly refill: number;
  /** A request's failure (its answer's store), thrown by the next pass. */
  private failure: { error: unknown } | null = null;
  /**
   * The last read filled the room it had: more leads may be waiting, so freed places wake the loop.
   * Otherwise the loop's own interval finds new leads: a read walks past every lead answered and
   * still in its hold, and a pass per half-flight freed would repeat that walk for nothing.
   */
  private backlogged = false;

  /** `onRoom` (the job loop's wake) is called when a request's end frees enough places for a pass while leads are waiting for them (`read`). */
  constructor(
    private readonly concurrency: number,
    private readonly onRoom: () => void = () => {},
  ) {
    this.refill = Math.ceil(concurrency / 2);
  }

  /** How many requests a pass may start now (a pass reads and claims no more leads): none until half the places are free. */
  room(): number {
    const free = this.concurrency - this.requests.size;
    return free >= this.refill ? free : 0;
  }

  /** A pass's read: of as many leads as the flight has room for (none: no read), noting whether it filled that room. */
  async read<L>(askable: (room: number) => L[] | Promise<L[]>): Promise<L[]> {
    const room = this.room();
    if (room === 0) return [];
    const found = await askable(room);
    this.backlogged = found.length >= room;
    return found;
  }

  has(leadId: string): boolean {
    return this.requests.has(leadId);
  }

  /** Resolves once the requests in flight now have ended (their answers stored). */
  async settled(): Promise<void> {
    await Promise.all(this.requests.values());
  }

  /** Throws the failure of a request that ended since the last pass, once. */
  throwFailure(): void {
    const failure = this.failure;
    this.failure = null;
    if (failure) throw failure.error;
  }

  /** Runs `request` for `leadId` in the flight. */
  start(leadId: string, request: () => Promise<void>): void {
    const running = request()
      .catch((error: unknown) => void (this.failure ??= { error }))
      .finally(() => {
        this.requests.delete(leadId);
        if (this.backlogged && this.concurrency - this.requests.size === this.refill) this.onRoom();
      });
    this.requests.set(leadId, running);
  }
}

export interface Asking {
  store: Store<Answering, "promise">;
  key: FindingKey;
  /** One request's bound: the claim's lease outlives it by LEASE_MARGIN_MS. */
  timeoutMs: number;
  /** This provider's requests in flight. */
  flight: Flight;
  clock: () => number;
  /** Aborted when the service stops: no more leads are asked about. */
  signal: AbortSignal;
}

/**
 * Claims `leads` (as many as the flight has room for, none already in it) for `asking.key` at `now`
 * and starts `ask` for each one claimed, with its attempt's number (1 = the first request); resolves
 * to how many were claimed, once claimed: the requests go on in the flight. A lead whose hold has
 * ended by the time its request would start is not asked (its claim runs out).
 */
export async function claimAndAsk<L extends { id: string; decideAfter: number }>(
  asking: Asking,
  leads: readonly L[],
  now: number,
  ask: (lead: L, attempts: number) => Promise<void>,
): Promise<number> {
  const { flight } = asking;
  flight.throwFailure();
  const byId = new Map(leads.filter((lead) => !flight.has(lead.id)).map((lead) => [lead.id, lead]));
  const ids = [...byId.keys()].slice(0, flight.room());
  if (ids.length === 0 || asking.signal.aborted) return 0;
  const leaseUntil = now + asking.timeoutMs + LEASE_MARGIN_MS;
  const claimed = await asking.store.write((t) => op(t.findings.claim(asking.key, ids, now, leaseUntil)), BACKGROUND);
  for (const { leadId, attempts } of claimed) {
    const lead = byId.get(leadId)!;
    flight.start(leadId, async () => {
      if (!asking.signal.aborted && asking.clock() < lead.decideAfter) await ask(lead, attempts);
    });
  }
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
