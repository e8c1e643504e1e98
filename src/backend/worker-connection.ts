// The worker thread's own connection to the service's database (worker/thread.ts): the same store
// and set-based batches as the in-process worker's, over a connection the thread alone uses.
//
// SQLite: a second connection to the same WAL file, with a group committer of its own. SQLite has
// one write lock: the two connections take turns at it (db/write-turns.ts), intake first, and a
// side that finds the other's turn waits without sleeping on its event loop; the worker keeps its
// transactions short (worker/index.ts). The thread's commits are made durable by its own WAL fsync,
// on the thread pool, as intake's are (handing them to intake's fsyncs instead measured no better:
// bench/README.md, issue 30 goal 2). It leaves checkpoints to the main connection's checkpointer,
// with a PASSIVE checkpoint of its own for when only the worker writes (intake idle: the
// checkpointer counts intake's writes only). SQLite's automatic checkpoint stays off on this
// connection too: it ran inside the thread's COMMIT, copying up to the whole WAL, while intake's
// checkpointer could not complete its own (measured: COMMITs of about a second).
// PostgreSQL: a pool of its own, beside intake's.
import type { Database } from "bun:sqlite";
import { openDatabase } from "../db/client.ts";
import { createGroupCommitter } from "../db/group-commit.ts";
import { writeTurn } from "../db/write-turns.ts";
import { databaseKind } from "../db/kind.ts";
import { DATABASE_WAIT_MS } from "../db/pg/client.ts";
import type { Config } from "../config/index.ts";
import type { Logger } from "../log/index.ts";
import type { WorkerBatches } from "../store/batches/index.ts";
import { sqliteWorkerBatches } from "../store/batches/sqlite.ts";
import type { Answering, Store } from "../store/index.ts";
import { postgresStore } from "../store/pg.ts";
import { groupCommittedStore, sqliteTransactionParticipants } from "../store/sqlite.ts";
import { openMigratedPostgres, trackedWrites, walProbe } from "./index.ts";
import { pgWorkerBatches } from "./pg-worker.ts";

export interface WorkerBackend {
  store: Store<Answering, "promise">;
  workerBatches: WorkerBatches;
  /** Pending writes finish (until `deadline`), then the connection closes. */
  close(deadline: number): Promise<void>;
}

/**
 * How long the thread's statements wait for intake's write lock by sleeping (its own event loop:
 * only its deliveries wait meanwhile); a batch still locked out then is retried on a timer.
 */
const BUSY_TIMEOUT_MS = 100;
/** How often the thread checks whether it should checkpoint (intake idle, the thread wrote). */
const IDLE_CHECKPOINT_MS = 1_000;

export function openWorkerBackend(config: Config, log: Logger, foregroundBusy: () => boolean, writeTurns: Int32Array): Promise<WorkerBackend> {
  return databaseKind(config.databasePath) === "postgres"
    ? openPostgresWorker(config, log)
    : Promise.resolve(openSqliteWorker(config, log, foregroundBusy, writeTurns));
}

function openSqliteWorker(config: Config, log: Logger, foregroundBusy: () => boolean, writeTurns: Int32Array): WorkerBackend {
  // The main thread migrated the file before it started this thread.
  const database = openDatabase(config.databasePath, { migrate: false, busyTimeoutMs: BUSY_TIMEOUT_MS, cacheBytes: config.sqliteCacheBytes });
  database.sqlite.run("PRAGMA wal_autocheckpoint = 0");
  const idleCheckpoints = checkpointWhileIntakeIdles(database.sqlite, foregroundBusy);
  const commit = createGroupCommitter(database.sqlite, {
    participants: sqliteTransactionParticipants(database.db),
    // Background writes (purges) still go in waves while requests are in flight: fewer, later
    // transactions for intake's BEGIN to wait behind.
    foregroundBusy,
    // Intake's batches go first, and never sleep on its event loop behind this connection's lock.
    writeTurn: writeTurn(writeTurns, "worker"),
    onStorageFailure: (error) => log.error("storage_failed", { error: error.message, part: "worker thread", action: "worker writes refused until restart" }),
  });
  return {
    store: groupCommittedStore(database.db, commit),
    workerBatches: sqliteWorkerBatches(database.sqlite, commit),
    async close(deadline) {
      await commit.drain(Math.max(0, deadline - Date.now()));
      // Not DatabaseHandle.close(): its TRUNCATE checkpoint is the last connection's, intake's.
      clearInterval(idleCheckpoints);
      if (database.sqlite.inTransaction) database.sqlite.run("ROLLBACK");
      database.sqlite.close();
    },
  };
}

/**
 * A PASSIVE checkpoint on the thread's connection, each second, when the thread has written since
 * the last and no request is in flight: while intake writes, its checkpointer keeps the WAL short.
 */
function checkpointWhileIntakeIdles(sqlite: Database, foregroundBusy: () => boolean): Timer {
  const changes = sqlite.query<{ n: number }, []>("SELECT total_changes() AS n");
  let checkpointedAt = 0;
  const timer = setInterval(() => {
    const now = changes.get()!.n;
    if (now === checkpointedAt || foregroundBusy() || sqlite.inTransaction) return;
    checkpointedAt = now;
    try {
      sqlite.run("PRAGMA wal_checkpoint(PASSIVE)");
    } catch {
      // Busy or failing: intake's checkpointer, or the next second, will.
    }
  }, IDLE_CHECKPOINT_MS);
  timer.unref();
  return timer;
}

/** Half the configured pool (at least 2): the worker's statements are few and set-based, intake's many. */
const workerPoolSize = (config: Config) => Math.max(2, Math.ceil(config.databasePoolSize / 2));

async function openPostgresWorker(config: Config, log: Logger): Promise<WorkerBackend> {
  const postgres = await openMigratedPostgres(config.databasePath, workerPoolSize(config), DATABASE_WAIT_MS);
  const store = trackedWrites(
    postgresStore(postgres.db),
    () => walProbe(postgres),
    (error) => log.error("storage_failed", { error: error.message, part: "worker thread", action: "worker writes refused; retrying" }),
  );
  return {
    store: store.store,
    workerBatches: pgWorkerBatches(postgres.db, store.store),
    close: () => postgres.close(),
  };
}
