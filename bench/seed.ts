// Fills the service's SQLite file with stored leads while the server is stopped, so the accept
// path can be measured against a realistically large database. Every row looks like one the
// service itself writes for an accepted lead: a `leads` row, its `phone_claims` row and its
// `held` callback. With `decided`, the rows look like the worker's output instead: the lead is
// `accepted` and its callback `pending`, due now, with the payload the worker would have built.
import { Database } from "bun:sqlite";
import { flushToDisk } from "./disk.ts";
import { callbackMessageId, callbackPayload } from "../src/callbacks/payload.ts";
import { leadKey, phoneClaimKey } from "../src/db/schema.ts";
import { PHONE_SLOT, validLeadTemplate } from "./bodies.ts";
import { e164Phone, formattedPhone } from "./phones.mjs";

const BATCH = 50_000;

const LEAD_COLUMNS = [
  "id_key",
  "id",
  "vendor_id",
  "phone_e164",
  "customer_name",
  "state",
  "city",
  "zip",
  "street",
  "certificate_url",
  "dm_name",
  "utility",
  "call_back_url",
  "mailing_street",
  "mailing_city",
  "mailing_zip",
  "mailing_state",
  "vendor_campaign_name",
  "email",
  "extra_data",
  "raw_request",
  "status",
  "created_at",
  "decide_after",
  "decided_at",
  "rejection_reason",
  "operator_decision",
  "operator_reason",
  "locked_until",
  "claim_token",
];
const CALLBACK_COLUMNS = ["id", "lead_key", "lead_id", "vendor_id", "url", "status", "payload", "attempt_count", "next_attempt_at", "created_at", "updated_at"];
const HOLD_MS = 3_600_000; // the bench server's --hold-period

export interface DecidedSeed {
  /** Where every callback goes (the mock receiver). */
  callbackUrl: string;
}

const insertSql = (table: string, columns: string[]) => `INSERT INTO ${table} (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`;

/**
 * Inserts `count` leads whose phones are indexes phoneStart … phoneStart+count-1 of phones.mjs.
 * Returns the time it took in milliseconds.
 */
export function seedLeads(databasePath: string, count: number, phoneStart: number, decided?: DecidedSeed): number {
  const started = performance.now();
  const sqlite = new Database(databasePath);
  try {
    sqlite.run("PRAGMA journal_mode = WAL"); // as the server runs it
    sqlite.run("PRAGMA synchronous = OFF"); // seeding only: a crash here just means re-running the bench
    sqlite.run("PRAGMA cache_size = -262144");
    const vendor = sqlite.query("SELECT id FROM vendors WHERE name = 'bench'").get() as { id: string } | null;
    if (!vendor) throw new Error("vendor 'bench' not found: start the server once before seeding");

    const lead = sqlite.prepare(insertSql("leads", LEAD_COLUMNS));
    const claim = sqlite.prepare(insertSql("phone_claims", ["phone_number", "lead_id", "claimed_at"]));
    const callback = sqlite.prepare(insertSql("callbacks", CALLBACK_COLUMNS));
    const [rawBefore, rawAfter] = validLeadTemplate.split(PHONE_SLOT) as [string, string];
    // Created over the last `count` milliseconds and decided an hour later (the bench's hold period),
    // so every seeded lead is still pending and nothing starts deciding them mid-run. Decided leads
    // were created two hours earlier: their hold is over and their callbacks are due.
    const firstCreatedAt = Date.now() - count - (decided ? 2 * HOLD_MS : 0);

    const insertBatch = sqlite.transaction((from: number, to: number) => {
      for (let i = from; i < to; i++) {
        const createdAt = firstCreatedAt + i;
        const id = Bun.randomUUIDv7("hex", createdAt);
        const key = leadKey(id);
        const phone = e164Phone(phoneStart + i);
        const url = decided?.callbackUrl ?? "https://vendor.example.com/callback";
        const decidedAt = decided ? createdAt + HOLD_MS : null;
        lead.run(
          key,
          id,
          vendor.id,
          phone,
          "Jane Doe",
          "NY",
          "New York",
          "10001",
          "1 Main St",
          "https://cert.example.com/abc",
          "Jane Doe",
          "ConEd",
          url,
          "1 Main St",
          "New York",
          "10001",
          "NY",
          "bench",
          "jane@example.com",
          null,
          rawBefore + formattedPhone(phoneStart + i) + rawAfter,
          decided ? "accepted" : "pending",
          createdAt,
          createdAt + HOLD_MS,
          decidedAt,
          null,
          null,
          null,
          null,
          null,
        );
        // An accepted lead's claim is renewed at its decision, as the worker does.
        claim.run(phoneClaimKey(phone), id, decidedAt ?? createdAt);
        const callbackId = callbackMessageId(id);
        if (decidedAt === null) callback.run(callbackId, key, id, vendor.id, url, "held", null, 0, null, createdAt, createdAt);
        else {
          const payload = callbackPayload({ id, phoneE164: phone, vendorCampaignName: "bench" }, { status: "accepted" }, decidedAt);
          callback.run(callbackId, key, id, vendor.id, url, "pending", payload, 0, decidedAt, createdAt, decidedAt);
        }
      }
    });
    for (let from = 0; from < count; from += BATCH) insertBatch(from, Math.min(count, from + BATCH));
    // Leave one tidy file, as the server does on shutdown, so its restart does not replay a huge WAL.
    sqlite.run("PRAGMA wal_checkpoint(TRUNCATE)");
  } finally {
    sqlite.close();
  }
  // synchronous=OFF left the file in the page cache only.
  flushToDisk(databasePath);
  return performance.now() - started;
}
