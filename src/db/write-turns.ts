// Turns at SQLite's one write lock between the two connections of this process that write: intake's
// (the main thread's group committer) and the worker thread's (--worker-thread). Without them, an
// intake batch that met the thread's transaction slept in SQLite's busy handler, on intake's event
// loop, in steps of 1, 2, 5 and 10 ms up to its 20 ms busy timeout (measured: 0.6-1.0 s of every
// 10 s at 2,000 leads/s; bench/README.md, issue 30 goal 2). With them, each side takes a turn in a
// shared word before its BEGIN, and a side that finds the other's turn waits for it with
// Atomics.waitAsync: its event loop goes on serving (a batch waiting for its turn keeps gathering
// writes) and the batch begins as soon as the other side's COMMIT is done. Intake goes first: a
// worker batch does not take a turn while an intake batch waits for one.
//
// The word only orders this process's two connections; SQLite's lock still decides. Another
// process (the CLI), or a turn cut short, is met by BEGIN's busy timeout and retry as before, and a
// side waits for the other's turn at most `maxWaitMs` before it begins anyway, so a thread that died
// holding a turn (its host also hands the turn back: `resetWorkerTurn`) cannot stop intake.

/** The shared words (an Int32Array over shared memory: worker/thread-messages.ts foregroundCounter): whose turn it is, and whether intake waits for one. */
const TURN = 0;
const INTAKE_WAITING = 1;
export const TURN_WORDS = 2;
const FREE = 0;

export type WriteSide = "intake" | "worker";
const SIDE_CODE: Record<WriteSide, number> = { intake: 1, worker: 2 };

export interface WriteTurn {
  /** Takes this side's turn before BEGIN; null when taken, else a promise that settles when to try again. */
  take(): Promise<unknown> | null;
  /** The transaction ended (committed, rolled back, or BEGIN failed): the other side may go. */
  release(): void;
}

/**
 * How long one side waits for the other's turn before it begins anyway (SQLite's lock then
 * decides). A turn is held only while its side's transaction runs, synchronously, so this bounds
 * the wait behind a thread that died mid-transaction before its host handed the turn back.
 */
const MAX_WAIT_MS = 1_000;

export function writeTurn(words: Int32Array, side: WriteSide, maxWaitMs = MAX_WAIT_MS): WriteTurn {
  const me = SIDE_CODE[side];
  /** Since when this side has been waiting for the other's turn; null when not waiting. */
  let waitingSince: number | null = null;

  const waitFor = (index: number, value: number): Promise<unknown> => {
    const waited = Atomics.waitAsync(words, index, value, Math.max(1, maxWaitMs - (Date.now() - waitingSince!)));
    return waited.async ? waited.value : Promise.resolve();
  };

  function taken(): null {
    waitingSince = null;
    if (me === SIDE_CODE.intake) Atomics.store(words, INTAKE_WAITING, 0);
    return null;
  }

  return {
    take() {
      const now = Date.now();
      waitingSince ??= now;
      // Waited long enough: begin anyway, as without turns (the word is left to its holder).
      if (now - waitingSince >= maxWaitMs) return taken();
      if (me === SIDE_CODE.worker) {
        if (Atomics.load(words, INTAKE_WAITING) === 1) return waitFor(INTAKE_WAITING, 1);
      } else {
        Atomics.store(words, INTAKE_WAITING, 1);
      }
      const holder = Atomics.compareExchange(words, TURN, FREE, me);
      if (holder === FREE || holder === me) return taken();
      return waitFor(TURN, holder);
    },
    release() {
      if (Atomics.compareExchange(words, TURN, me, FREE) === me) Atomics.notify(words, TURN);
      if (me === SIDE_CODE.intake) Atomics.notify(words, INTAKE_WAITING);
    },
  };
}

/** Hands back a turn the worker thread held when it died (thread-host.ts): intake need not wait it out. */
export function resetWorkerTurn(words: Int32Array): void {
  if (Atomics.compareExchange(words, TURN, SIDE_CODE.worker, FREE) === SIDE_CODE.worker) Atomics.notify(words, TURN);
}
