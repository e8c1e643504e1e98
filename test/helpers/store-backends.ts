// Runs a table suite on both backends: SQLite in memory, and PostgreSQL on a throwaway cluster (one
// per test file, one database per suite, emptied before each test: TRUNCATE is far cheaper than a
// database per test). Operations are awaited, which takes SQLite's values and PostgreSQL's promises.
import { afterAll, beforeAll, beforeEach, describe } from "bun:test";
import { openDatabase } from "../../src/db/client.ts";
import { openPostgres, type PostgresHandle } from "../../src/db/pg/client.ts";
import type { Answering, Store, Tables } from "../../src/store/index.ts";
import { postgresStore, pgTables } from "../../src/store/pg.ts";
import { sqliteTables, storeOn } from "../../src/store/sqlite.ts";
import { startPgCluster, type PgCluster } from "./pg-cluster.ts";
import { postgresRows, sqliteRows, type RowsQuery } from "./rows.ts";

export interface StoreBackend {
  tables: Tables;
  store: Store<Answering, Answering>;
  /** The rows of a raw query with $1, $2 … parameters, integers as numbers: what a test inspects. */
  rows: RowsQuery;
}

const EVERY_TABLE =
  "vendors, leads, callbacks, callback_attempts, phone_claims, suppressions, idempotency_keys, operators, operator_sessions, audit_log, outcome_counts, paused_endpoints, policy, cap_usage, lead_findings, portal_sessions";

/** A cluster with one migrated database, started before the enclosing describe's tests and stopped after them. */
export function usePgDatabase(poolSize = 4): { handle: PostgresHandle; cluster: PgCluster; url: string } {
  const pg = {} as { handle: PostgresHandle; cluster: PgCluster; url: string };
  beforeAll(async () => {
    pg.cluster = await startPgCluster();
    pg.url = await pg.cluster.createDatabase();
    pg.handle = await openPostgres(pg.url, { poolSize });
  });
  afterAll(async () => {
    await pg.handle?.close();
    await pg.cluster?.stop();
  });
  return pg;
}

/** Defines `suite` twice, on SQLite and on PostgreSQL; `backend` is fresh (empty) in each test. */
export function describeOnBothBackends(name: string, suite: (backend: StoreBackend) => void): void {
  describe(`${name} (SQLite)`, () => {
    const backend = {} as StoreBackend;
    beforeEach(() => {
      const database = openDatabase(":memory:");
      backend.tables = sqliteTables(database.db);
      backend.store = storeOn(database.db);
      backend.rows = sqliteRows(database.sqlite);
    });
    suite(backend);
  });

  describe(`${name} (PostgreSQL)`, () => {
    const backend = {} as StoreBackend;
    const pg = usePgDatabase();
    let inspector: ReturnType<typeof postgresRows>;
    beforeAll(() => {
      inspector = postgresRows(pg.url);
      backend.tables = pgTables(pg.handle.db);
      backend.store = postgresStore(pg.handle.db);
      backend.rows = inspector.rows;
    });
    afterAll(async () => {
      await inspector?.close();
    });
    beforeEach(async () => {
      await pg.handle.sql.unsafe(`TRUNCATE ${EVERY_TABLE} RESTART IDENTITY`);
    });
    suite(backend);
  });
}
