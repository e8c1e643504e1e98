// Fills the service's SQLite file with stored leads while the server is stopped, so the accept
// path can be measured against a realistically large database. Every row looks like one the
// service itself writes for an accepted lead on SQLite: a `leads` row (also its number's claim:
// store/phone-claims/sqlite.ts) and its `held` callback. With `decided`, the rows look like the worker's output instead: the lead is
// `accepted` and its callback `pending`, due now, with the payload the worker would have built.
import { Database } from "bun:sqlite";
import { drizzle } from "drizzle-orm/bun-sqlite";
import { callbackMessageId, callbackPayload } from "../src/callbacks/payload.ts";
import { prepareWrite } from "../src/db/prepared.ts";
import { callbacks, leads } from "../src/db/schema.ts";
import { validateLead } from "../src/intake/validate.ts";
import { everyColumn, heldCallbackRow, pendingLeadRow } from "../src/store/rows.ts";
import { PHONE_SLOT, validLead, validLeadTemplate } from "./bodies.ts";
import { flushToDisk } from "./disk.ts";
import { e164Phone, formattedPhone } from "./phones.mjs";

const BATCH = 50_000;

const HOLD_MS = 3_600_000; // the bench server's --hold-period

export interface DecidedSeed {
  /** Where every callback goes (the mock receiver). */
  callbackUrl: string;
}

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

    // The rows the service itself writes (store/rows.ts), through the same prepared full-row inserts.
    const db = drizzle(sqlite);
    const lead = prepareWrite<Record<string, unknown>>(sqlite, db.insert(leads).values(everyColumn(leads) as never));
    const callback = prepareWrite<Record<string, unknown>>(sqlite, db.insert(callbacks).values(everyColumn(callbacks) as never));
    const [rawBefore, rawAfter] = validLeadTemplate.split(PHONE_SLOT) as [string, string];
    // The bench's lead as the service validates and stores it; each row gets its own number and URL.
    const checked = validateLead(validLead(formattedPhone(phoneStart)), { allowPrivateCallbacks: true });
    if (!checked.ok) throw new Error(`the bench's lead is not valid: ${checked.errors.join("; ")}`);
    // Created over the last `count` milliseconds and decided an hour later (the bench's hold period),
    // so every seeded lead is still pending and nothing starts deciding them mid-run. Decided leads
    // were created two hours earlier: their hold is over and their callbacks are due.
    const firstCreatedAt = Date.now() - count - (decided ? 2 * HOLD_MS : 0);

    const insertBatch = sqlite.transaction((from: number, to: number) => {
      for (let i = from; i < to; i++) {
        const createdAt = firstCreatedAt + i;
        const id = Bun.randomUUIDv7("hex", createdAt);
        const phone = e164Phone(phoneStart + i);
        const url = decided?.callbackUrl ?? checked.value.callBackUrl!;
        const decidedAt = decided ? createdAt + HOLD_MS : null;
        const fields = { ...checked.value, phoneE164: phone, callBackUrl: url };
        const newLead = {
          id,
          vendorId: vendor.id,
          rawRequest: rawBefore + formattedPhone(phoneStart + i) + rawAfter,
          createdAt,
          decideAfter: createdAt + HOLD_MS,
        };
        const pending = pendingLeadRow(fields, newLead);
        lead.run(decidedAt === null ? pending : { ...pending, status: "accepted", decidedAt });
        const held = heldCallbackRow({ id: callbackMessageId(id), leadId: id, vendorId: vendor.id, url }, createdAt);
        if (decidedAt === null) callback.run(held);
        else {
          const payload = callbackPayload({ id, phoneE164: phone, vendorCampaignName: fields.vendorCampaignName }, { status: "accepted" }, decidedAt);
          callback.run({ ...held, status: "pending", payload, nextAttemptAt: decidedAt, updatedAt: decidedAt });
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
