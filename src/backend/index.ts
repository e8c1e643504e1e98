// The service's database, chosen once at start by the database setting (db/kind.ts): the embedded
// SQLite file, or a PostgreSQL server that several instances share. The rest of the service sees
// a store, a synchronous vendor lookup for the authenticator, readiness and close. It composes
// db/, store/ and auth/, so it sits above them, in a folder of its own.
//
// SQLite: one connection, writes batched by the group committer (db/group-commit.ts), WAL
// checkpoints on a thread, the disk's free space watched. PostgreSQL: a pool of connections and
// the leads of a turn in one statement (backend/pg-intake.ts), anything else one transaction per
// script (or per worker step).
import { cachedCredentials, storedCredentials, type CredentialsLookup } from "../auth/vendor-credentials.ts";
import type { Database } from "bun:sqlite";
import { sql } from "drizzle-orm";
import type { Config } from "../config/index.ts";
import type { Logger } from "../log/index.ts";
import type { IntakeBatches } from "../intake/service.ts";
import type { Answering, PostgresStore, Store } from "../store/index.ts";
import { pgIntakeBatches } from "./pg-intake.ts";
import { pgWorkerBatches } from "./pg-worker.ts";
import type { WorkerBatches } from "../store/batches/index.ts";
import { sqliteWorkerBatches } from "../store/batches/sqlite.ts";
import { postgresStore } from "../store/pg.ts";
import { groupCommittedStore, sqliteTransactionParticipants } from "../store/sqlite.ts";
import { openDatabase, sqliteOpenFailure, type DatabaseHandle } from "../db/client.ts";
import { watchDiskSpace, type DiskSpaceOptions } from "../db/disk-space.ts";
import { writeTurn } from "../db/write-turns.ts";
import { createGroupCommitter, type GroupCommitter } from "../db/group-commit.ts";
import { databaseKind } from "../db/kind.ts";
import { isMigrated as isSqliteMigrated } from "../db/migrate.ts";
import { DATABASE_WAIT_MS, openPostgres, type PostgresHandle } from "../db/pg/client.ts";
import { driverErrors } from "../db/pg/errors.ts";
import { isMigrated as isPgMigrated } from "../db/pg/migrate.ts";

export interface ServiceBackend {
  /** SQLite's reads answer at once (the hot path stays synchronous), PostgreSQL's with promises; writes always with one. */
  store: Store<Answering, "promise">;
  /** PostgreSQL's: postLead's and prePing's requests in batches (backend/pg-intake.ts); SQLite's group commit batches writes already. */
  intakeBatches?: IntakeBatches;
  /** The worker's decisions set-based (store/batches/), and on PostgreSQL its attempt records (backend/pg-worker.ts). */
  workerBatches?: WorkerBatches;
  /** The authenticator's lookup, answered at once on both databases. */
  credentialsOf: CredentialsLookup;
  /** Vendors were changed by this process (the bootstrap vendor): the lookup sees them from now on. */
  vendorsChanged(): Promise<void>;
  /** /readyz: the database answers, is migrated, and writes succeed. */
  ready(): boolean | Promise<boolean>;
  /** After HTTP and the worker have stopped: pending writes finish (until `deadline`), then the database closes. */
  close(deadline: number): Promise<void>;
}

/** What a test may pass instead: its own opened SQLite database (with limits of its own), the disk's free space. */
export interface BackendStandIns {
  database?: DatabaseHandle;
  freeBytes?: DiskSpaceOptions["freeBytes"];
}

export interface BackendHooks {
  /** HTTP requests are in flight (the group committer yields to them). */
  foregroundBusy: () => boolean;
  /** The WAL checkpointer's thread entry (resolved by server.ts; see there). */
  checkpointThreadUrl: URL;
  standIns?: BackendStandIns;
  /** SQLite: the write turns shared with the worker thread's connection, when the worker runs on one (db/write-turns.ts). */
  writeTurns?: Int32Array | null;
}

export function openServiceBackend(config: Config, log: Logger, hooks: BackendHooks): Promise<ServiceBackend> {
  return databaseKind(config.databasePath) === "postgres" ? openPostgresBackend(config, log) : Promise.resolve(openSqliteBackend(config, log, hooks));
}

/** The database setting as logs and errors may show it: a URL's password masked. */
export function databaseForDisplay(setting: string): string {
  if (databaseKind(setting) === "sqlite") return setting;
  try {
    const url = new URL(setting);
    if (url.password) url.password = "***";
    return url.toString();
  } catch {
    return "postgres://… (not a valid URL)";
  }
}

const millisUntil = (deadline: number) => Math.max(0, deadline - Date.now());

/** A SQLite service backend over an opened database and its group committer. */
export function sqliteBackend(database: DatabaseHandle, commit: GroupCommitter, onClose: () => void = () => {}): ServiceBackend {
  const store = groupCommittedStore(database.db, commit);
  return {
    store,
    workerBatches: sqliteWorkerBatches(database.sqlite, commit),
    credentialsOf: storedCredentials(store),
    vendorsChanged: async () => {},
    ready: () => sqliteReady(database.sqlite, commit.writeFailure),
    async close(deadline) {
      await commit.drain(millisUntil(deadline));
      onClose();
      database.close();
    },
  };
}

/** SQLite's readiness: the file is open and migrated, and `writeFailure` (the group committer's) is null. */
export function sqliteReady(sqlite: Database, writeFailure: () => Error | null): boolean {
  try {
    return isSqliteMigrated(sqlite) && writeFailure() === null;
  } catch {
    return false; // closed
  }
}

function openSqliteBackend(config: Config, log: Logger, hooks: BackendHooks): ServiceBackend {
  // A short busy timeout: SQLite waits by sleeping on this thread, which would stall every request.
  const database = hooks.standIns?.database ?? openSqliteFile(config);
  const diskSpace = watchDiskSpace(config.databasePath, {
    reserveBytes: config.diskReserveBytes,
    freeBytes: hooks.standIns?.freeBytes,
    onChange: (state, freeBytes) => {
      const fields = { state, free_bytes: freeBytes, reserve_bytes: config.diskReserveBytes };
      if (state === "ok") log.info("disk_space_ok", fields);
      else
        log.error("disk_space_low", {
          ...fields,
          action: state === "full" ? "writes fail; retrying" : "intake refused; the reserve is kept for deciding and calling back",
        });
    },
  });
  const commit = createGroupCommitter(database.sqlite, {
    participants: sqliteTransactionParticipants(database.db),
    foregroundBusy: hooks.foregroundBusy,
    diskSpace,
    writeTurn: hooks.writeTurns ? writeTurn(hooks.writeTurns, "intake") : null,
    onStorageFailure: (error) => log.error("storage_failed", { error: error.message, action: "writes refused until restart" }),
    checkpointInThread: {
      threadUrl: hooks.checkpointThreadUrl,
      onThreadStart: () => log.info("checkpoint_thread_started"),
      onError: (error) => log.error("checkpoint_thread_failed", { error: error.message, action: "SQLite checkpoints meanwhile; retrying with backoff" }),
      onRecovered: () => log.info("checkpoint_thread_recovered"),
    },
  });
  return sqliteBackend(database, commit, () => diskSpace.stop());
}

/** The database could not be opened and migrated at start (PostgreSQL unreachable, say): the message says where, never the password. */
export class DatabaseOpenError extends Error {}

function openSqliteFile(config: Config): DatabaseHandle {
  try {
    return openDatabase(config.databasePath, { busyTimeoutMs: 20, cacheBytes: config.sqliteCacheBytes });
  } catch (error) {
    throw new DatabaseOpenError(sqliteOpenFailure(config.databasePath, error), { cause: error });
  }
}

/** Opens a pool and applies pending migrations, under their advisory lock (pg/migrate.ts): instances starting together are safe. */
export async function openMigratedPostgres(url: string, poolSize: number, waitMs?: number): Promise<PostgresHandle> {
  try {
    return await openPostgres(url, { poolSize, waitMs });
  } catch (error) {
    throw new DatabaseOpenError((error as Error).message, { cause: error });
  }
}

async function openPostgresBackend(config: Config, log: Logger): Promise<ServiceBackend> {
  const postgres = await openMigratedPostgres(config.databasePath, config.databasePoolSize, DATABASE_WAIT_MS);
  // Loading the vendors can fail too (the server ran out of connection slots since): the pool
  // must not outlive the failed attempt, which start-up retries (open-retrying.ts).
  return postgresBackend(postgres, config, log).catch(async (error: unknown) => {
    await postgres.close().catch(() => {});
    throw error;
  });
}

async function postgresBackend(postgres: PostgresHandle, config: Config, log: Logger): Promise<ServiceBackend> {
  const store = trackedWrites(
    postgresStore(postgres.db),
    () => walProbe(postgres),
    (error) => log.error("storage_failed", { error: error.message, action: "writes refused (PostgreSQL's disk or memory); not ready until a write succeeds" }),
  );
  const credentials = await cachedCredentials(store.store, {
    onError: (error) => log.error("vendors_reload_failed", { error: (error as Error).message, action: "keeping the last list; retrying every second" }),
  });
  const intakeBatches = pgIntakeBatches(postgres.db, store.store, {
    duplicateWindowMs: config.duplicateWindowMs,
    onBatchFailed: (error) => log.info("lead_batch_failed", { error: (error as Error).message, action: "its leads were stored one by one" }),
  });
  return {
    store: store.store,
    intakeBatches,
    workerBatches: pgWorkerBatches(postgres.db, store.store),
    credentialsOf: credentials.lookup,
    vendorsChanged: credentials.refresh,
    async ready() {
      try {
        const answer = await withinDeadline(Promise.all([isPgMigrated(postgres.db), store.writeFailure()]), READINESS_TIMEOUT_MS);
        return answer !== "timedOut" && answer[0] && answer[1] === null;
      } catch {
        return false; // the server is down or unreachable
      }
    },
    async close() {
      credentials.stop();
      await postgres.close();
    },
  };
}

/**
 * How long readiness waits for PostgreSQL's answer before it says 503: /readyz answers within a
 * second whatever the database does. On a network partition a pooled connection's query waits for
 * TCP to give up (minutes), and with every connection busy it waits for one (bounded-waits.ts);
 * a load balancer's probe (often 1 s) would time out without an answer.
 */
const READINESS_TIMEOUT_MS = 800;

/** `answer`, or "timedOut" when it has not come within `ms`. */
function withinDeadline<T>(answer: Promise<T>, ms: number): Promise<T | "timedOut"> {
  let timer: Timer | undefined;
  const deadline = new Promise<"timedOut">((resolve) => (timer = setTimeout(resolve, ms, "timedOut")));
  return Promise.race([answer, deadline]).finally(() => clearTimeout(timer));
}

/** Out of space or memory (SQLSTATE class 53) or failing I/O (58): the server answers but cannot write. */
const isWriteFailure = (error: unknown) => /^5[38]/.test(sqlState(error) ?? "");

/**
 * The store, remembering why writes fail while the server answers but cannot write (a full disk,
 * out of memory), for readiness. Only `probe` clears it: an ordinary write that succeeds may have
 * written nothing (the worker's claim when nothing is due commits without WAL space), and readiness
 * flapped back to 200 on it while the disk was full. An unreachable server needs no memory:
 * readiness asks it. `onFailure` is told when writes start failing (once until a probe clears it).
 */
export function trackedWrites(
  store: PostgresStore,
  probe: () => Promise<unknown>,
  onFailure: (error: Error) => void = () => {},
): { store: PostgresStore; writeFailure: () => Promise<Error | null> } {
  let failure: Error | null = null;
  const remember = (error: unknown) => {
    if (!isWriteFailure(error)) return;
    if (failure === null) onFailure(error as Error);
    failure = error as Error;
  };
  return {
    store: {
      read: (script) => store.read(script),
      write: (script, options) =>
        store.write(script, options).catch((error: unknown) => {
          remember(error);
          throw error;
        }),
    },
    async writeFailure() {
      if (failure) await probe().then(() => (failure = null), remember);
      return failure;
    },
  };
}

/**
 * A write that really writes: a transaction id taken and committed, so its commit record is
 * flushed to the WAL (a transaction that changed nothing writes none).
 */
export const walProbe = (postgres: PostgresHandle) => driverErrors(postgres.db.transaction((tx) => tx.execute(sql`select pg_current_xact_id()`)));

/** The SQLSTATE of a PostgreSQL error, also when drizzle wrapped it (its `cause`). */
export function sqlState(error: unknown): string | undefined {
  for (let e = error as { errno?: unknown; cause?: unknown } | null | undefined, depth = 0; e && depth < 4; e = e.cause as typeof e, depth++) {
    if (typeof e.errno === "string" && /^[0-9A-Z]{5}$/.test(e.errno)) return e.errno;
  }
  return undefined;
}

/** Bun SQL's own code for a failure of the connection itself (refused, closed, timed out, …), or no connection within the wait's bound (db/pg/bounded-waits.ts). */
function connectionFailureCode(error: unknown): string | undefined {
  for (let e = error as { code?: unknown; cause?: unknown } | null | undefined, depth = 0; e && depth < 4; e = e.cause as typeof e, depth++) {
    if (typeof e.code === "string" && /^ERR_POSTGRES_(CONNECTION_|IDLE_TIMEOUT|LIFETIME_TIMEOUT|TLS|WAIT_TIMEOUT)/.test(e.code)) return e.code;
  }
  return undefined;
}

/**
 * A failure a retry later may not have: SQLite locked, full or failing I/O; PostgreSQL unreachable,
 * shutting down (57P0x), a statement past its timeout (57014), connection lost (08xxx), out of
 * resources (53xxx) or failing I/O (58xxx). Answered 503, not 500.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string" && /^SQLITE_(BUSY|LOCKED|FULL|IOERR)/.test(code)) return true;
  if (connectionFailureCode(error)) return true;
  return /^(08|53|58|57P0|57014)/.test(sqlState(error) ?? "");
}
