// bench:steady's database reader: one query text, the same numbers from SQLite and PostgreSQL.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { countWhere, num, openBenchDb } from "../../bench/steady-db.ts";
import { usePgDatabase } from "../helpers/store-backends.ts";

const pg = usePgDatabase(1);
const ROWS = [
  [1, 10, null],
  [2, 20, 25],
  [3, 30, 90],
];
let dir: string;
let sqlitePath: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "steady-db-"));
  sqlitePath = join(dir, "bench.db");
  const sqlite = new Database(sqlitePath);
  sqlite.run("CREATE TABLE t (id INTEGER PRIMARY KEY, due_at INTEGER NOT NULL, done_at INTEGER)");
  for (const row of ROWS) sqlite.run("INSERT INTO t VALUES (?, ?, ?)", row as never);
  sqlite.close();
  await pg.handle.sql.unsafe("CREATE TABLE t (id bigint PRIMARY KEY, due_at bigint NOT NULL, done_at bigint)");
  for (const row of ROWS) await pg.handle.sql.unsafe("INSERT INTO t VALUES ($1, $2, $3)", row);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const QUERY = `SELECT ${num("count(*)")} AS n, ${countWhere("done_at IS NULL")} AS unfinished, ${countWhere("done_at - due_at > $1")} AS late, ${num("max(done_at - due_at)")} AS "maxLag" FROM t WHERE 1 = 1`;

test("counts, conditional counts, a parameter and a max read as numbers on both databases", async () => {
  for (const location of [sqlitePath, pg.url]) {
    const db = openBenchDb(location);
    expect(await db.row(QUERY, [10])).toEqual({ n: 3, unfinished: 1, late: 1, maxLag: 60 });
    expect(await db.row(`SELECT ${num("min(due_at)")} AS oldest FROM t WHERE due_at > $1`, [100])).toEqual({ oldest: null });
    await db.close();
  }
});
