// The SQLite tables of a test database, their operations answered at once (SQLite never returns a promise).
import type { Db } from "../../src/db/client.ts";
import { op, runNow, type Op } from "../../src/db/script.ts";
import { sqliteTables } from "../../src/store/sqlite.ts";

/** A table operation's answer on SQLite: the value itself. */
export const now = <T>(answer: Op<T>): T => runNow(op(answer));

export const tablesOf = (db: Db) => sqliteTables(db);
