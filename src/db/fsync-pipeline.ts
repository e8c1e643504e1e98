// The group committer's durability (group-commit.ts): a committed batch is answered once a WAL
// fsync that started after its COMMIT returns. The fsync runs off the event loop (wal-sync.ts).
// Only one is in flight at a time (two at once slowed each other, measured). Batches committed
// while it runs wait for the next one, which starts as soon as it returns, before the synced
// batches are answered; so the event loop runs the next batch's statements while the disk works
// (the committer decides when a batch may commit during an fsync: see its `commitDuringSyncAt`).
//
// A failed WAL sync stops all writing until the process restarts (fail-stop, as PostgreSQL does on
// a failed fsync): Linux may have dropped the unsynced pages, so the WAL on disk can lack that
// batch's frames, and WAL recovery stops at the first bad frame, taking every later commit with
// it. Answering a later batch "stored" would be a lie. Every write from then on is refused with
// the sync's error (503 for HTTP callers), and the committer's `writeFailure()` reports it.
import { rejectAll, settle, type Outcome, type Pending } from "./batch.ts";
import type { WalSync } from "./wal-sync.ts";

/** A committed batch and what each of its writes returned or threw. */
interface Committed {
  batch: Pending[];
  outcomes: Outcome[];
}

/**
 * "idle": no fsync in flight. "syncing": one is, for `batches`; batches committed meanwhile wait
 * for the next. "stopped": an fsync failed; no write is taken from then on (fail-stop).
 */
export type SyncState = { kind: "idle" } | { kind: "syncing"; batches: Committed[] } | { kind: "stopped"; failure: Error };

const IDLE: SyncState = { kind: "idle" };

export interface FsyncPipeline {
  readonly state: SyncState;
  /** A batch committed: answered at once without a WAL (in-memory databases), else after its fsync. */
  committed(batch: Pending[], outcomes: Outcome[]): void;
  /** Resolves when the fsync in flight has returned and its batches are answered; null when none is in flight. */
  whenReturned(): Promise<void> | null;
}

export interface FsyncHooks {
  /** An fsync returned: commit the writes that waited for it now, so the next fsync covers them. */
  commitWaiting: () => void;
  /** An fsync returned and its batches were answered (or rejected): the writes still waiting may go. */
  afterReturn: () => void;
  /** Called once, when a WAL sync fails and writes stop. */
  onStorageFailure?: (error: Error) => void;
}

export function fsyncPipeline(wal: WalSync | null, hooks: FsyncHooks): FsyncPipeline {
  let state = IDLE;
  /** Batches committed while an fsync was in flight: the next fsync makes them durable. */
  let unsynced: Committed[] = [];
  /** Who waits for the fsync in flight to return (drain); made only when someone asks. */
  let returnWaiters: (() => void)[] = [];

  function startSync(wal: WalSync) {
    state = { kind: "syncing", batches: unsynced };
    unsynced = [];
    wal.sync(returned);
  }

  function returned(error: Error | null) {
    const { batches } = state as Extract<SyncState, { kind: "syncing" }>;
    if (error) {
      // Batches committed during this fsync are not durable either, and never will be.
      for (const { batch } of batches.concat(unsynced)) rejectAll(batch, error);
      unsynced = [];
      state = { kind: "stopped", failure: error };
      hooks.onStorageFailure?.(error);
    } else {
      state = IDLE;
      hooks.commitWaiting();
      if (unsynced.length > 0 && state === IDLE) startSync(wal!);
      for (const { batch, outcomes } of batches) settle(batch, outcomes);
    }
    if (returnWaiters.length > 0) {
      const waiters = returnWaiters;
      returnWaiters = [];
      for (const waiter of waiters) waiter();
    }
    hooks.afterReturn();
  }

  return {
    get state() {
      return state;
    },
    committed(batch, outcomes) {
      if (!wal) return settle(batch, outcomes);
      unsynced.push({ batch, outcomes });
      if (state.kind !== "syncing") startSync(wal);
    },
    whenReturned: () => (state.kind === "syncing" ? new Promise((resolve) => returnWaiters.push(resolve)) : null),
  };
}
