// Counts for the console's charts, kept in memory and added to the rollup table (outcome_counts)
// every few seconds in one write, so the request path pays a Map update and no database write.
// Each count goes into its minute; a flush adds it to the minute's, quarter-hour's and hour's
// buckets (every resolution the charts read), by an upsert that adds to what is stored, so
// instances sharing a PostgreSQL database add up. A crash loses the counts of the last flush
// interval: chart figures only, never a lead (leads are in their own table, written first).
import { op } from "../db/script.ts";
import { errorText, type Logger } from "../log/index.ts";
import type { Answering, Store } from "../store/index.ts";
import type { OutcomeCount } from "../store/outcome-counts/index.ts";
import type { RequestNote } from "../http/request-note.ts";
import { INTAKE_KINDS, type OutcomeKind } from "./kinds.ts";

const MINUTE_MS = 60_000;
/** The resolutions the charts read (stats/series.ts), and how long each is kept. */
export const RESOLUTIONS = [
  { bucketMs: MINUTE_MS, keptMs: 2 * 3_600_000 },
  { bucketMs: 15 * MINUTE_MS, keptMs: 2 * 86_400_000 },
  { bucketMs: 3_600_000, keptMs: 35 * 86_400_000 },
] as const;
export const FLUSH_INTERVAL_MS = 5_000;

export interface Tally {
  /** Counts one event of `kind` for the vendor ("" for none) now; `ms` adds to its bucket's total. */
  record(vendorId: string, kind: OutcomeKind, ms?: number): void;
  /** Adds what was counted since the last flush to the table; on failure keeps it for the next. */
  flush(): Promise<void>;
  /** Stops the timer and flushes what is left. */
  stop(): Promise<void>;
}

interface Pending {
  minuteAt: number;
  vendorId: string;
  kind: OutcomeKind;
  count: number;
  totalMs: number;
}

/** Where nothing is counted: a test's app or worker without a console. */
export const NO_TALLY: Tally = { record() {}, flush: async () => {}, stop: async () => {} };

export interface TallyDeps {
  store: Store<Answering, Answering>;
  log: Logger;
  clock?: () => number;
  /** 0: no timer (flush is called by the owner). */
  flushIntervalMs?: number;
}

export function createTally(deps: TallyDeps): Tally {
  const clock = deps.clock ?? Date.now;
  let pending = new Map<string, Pending>();
  let flushing: Promise<void> = Promise.resolve();

  function record(vendorId: string, kind: OutcomeKind, ms = 0): void {
    const now = clock();
    const minuteAt = now - (now % MINUTE_MS);
    mergeInto(pending, `${minuteAt}\u0000${vendorId}\u0000${kind}`, { minuteAt, vendorId, kind, count: 1, totalMs: ms });
  }

  async function writeOut(): Promise<void> {
    if (pending.size === 0) return;
    const taken = pending;
    pending = new Map();
    const rows = bucketRows(taken.values());
    const now = clock();
    try {
      await deps.store.write(
        function* (t) {
          yield* op(t.outcomeCounts.add(rows));
          for (const { bucketMs, keptMs } of RESOLUTIONS) yield* op(t.outcomeCounts.prune(bucketMs, now - keptMs));
        },
        { background: true },
      );
    } catch (error) {
      for (const [key, entry] of taken) mergeInto(pending, key, entry);
      deps.log.warn("tally_flush_failed", { error: errorText(error), action: "kept for the next flush" });
    }
  }

  const flush = () => (flushing = flushing.then(writeOut));
  const timer = deps.flushIntervalMs === 0 ? undefined : setInterval(() => void flush(), deps.flushIntervalMs ?? FLUSH_INTERVAL_MS);
  timer?.unref?.();
  return {
    record,
    flush,
    async stop() {
      clearInterval(timer);
      await flush();
    },
  };
}

/**
 * Counts an answered request from its note (http/request-note.ts), as its metrics are counted:
 * postLead's outcomes, and a refusal of credentials on any route (too many failures counted as
 * rate limited, for no vendor: the credentials named none that was admitted).
 */
export function tallyAnswer(tally: Tally, route: string, note: RequestNote): void {
  const { outcome, vendorId = "" } = note;
  if (outcome === "too_many_failures") tally.record("", "rate_limited");
  else if (outcome === "unauthorized" || outcome === "rate_limited") tally.record(vendorId, outcome);
  else if (route === "/v1/postLead" && isIntakeKind(outcome)) tally.record(vendorId, outcome);
}

const isIntakeKind = (outcome: string | undefined): outcome is OutcomeKind => (INTAKE_KINDS as readonly (string | undefined)[]).includes(outcome);

function mergeInto(map: Map<string, Pending>, key: string, entry: Pending): void {
  const current = map.get(key);
  if (!current) map.set(key, entry);
  else {
    current.count += entry.count;
    current.totalMs += entry.totalMs;
  }
}

/** Each minute's counts added into a row per resolution, in key order (see pg.ts: no deadlock between instances). */
function bucketRows(minutes: Iterable<Pending>): OutcomeCount[] {
  const rows = new Map<string, OutcomeCount>();
  for (const { minuteAt, vendorId, kind, count, totalMs } of minutes)
    for (const { bucketMs } of RESOLUTIONS) {
      const bucketAt = minuteAt - (minuteAt % bucketMs);
      const key = `${bucketMs}\u0000${bucketAt}\u0000${vendorId}\u0000${kind}`;
      const row = rows.get(key);
      if (row) {
        row.count += count;
        row.totalMs += totalMs;
      } else rows.set(key, { bucketMs, bucketAt, vendorId, kind, count, totalMs });
    }
  for (const row of rows.values()) row.totalMs = Math.round(row.totalMs);
  return [...rows.values()].sort(
    (a, b) => a.bucketMs - b.bucketMs || a.bucketAt - b.bucketAt || a.vendorId.localeCompare(b.vendorId) || a.kind.localeCompare(b.kind),
  );
}
