// The disk under the database: is it full, and is the reserve still free? (docs/contract.md §9: readiness
// fails while writes fail.)
//
// A reserve is kept so that what was accepted can always be decided, called back and checkpointed:
// below `reserveBytes` of free space, foreground writes (intake) are refused with SQLITE_FULL (503
// for HTTP callers) while the worker's background writes and the checkpoints go on into the
// reserve. Free space is read with statfs on a timer, never per commit: the group committer only
// reads a boolean. A write that fails with SQLITE_FULL marks the disk full until the timer sees
// room again (at least the reserve, and at least MIN_ROOM_BYTES). A write that succeeds meanwhile
// clears nothing: a small one may fit in pages the WAL already has, while a new lead does not, and
// readiness would flap between 200 and 503 (seen in the disk-full test under load).
import { statfs } from "node:fs/promises";
import { dirname } from "node:path";

export interface DiskSpace {
  /** Why writes fail now (the disk is full, or the reserve is reached), or null. */
  problem(): Error | null;
  /** Why foreground writes are refused now (the reserve is reached), or null. */
  foregroundRefusal(): Error | null;
  /** Told of every failed batch: SQLITE_FULL marks the disk full. */
  writeFailed(error: unknown): void;
  stop(): void;
}

export interface DiskSpaceOptions {
  /** Free bytes kept for deciding and calling back what was accepted; 0 keeps none. */
  reserveBytes: number;
  /** How often free space is read (default 1 s). */
  everyMs?: number;
  /** Called when the state changes: "full", "reserve_reached" or "ok", with the free bytes last read. */
  onChange?: (state: DiskState, freeBytes: number | null) => void;
  /** Free bytes available at `path`'s filesystem (tests pass a stand-in). */
  freeBytes?: (path: string) => Promise<number>;
}

export type DiskState = "ok" | "full" | "reserve_reached";

/** Room that must be free again before a full disk counts as having room. */
const MIN_ROOM_BYTES = 1024 * 1024;

const fullError = (message: string) => Object.assign(new Error(message), { code: "SQLITE_FULL" });

async function availableBytes(path: string): Promise<number> {
  const stats = await statfs(path);
  return stats.bavail * stats.bsize;
}

const isFull = (error: unknown) => (error as { code?: string } | null)?.code === "SQLITE_FULL";

/** Watches the filesystem of `databasePath` (a file database; in-memory ones have no disk). */
export function watchDiskSpace(databasePath: string, options: DiskSpaceOptions): DiskSpace {
  const { reserveBytes, everyMs = 1_000, onChange, freeBytes = availableBytes } = options;
  const directory = dirname(databasePath);
  let full: Error | null = null;
  let reserveReached: Error | null = null;
  let lastFree: number | null = null;
  let state: DiskState = "ok";
  const report = () => {
    const now: DiskState = full ? "full" : reserveReached ? "reserve_reached" : "ok";
    if (now !== state) onChange?.((state = now), lastFree);
  };

  let reading = false;
  async function check() {
    if (reading) return; // a slow statfs (a stuck network filesystem) is not asked again meanwhile
    reading = true;
    // A reading taken before a write failed says nothing about the disk after it.
    const fullBefore = full;
    try {
      lastFree = await freeBytes(directory);
    } catch {
      return; // statfs itself failing says nothing about room; the next tick reads again.
    } finally {
      reading = false;
    }
    reserveReached =
      lastFree < reserveBytes ? fullError(`free disk space (${lastFree} bytes) is below the reserve of ${reserveBytes} bytes: intake is refused`) : null;
    if (full && full === fullBefore && lastFree >= Math.max(reserveBytes, MIN_ROOM_BYTES)) full = null;
    report();
  }
  const timer = setInterval(check, everyMs);
  timer.unref();
  void check();

  return {
    problem: () => full ?? reserveReached,
    foregroundRefusal: () => reserveReached,
    writeFailed(error) {
      if (!isFull(error) || full) return;
      full = error instanceof Error ? error : fullError(String(error));
      report();
    },
    stop: () => clearInterval(timer),
  };
}
