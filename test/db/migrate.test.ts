// Migrations run in order on a database that already holds data, and keep it.
import { expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { applyMigrations, isMigrated, MIGRATIONS } from "../../src/db/migrate.ts";

const CALLBACK_COLUMNS = "id, lead_id, vendor_id, url, status, payload, attempt_count, next_attempt_at, locked_until, claim_token, last_error, created_at, updated_at, delivered_at";

const journal = (await import("../../drizzle/meta/_journal.json")).default as { entries: { tag: string }[] };

/** A database migrated up to, not including, the migration tagged `tag` (MIGRATIONS follows the journal). */
function databaseBefore(tag: string): Database {
  const index = journal.entries.findIndex((entry) => entry.tag === tag);
  expect(index).toBeGreaterThan(0);
  const sqlite = new Database(":memory:", { strict: true });
  applyMigrations(sqlite, MIGRATIONS.slice(0, index));
  return sqlite;
}

test("0002 re-keys callbacks by lead: every row comes through unchanged, one callback per lead is enforced, and the due index is partial (pending rows only)", () => {
  const sqlite = databaseBefore("0002_callbacks_keyed_by_lead");
  sqlite.run("INSERT INTO vendors (id, name, password_hash, signing_secret, enabled, created_at, updated_at) VALUES ('v1', 'a', 'h', 's', 1, 0, 0)");
  const statuses = ["held", "pending", "delivered", "dead"];
  statuses.forEach((status, i) => {
    sqlite.run(
      `INSERT INTO leads (id, vendor_id, phone_e164, customer_name, state, city, zip, street, dm_name, utility, mailing_street, mailing_city, mailing_zip, mailing_state, vendor_campaign_name, email, raw_request, status, created_at, decide_after)
       VALUES (?1, 'v1', '+12125550100', 'n', 'NY', 'c', '10001', 's', 'd', 'u', 's', 'c', '10001', 'NY', 'v', 'e@x.io', '{}', 'pending', 0, 0)`,
      [`lead-${i}`],
    );
    sqlite.run(
      `INSERT INTO callbacks (${CALLBACK_COLUMNS}) VALUES (?1, ?2, 'v1', 'https://x.io/cb', ?3, ?4, ?5, ?6, NULL, NULL, ?7, 10, 20, ?8)`,
      [`msg_${i}`, `lead-${i}`, status, status === "held" ? null : "{}", i, status === "pending" ? 100 + i : null, status === "dead" ? "HTTP 500" : null, status === "delivered" ? 30 : null],
    );
  });
  const before = sqlite.query(`SELECT ${CALLBACK_COLUMNS} FROM callbacks ORDER BY id`).all();

  expect(applyMigrations(sqlite)).toBeGreaterThan(0);
  expect(isMigrated(sqlite)).toBe(true);
  expect(sqlite.query(`SELECT ${CALLBACK_COLUMNS} FROM callbacks ORDER BY id`).all()).toEqual(before);
  expect(() => sqlite.run(`INSERT INTO callbacks (${CALLBACK_COLUMNS}) VALUES ('msg_x', 'lead-0', 'v1', 'u', 'held', NULL, 0, NULL, NULL, NULL, NULL, 0, 0, NULL)`)).toThrow(/UNIQUE/);
  const dueIndex = sqlite.query("SELECT sql FROM sqlite_master WHERE name = 'callbacks_due'").get() as { sql: string };
  expect(dueIndex.sql).toContain(`WHERE "callbacks"."status" = 'pending'`);
  sqlite.close();
});

test("0003 keys phone claims by the number's digits: every claim comes through, and the key stays unique", () => {
  const sqlite = databaseBefore("0003_phone_claims_integer_key");
  sqlite.run("INSERT INTO phone_claims (phone_e164, lead_id, claimed_at) VALUES ('+12125550123', 'lead-a', 10), ('+18005550199', 'lead-b', 20)");
  applyMigrations(sqlite);
  expect(sqlite.query("SELECT phone_number, lead_id, claimed_at FROM phone_claims ORDER BY phone_number").all()).toEqual([
    { phone_number: 12125550123, lead_id: "lead-a", claimed_at: 10 },
    { phone_number: 18005550199, lead_id: "lead-b", claimed_at: 20 },
  ]);
  expect(() => sqlite.run("INSERT INTO phone_claims (phone_number, lead_id, claimed_at) VALUES (12125550123, 'lead-c', 30)")).toThrow(/UNIQUE/);
  sqlite.close();
});
