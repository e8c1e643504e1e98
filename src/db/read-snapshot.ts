// The group committer's reads (group-commit.ts). Reads outside writes (authentication, prePing,
// lookups) share one read transaction per turn of the event loop: in WAL mode each transaction's
// lock costs two fcntl() calls, more than the lookup. It ends before the next batch begins and at
// the end of the turn: no read is over a turn stale.
import type { Database } from "bun:sqlite";

/** Runs a synchronous read: in the turn's shared snapshot (GroupCommitter.read) or directly. */
export type ReadInSnapshot = <T>(read: () => T) => T;

export interface ReadSnapshot {
  /** Runs `read` in this turn's read transaction, opening it if none (nor a batch's) is open. */
  read: ReadInSnapshot;
  /** Ends this turn's read transaction, if open (before a batch begins, and at shutdown). */
  end(): void;
}

export function readSnapshot(sqlite: Database): ReadSnapshot {
  const begin = sqlite.prepare("BEGIN");
  const commit = sqlite.prepare("COMMIT");
  /** "open": this turn's read transaction is ours to end; "none": any transaction open is a batch's. */
  let snapshot: "none" | "open" = "none";

  function end() {
    if (snapshot === "none") return;
    snapshot = "none";
    try {
      commit.run();
    } catch {
      // The connection is gone (closed at shutdown): the snapshot went with it.
    }
  }

  return {
    read(read) {
      if (!sqlite.inTransaction) {
        begin.run();
        snapshot = "open";
        setImmediate(end);
      }
      return read();
    },
    end,
  };
}
