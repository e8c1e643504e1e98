// A connection of its own to the service's (already migrated) database, for work that must not run
// on the service's connections: a suppression import from the console stages its rows in a TEMP
// table, which belongs to the connection that made it (suppression/import.ts), as the CLI's does.
import { openDatabase } from "../db/client.ts";
import { databaseKind } from "../db/kind.ts";
import { openPostgres } from "../db/pg/client.ts";
import type { OperatorDatabase } from "./index.ts";
import { postgresStore } from "./pg.ts";
import { storeOn } from "./sqlite.ts";

/** One statement at a time, and the import's reserved session: two connections. */
const POOL_SIZE = 2;

/** Opens `setting` (a file's path or a postgres:// URL) without migrating, runs `use`, and closes it. */
export async function withOwnConnection<T>(setting: string, use: (database: OperatorDatabase) => Promise<T>): Promise<T> {
  if (databaseKind(setting) === "postgres") {
    const postgres = await openPostgres(setting, { poolSize: POOL_SIZE, migrate: false });
    try {
      return await use({ kind: "postgres", store: postgresStore(postgres.db), connection: postgres });
    } finally {
      await postgres.close();
    }
  }
  const database = openDatabase(setting, { migrate: false });
  try {
    return await use({ kind: "sqlite", store: storeOn(database.db), connection: database });
  } finally {
    // Not database.close(): its TRUNCATE checkpoint would stall the service's writers (as in the CLI).
    database.sqlite.close();
  }
}
