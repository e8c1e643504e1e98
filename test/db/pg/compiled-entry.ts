// Built into a binary by compiled.test.ts: opens (and so migrates) the PostgreSQL database whose
// URL is its argument, then prints whether every embedded migration is applied.
import { openPostgres } from "../../../src/db/pg/client.ts";
import { isMigrated, PG_MIGRATIONS } from "../../../src/db/pg/migrate.ts";

const handle = await openPostgres(process.argv[2]!, { poolSize: 2 });
console.log(JSON.stringify({ migrated: await isMigrated(handle.db), embedded: PG_MIGRATIONS.length }));
await handle.close();
