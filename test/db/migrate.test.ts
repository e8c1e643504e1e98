// Migrations run in order on a database that already holds data, and keep it.
import { expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { applyMigrations, isMigrated, MIGRATIONS } from "../../src/db/migrate.ts";
import { drizzle } from "drizzle-orm/bun-sqlite";
import type { Db } from "../../src/db/client.ts";
import * as schema from "../../src/db/schema.ts";
import { leadKey } from "../../src/db/schema.ts";
import { sqliteTables } from "../../src/store/sqlite.ts";

const CALLBACK_COLUMNS =
  "id, lead_id, vendor_id, url, status, payload, attempt_count, next_attempt_at, locked_until, claim_token, last_error, created_at, updated_at, delivered_at";

const journal = (await import("../../drizzle/meta/_journal.json")).default as { entries: { tag: string }[] };

/** The migrations (MIGRATIONS follows the journal) before the one tagged `tag`, or up to and including it. */
function migrationsBefore(tag: string, including = false) {
  const index = journal.entries.findIndex((entry) => entry.tag === tag);
  expect(index).toBeGreaterThan(0);
  return MIGRATIONS.slice(0, including ? index + 1 : index);
}

/** A database migrated up to, not including, the migration tagged `tag`. */
function databaseBefore(tag: string): Database {
  const sqlite = new Database(":memory:", { strict: true });
  applyMigrations(sqlite, migrationsBefore(tag));
  return sqlite;
}

const insertVendor = (sqlite: Database) =>
  sqlite.run("INSERT INTO vendors (id, name, password_hash, signing_secret, enabled, created_at, updated_at) VALUES ('v1', 'a', 'h', 's', 1, 0, 0)");

const insertLeadBefore0005 = (sqlite: Database, id: string) =>
  sqlite.run(
    `INSERT INTO leads (id, vendor_id, phone_e164, customer_name, state, city, zip, street, dm_name, utility, mailing_street, mailing_city, mailing_zip, mailing_state, vendor_campaign_name, email, raw_request, status, created_at, decide_after)
     VALUES (?1, 'v1', '+12125550100', 'n', 'NY', 'c', '10001', 's', 'd', 'u', 's', 'c', '10001', 'NY', 'v', 'e@x.io', '{}', 'pending', 0, 0)`,
    [id],
  );

test("0002 re-keys callbacks by lead: every row comes through unchanged, one callback per lead is enforced, and the due index is partial (pending rows only)", () => {
  const sqlite = databaseBefore("0002_callbacks_keyed_by_lead");
  insertVendor(sqlite);
  const statuses = ["held", "pending", "delivered", "dead"];
  statuses.forEach((status, i) => {
    insertLeadBefore0005(sqlite, `lead-${i}`);
    sqlite.run(`INSERT INTO callbacks (${CALLBACK_COLUMNS}) VALUES (?1, ?2, 'v1', 'https://x.io/cb', ?3, ?4, ?5, ?6, NULL, NULL, ?7, 10, 20, ?8)`, [
      `msg_${i}`,
      `lead-${i}`,
      status,
      status === "held" ? null : "{}",
      i,
      status === "pending" ? 100 + i : null,
      status === "dead" ? "HTTP 500" : null,
      status === "delivered" ? 30 : null,
    ]);
  });
  const before = sqlite.query(`SELECT ${CALLBACK_COLUMNS} FROM callbacks ORDER BY id`).all();

  expect(applyMigrations(sqlite, migrationsBefore("0002_callbacks_keyed_by_lead", true))).toBe(1);
  expect(sqlite.query(`SELECT ${CALLBACK_COLUMNS} FROM callbacks ORDER BY id`).all()).toEqual(before);
  expect(() =>
    sqlite.run(`INSERT INTO callbacks (${CALLBACK_COLUMNS}) VALUES ('msg_x', 'lead-0', 'v1', 'u', 'held', NULL, 0, NULL, NULL, NULL, NULL, 0, 0, NULL)`),
  ).toThrow(/UNIQUE/);
  const dueIndex = sqlite.query("SELECT sql FROM sqlite_master WHERE name = 'callbacks_due'").get() as { sql: string };
  expect(dueIndex.sql).toContain(`WHERE "callbacks"."status" = 'pending'`);
  sqlite.close();
});

test("0003 keys phone claims by the number's digits: every claim comes through, and the key stays unique", () => {
  const sqlite = databaseBefore("0003_phone_claims_integer_key");
  sqlite.run("INSERT INTO phone_claims (phone_e164, lead_id, claimed_at) VALUES ('+12125550123', 'lead-a', 10), ('+18005550199', 'lead-b', 20)");
  applyMigrations(sqlite, migrationsBefore("0003_phone_claims_integer_key", true));
  expect(sqlite.query("SELECT phone_number, lead_id, claimed_at FROM phone_claims ORDER BY phone_number").all()).toEqual([
    { phone_number: 12125550123, lead_id: "lead-a", claimed_at: 10 },
    { phone_number: 18005550199, lead_id: "lead-b", claimed_at: 20 },
  ]);
  expect(() => sqlite.run("INSERT INTO phone_claims (phone_number, lead_id, claimed_at) VALUES (12125550123, 'lead-c', 30)")).toThrow(/UNIQUE/);
  sqlite.close();
});

test("0022 drops the phone claims: each number's claim is its latest lead, the one the table named (a later lead took it over, a rejected lead dropped it)", () => {
  const sqlite = databaseBefore("0022_phone_claims_as_leads");
  insertVendor(sqlite);
  const insert = (id: string, phone: string, status: string, createdAt: number) =>
    sqlite.run(
      `INSERT INTO leads (id_key, id, vendor_id, phone_e164, customer_name, state, city, zip, street, dm_name, utility, mailing_street, mailing_city, mailing_zip, mailing_state, vendor_campaign_name, email, raw_request, status, created_at, decide_after)
       VALUES (?1, ?2, 'v1', ?3, 'n', 'NY', 'c', '10001', 's', 'd', 'u', 's', 'c', '10001', 'NY', 'v', 'e@x.io', '{}', ?4, ?5, 0)`,
      [leadKey(id), id, phone, status, createdAt],
    );
  const [old, taker, rejected] = [Bun.randomUUIDv7(), Bun.randomUUIDv7(), Bun.randomUUIDv7()];
  insert(old, "+12125550123", "accepted", 10);
  insert(taker, "+12125550123", "pending", 20);
  insert(rejected, "+18005550199", "rejected", 30);
  sqlite.run("INSERT INTO phone_claims (phone_number, lead_id, claimed_at) VALUES (12125550123, ?1, 20)", [taker]);
  applyMigrations(sqlite);
  expect(sqlite.query("SELECT name FROM sqlite_master WHERE name = 'phone_claims'").all()).toEqual([]);
  const claims = sqliteTables(drizzle({ client: sqlite, schema }) as Db).phoneClaims;
  expect([claims.holderOf("+12125550123"), claims.holderOf("+18005550199")]).toEqual([taker, null]);
  expect([claims.isHeldSince("+12125550123", 19), claims.isHeldSince("+12125550123", 20)]).toEqual([true, false]);
  sqlite.close();
});

test("0023 folds the campaigns of the leads still pending with SQL's lower() (ASCII alone), and leaves the decided ones' unset", () => {
  const sqlite = databaseBefore("0023_leads_campaign_folded");
  insertVendor(sqlite);
  const insert = (campaign: string, status: string) => {
    const id = Bun.randomUUIDv7();
    sqlite.run(
      `INSERT INTO leads (id_key, id, vendor_id, phone_e164, customer_name, state, city, zip, street, dm_name, utility, mailing_street, mailing_city, mailing_zip, mailing_state, vendor_campaign_name, email, raw_request, status, created_at, decide_after)
       VALUES (?1, ?2, 'v1', '+12125550100', 'n', 'NY', 'c', '10001', 's', 'd', 'u', 's', 'c', '10001', 'NY', ?3, 'e@x.io', '{}', ?4, 0, 0)`,
      [leadKey(id), id, campaign, status],
    );
    return id;
  };
  const ids = [insert("Solar-Q4", "pending"), insert("ÉTÉ-Solar", "pending"), insert("Wind", "accepted")];
  applyMigrations(sqlite);
  const folded = ids.map((id) => sqlite.query("SELECT campaign_folded FROM leads WHERE id = ?").get(id));
  expect(folded).toEqual([{ campaign_folded: "solar-q4" }, { campaign_folded: "ÉtÉ-solar" }, { campaign_folded: null }]);
  sqlite.close();
});

test("0005 keys leads and callbacks by leadKey(id): every row comes through unchanged under the key leadKey gives its id, and keys stay unique", () => {
  const sqlite = databaseBefore("0005_leads_keyed_by_id_key");
  insertVendor(sqlite);
  // Bun's ids as intake made them (several in one millisecond), and one past the sign bit.
  const ids = [...Array.from({ length: 50 }, () => Bun.randomUUIDv7()), "f1a2b3c4-d5e6-7f80-9abc-def012345678"];
  ids.forEach((id, i) => {
    insertLeadBefore0005(sqlite, id);
    sqlite.run(`INSERT INTO callbacks (${CALLBACK_COLUMNS}) VALUES (?1, ?2, 'v1', 'https://x.io/cb', 'held', NULL, 0, NULL, NULL, NULL, NULL, ?3, ?3, NULL)`, [
      `msg_${i}`,
      id,
      i,
    ]);
  });
  const leadsBefore = sqlite.query("SELECT * FROM leads ORDER BY id").all();
  const callbacksBefore = sqlite.query(`SELECT ${CALLBACK_COLUMNS} FROM callbacks ORDER BY id`).all();

  applyMigrations(sqlite);
  expect(isMigrated(sqlite)).toBe(true);
  expect(sqlite.query("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
  const keyed = sqlite.query<{ id: string }, []>("SELECT id FROM leads ORDER BY id").all();
  expect(keyed.map(({ id }) => id)).toEqual([...ids].sort());
  for (const id of ids) {
    expect(sqlite.query("SELECT count(*) AS n FROM leads WHERE id_key = ? AND id = ?").get(leadKey(id), id)).toEqual({ n: 1 });
    expect(sqlite.query("SELECT count(*) AS n FROM callbacks WHERE lead_key = ? AND lead_id = ?").get(leadKey(id), id)).toEqual({ n: 1 });
  }
  expect(
    sqlite
      .query("SELECT * FROM leads ORDER BY id")
      .all()
      .map(({ id_key: _, facts_version: __, check_answers: ___, test: ____, campaign_folded: _____, ...row }: any) => row), // facts_version, check_answers, test, campaign_folded: later migrations' (0012, 0015, 0020, 0023)
  ).toEqual(leadsBefore);
  // Every lead stored before test mode (0020) is a real one.
  expect(sqlite.query("SELECT DISTINCT test FROM leads").all()).toEqual([{ test: 0 }]);
  expect(sqlite.query(`SELECT ${CALLBACK_COLUMNS} FROM callbacks ORDER BY id`).all()).toEqual(callbacksBefore);
  expect(() => sqlite.run("INSERT INTO leads SELECT * FROM leads WHERE id = ?", [ids[0]!])).toThrow(/UNIQUE/);
  expect(() =>
    sqlite.run("INSERT INTO callbacks (lead_key, id, lead_id, vendor_id, url, status, created_at, updated_at) VALUES (?1, 'x', 'y', 'v1', 'u', 'held', 0, 0)", [
      leadKey(ids[0]!),
    ]),
  ).toThrow(/UNIQUE/);
  sqlite.close();
});

test("0007 keeps every attempt counted: a callback replayed before it (its count reset) counts its recorded attempts again, and its retry schedule stays where it was", () => {
  const sqlite = databaseBefore("0007_callbacks_attempts_before_replay");
  insertVendor(sqlite);
  // [recorded attempts, attempt_count]: replayed after 3 and tried once since; never replayed; held.
  const callbacks = [
    [4, 1],
    [2, 2],
    [0, 0],
  ];
  callbacks.forEach(([recorded, count], i) => {
    const id = Bun.randomUUIDv7();
    sqlite.run(
      `INSERT INTO callbacks (lead_key, id, lead_id, vendor_id, url, status, attempt_count, created_at, updated_at) VALUES (?1, ?2, ?3, 'v1', 'u', 'pending', ?4, 0, 0)`,
      [leadKey(id), `msg_${i}`, id, count!],
    );
    for (let n = 1; n <= recorded!; n++)
      sqlite.run("INSERT INTO callback_attempts (callback_id, attempt_no, started_at, duration_ms) VALUES (?1, ?2, 0, 1)", [`msg_${i}`, n]);
  });

  applyMigrations(sqlite);
  expect(sqlite.query("SELECT id, attempt_count, attempts_before_replay FROM callbacks ORDER BY id").all()).toEqual([
    { id: "msg_0", attempt_count: 4, attempts_before_replay: 3 },
    { id: "msg_1", attempt_count: 2, attempts_before_replay: 0 },
    { id: "msg_2", attempt_count: 0, attempts_before_replay: 0 },
  ]);
  sqlite.close();
});
