// The SQLite store: the tables built once per connection, and scripts run synchronously (runNow),
// on the service inside the group commit's batch, elsewhere in a transaction of their own.
import type { Database } from "bun:sqlite";
import { drizzle } from "drizzle-orm/bun-sqlite";
import type { Db } from "../db/client.ts";
import type { TransactionParticipant } from "../db/batch.ts";
import type { GroupCommitter } from "../db/group-commit.ts";
import * as schema from "../db/schema.ts";
import { runNow } from "../db/script.ts";
import { sqliteAudit } from "./audit/sqlite.ts";
import { sqliteCallbacks } from "./callbacks/sqlite.ts";
import { sqliteCapUsage } from "./cap-usage/sqlite.ts";
import { sqliteIdempotencyKeys } from "./idempotency-keys/sqlite.ts";
import type { ConnectionStore, ServiceStore, Tables } from "./index.ts";
import { sqliteLeads } from "./leads/sqlite.ts";
import { sqliteOperatorSessions } from "./operator-sessions/sqlite.ts";
import { sqliteOperators } from "./operators/sqlite.ts";
import { sqliteOutcomeCounts } from "./outcome-counts/sqlite.ts";
import { sqlitePausedEndpoints } from "./paused-endpoints/sqlite.ts";
import { sqlitePhoneClaims } from "./phone-claims/sqlite.ts";
import { sqlitePortalSessions } from "./portal-sessions/sqlite.ts";
import { sqlitePolicy } from "./policy/sqlite.ts";
import { sqliteFindings } from "./findings/sqlite.ts";
import { sqliteRefusals } from "./refusals/sqlite.ts";
import { sqliteSecrets } from "./secrets/sqlite.ts";
import { sqliteSuppressions } from "./suppressions/sqlite.ts";
import { sqliteVendors } from "./vendors/sqlite.ts";

/** A SQLite connection, as the drizzle database or the bun:sqlite one. */
export type Connection = Db | Database;

/** The bun:sqlite connection under either form. */
export const sqliteOf = (connection: Connection): Database => ("$client" in connection ? connection.$client : connection);

interface ConnectionTables {
  tables: Tables;
  /** What follows the group committer's batch transactions (db/batch.ts TransactionParticipant). */
  participants: TransactionParticipant[];
}

const tablesByConnection = new WeakMap<Database, ConnectionTables>();

/** The tables of a connection, their statements prepared once per connection. */
export const sqliteTables = (connection: Connection): Tables => tablesOf(connection).tables;

/**
 * What a group committer on this connection must tell of its batches (db/batch.ts): the cap
 * counters' tally (store/cap-usage/sqlite-tally.ts), so that a batch writes each counter once.
 */
export const sqliteTransactionParticipants = (connection: Connection): readonly TransactionParticipant[] => tablesOf(connection).participants;

function tablesOf(connection: Connection): ConnectionTables {
  const sqlite = sqliteOf(connection);
  let found = tablesByConnection.get(sqlite);
  if (!found) {
    const db = "$client" in connection ? connection : (drizzle({ client: sqlite, schema }) as Db);
    const capUsage = sqliteCapUsage(db);
    const tables: Tables = {
      leads: sqliteLeads(db),
      callbacks: sqliteCallbacks(db),
      phoneClaims: sqlitePhoneClaims(db),
      vendors: sqliteVendors(db),
      suppressions: sqliteSuppressions(db),
      idempotencyKeys: sqliteIdempotencyKeys(db),
      operators: sqliteOperators(db),
      operatorSessions: sqliteOperatorSessions(db),
      audit: sqliteAudit(db),
      outcomeCounts: sqliteOutcomeCounts(db),
      pausedEndpoints: sqlitePausedEndpoints(db),
      policy: sqlitePolicy(db),
      refusals: sqliteRefusals(db),
      capUsage: capUsage.table,
      findings: sqliteFindings(db),
      secrets: sqliteSecrets(db),
      portalSessions: sqlitePortalSessions(db),
    };
    found = { tables, participants: [capUsage.tally] };
    tablesByConnection.set(sqlite, found);
  }
  return found;
}

/**
 * The service's store: writes join the group commit's batch, reads share the turn's snapshot.
 * `tables`: the connection's own unless a test passes altered ones.
 */
export function groupCommittedStore(db: Db, commit: GroupCommitter, tables: Tables = sqliteTables(db)): ServiceStore {
  return {
    write: (script, options) => commit.run(() => runNow(script(tables)), options),
    read: (script) => commit.read(() => runNow(script(tables))),
  };
}

const connectionStores = new WeakMap<Database, ConnectionStore>();

/**
 * The store of a connection outside the group committer (the CLI's, a test's second connection):
 * writes in an immediate transaction, reads in a transaction of their own, so a script reads one
 * snapshot.
 */
export function storeOn(connection: Connection): ConnectionStore {
  const sqlite = sqliteOf(connection);
  let store = connectionStores.get(sqlite);
  if (!store) {
    const tables = sqliteTables(connection);
    store = {
      write: (script) => sqlite.transaction(() => runNow(script(tables))).immediate(),
      read: (script) => sqlite.transaction(() => runNow(script(tables)))(),
    };
    connectionStores.set(sqlite, store);
  }
  return store;
}
