// The portal thread's own connections to the service's (already migrated) database. SQLite: a
// read-only connection for the pages' reads and a read-write one for the portal's few writes
// (sign-in, sign-out, resend, rotation), both on the same WAL file as the service's connection;
// PostgreSQL: a small pool of its own.
import { Database } from "bun:sqlite";
import type { Config } from "../config/index.ts";
import { openDatabase } from "../db/client.ts";
import { databaseKind } from "../db/kind.ts";
import { DATABASE_WAIT_MS, openPostgres } from "../db/pg/client.ts";
import type { Store } from "../store/index.ts";
import { postgresStore } from "../store/pg.ts";
import { storeOn } from "../store/sqlite.ts";

/**
 * How long a portal write waits for the service's write lock. SQLite waits by sleeping on the
 * calling thread: here that is the portal's, not intake's, so it can wait as the CLI does. The
 * service's group commit holds the lock for a batch (milliseconds).
 */
const WRITE_BUSY_TIMEOUT_MS = 5_000;
/** A reader waits only while another connection recovers the WAL (rare). */
const READ_BUSY_TIMEOUT_MS = 1_000;
/** The writer writes a few rows now and then: a small page cache. */
const WRITER_CACHE_BYTES = 64 * 1024;
/** One page's reads at a time, and one write beside them. */
const POOL_SIZE = 2;

export interface PortalStore {
  store: Store;
  close(): Promise<void>;
}

export async function openPortalStore(config: Config): Promise<PortalStore> {
  if (databaseKind(config.databasePath) === "postgres") {
    const postgres = await openPostgres(config.databasePath, { poolSize: POOL_SIZE, migrate: false, waitMs: DATABASE_WAIT_MS });
    return { store: postgresStore(postgres.db), close: () => postgres.close() };
  }
  const reader = new Database(config.databasePath, { readonly: true, strict: true });
  reader.run(`PRAGMA busy_timeout = ${READ_BUSY_TIMEOUT_MS}`);
  reader.run(`PRAGMA cache_size = ${-Math.ceil(config.sqliteCacheBytes / 1024)}`);
  const writer = openDatabase(config.databasePath, { migrate: false, busyTimeoutMs: WRITE_BUSY_TIMEOUT_MS, cacheBytes: WRITER_CACHE_BYTES });
  // The service's checkpointer (db/checkpointer.ts) owns checkpoints: a commit here must not run one.
  writer.sqlite.run("PRAGMA wal_autocheckpoint = 0");
  const reads = storeOn(reader);
  const writes = storeOn(writer.db);
  return {
    store: { read: reads.read, write: writes.write },
    async close() {
      // Not writer.close(): its TRUNCATE checkpoint would stall the service's writers (as the CLI's).
      reader.close();
      writer.sqlite.close();
    },
  };
}
