import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { eq, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/bun-sqlite";
import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { prepareWrite } from "../../src/db/prepared.ts";

const items = sqliteTable("items", {
  id: text("id").primaryKey(),
  count: integer("count").notNull(),
  enabled: integer("enabled", { mode: "boolean" }).notNull(),
});

function setUp() {
  const sqlite = new Database(":memory:", { strict: true });
  sqlite.run("CREATE TABLE items (id TEXT PRIMARY KEY, count INTEGER NOT NULL, enabled INTEGER NOT NULL)");
  return { sqlite, db: drizzle({ client: sqlite }) };
}

const p = sql.placeholder;

test("binds each placeholder by name, in whatever order the SQL needs them", () => {
  const { sqlite, db } = setUp();
  const insert = prepareWrite<{ id: string; count: number; enabled: boolean }>(
    sqlite,
    db.insert(items).values({ enabled: p("enabled"), count: p("count"), id: p("id") }),
  );
  expect(insert.run({ id: "a", count: 3, enabled: true }).changes).toBe(1);
  expect(insert.run({ id: "b", count: 5, enabled: false }).changes).toBe(1);
  expect(sqlite.query("SELECT id, count, enabled FROM items ORDER BY id").all()).toEqual([
    { id: "a", count: 3, enabled: 1 },
    { id: "b", count: 5, enabled: 0 },
  ]);
});

test("keeps literal values of the query and applies column encoders to placeholders", () => {
  const { sqlite, db } = setUp();
  sqlite.run("INSERT INTO items VALUES ('a', 1, 0), ('b', 1, 0)");
  // `enabled: true` is a literal (the boolean encoder makes it 1); the id is a placeholder.
  const enable = prepareWrite<{ id: string }>(
    sqlite,
    db
      .update(items)
      .set({ enabled: true, count: sql`count + 1` })
      .where(eq(items.id, p("id"))),
  );
  expect(enable.run({ id: "b" }).changes).toBe(1);
  expect(enable.run({ id: "missing" }).changes).toBe(0);
  expect(sqlite.query("SELECT id, count, enabled FROM items ORDER BY id").all()).toEqual([
    { id: "a", count: 1, enabled: 0 },
    { id: "b", count: 2, enabled: 1 },
  ]);
});

test("a placeholder for a column value goes through that column's encoder", () => {
  const sqlite = new Database(":memory:", { strict: true });
  sqlite.run("CREATE TABLE docs (id TEXT PRIMARY KEY, meta TEXT NOT NULL)");
  const docs = sqliteTable("docs", { id: text("id").primaryKey(), meta: text("meta", { mode: "json" }).notNull() });
  const db = drizzle({ client: sqlite });
  const insert = prepareWrite<{ id: string; meta: unknown }>(sqlite, db.insert(docs).values({ id: p("id"), meta: p("meta") }));
  insert.run({ id: "a", meta: { k: [1, "two"] } });
  expect(sqlite.query("SELECT id, meta FROM docs").all()).toEqual([{ id: "a", meta: '{"k":[1,"two"]}' }]);
});
