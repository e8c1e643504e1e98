// The refusal log's writer: every postLead answered 400 or 422 becomes a row, buffered in memory
// for a few ms and written in one multi-row INSERT through the store's ordinary write. On SQLite
// that write joins the group commit's batch (db/group-commit.ts), so refusals share the leads'
// transactions and fsyncs; on PostgreSQL it is one short transaction of its own per flush, apart
// from intake's turn batches (backend/pg-intake.ts), so a refusal row can never fail or delay a
// lead's statement. Best-effort observability: the answer never waits for it, a failed write is
// logged (at most once every 10 s) and its rows dropped, and a burst beyond MAX_PENDING is counted
// in the log, not kept. Foreground writes: on a full disk they are refused like intake's, so the
// refusal log never spends the reserve kept for deciding leads.
import { op } from "../db/script.ts";
import type { RequestNote } from "../http/request-note.ts";
import { errorText, type Logger } from "../log/index.ts";
import type { Answering, Store } from "../store/index.ts";
import type { Refusal } from "../store/refusals/index.ts";
import { refusalRow } from "./row.ts";

export const REFUSAL_FLUSH_MS = 5;
/** Rows kept while a write is slow or failing; more are dropped (and counted in the warning). */
export const MAX_PENDING = 10_000;
/** At most one warning this often while writes keep failing (a full disk would otherwise log per flush). */
const WARN_EVERY_MS = 10_000;
/** Rows per INSERT: 9 parameters each stays well under either database's limit. */
const ROWS_PER_STATEMENT = 1_000;

export interface RefusalLog {
  /** Records the answer when it is a postLead refused with 400 or 422; anything else is ignored. */
  record(route: string, status: number, requestId: string, note: RequestNote): void;
  /** Writes what is buffered. */
  flush(): Promise<void>;
  /** Stops the timer and writes what is left. */
  stop(): Promise<void>;
}

/** Where nothing is recorded: before the database is open. */
export const NO_REFUSAL_LOG: RefusalLog = { record() {}, flush: async () => {}, stop: async () => {} };

export interface RefusalLogDeps {
  store: Store<Answering, Answering>;
  log: Logger;
  clock?: () => number;
  flushMs?: number;
}

export function createRefusalLog(deps: RefusalLogDeps): RefusalLog {
  const clock = deps.clock ?? Date.now;
  const pending: Refusal[] = [];
  let overflow = 0;
  let timer: Timer | undefined;
  let stopped = false;
  let flushing: Promise<void> = Promise.resolve();
  let lost = 0;
  let warnedAt = -Infinity;

  function dropped(rows: number, error: unknown): void {
    lost += rows;
    const now = clock();
    if (now - warnedAt < WARN_EVERY_MS) return;
    warnedAt = now;
    deps.log.warn("refusal_log_write_failed", { error: errorText(error), refusals: lost, action: "dropped: the refusal log is best-effort" });
    lost = 0;
  }

  async function writeOut(): Promise<void> {
    while (pending.length > 0) {
      const rows = pending.splice(0, ROWS_PER_STATEMENT);
      try {
        await deps.store.write((t) => op(t.refusals.insert(rows)));
      } catch (error) {
        dropped(rows.length, error);
      }
    }
    if (overflow > 0) {
      deps.log.warn("refusal_log_full", { dropped: overflow, action: "dropped: more refusals than the log could write" });
      overflow = 0;
    }
  }
  const flush = () => (flushing = flushing.then(writeOut));

  return {
    record(route, status, requestId, note) {
      if (route !== "/v1/postLead" || (status !== 400 && status !== 422)) return;
      if (pending.length >= MAX_PENDING) {
        overflow++;
        return;
      }
      try {
        pending.push(refusalRow(clock(), status, requestId, note));
      } catch (error) {
        dropped(1, error);
        return;
      }
      if (timer === undefined && !stopped) {
        timer = setTimeout(() => {
          timer = undefined;
          void flush();
        }, deps.flushMs ?? REFUSAL_FLUSH_MS);
      }
    },
    flush,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      timer = undefined;
      await flush();
    },
  };
}
