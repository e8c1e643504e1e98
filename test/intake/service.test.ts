// prePing and submitLead on a real in-memory database (docs/contract.md §5 eligibility, §6 acceptance and
// idempotency), with a fixed clock that the tests move by hand.
import { storeOn } from "../../src/store/sqlite.ts";
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase, type DatabaseHandle } from "../../src/db/client.ts";
import { createGroupCommitter } from "../../src/db/group-commit.ts";
import { leadKey, vendors } from "../../src/db/schema.ts";
import { IDEMPOTENCY_TTL_MS, prePing, submitLead, type IntakeDeps, type LeadSubmission } from "../../src/intake/service.ts";
import type { Tables } from "../../src/store/index.ts";
import { groupCommittedStore, sqliteTables } from "../../src/store/sqlite.ts";
import { addSuppression } from "../../src/suppression/index.ts";
import { leadWithout, fixedLead, type Body } from "../helpers/lead.ts";

const DAY = 86_400_000;
const WINDOW = 30 * DAY;
const HOLD = 60_000;
const TEST_HOLD = 5_000;
const START = Date.UTC(2025, 0, 15, 12, 0, 0);
const PHONE = "+12125551234"; // fixedLead()'s "(212) 555-1234"

let handle: DatabaseHandle;
let now: number;
const advance = (ms: number) => void (now += ms);

function deps(overrides: Partial<IntakeDeps> = {}): IntakeDeps {
  return {
    store: groupCommittedStore(handle.db, createGroupCommitter(handle.sqlite)),
    duplicateWindowMs: WINDOW,
    holdPeriodMs: HOLD,
    testHoldPeriodMs: TEST_HOLD,
    allowPrivateCallbacks: false,
    clock: () => now,
    ...overrides,
  };
}

function addVendor(id: string, on: DatabaseHandle = handle) {
  on.db
    .insert(vendors)
    .values({ id, name: id, passwordHash: "not-a-real-hash", signingSecret: "whsec_test", enabled: true, createdAt: START, updatedAt: START })
    .run();
}

function submission(body: Body, options: { key?: string; vendorId?: string; rawBody?: string } = {}): LeadSubmission {
  return { vendorId: options.vendorId ?? "vendor-a", body, rawBody: options.rawBody ?? JSON.stringify(body), idempotencyKey: options.key ?? null };
}

const rows = (sql: string, ...params: (string | number | bigint)[]) => handle.sqlite.query(sql).all(...params) as Record<string, unknown>[];
const count = (table: string) => (handle.sqlite.query(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
const suppress = (phone: string) => addSuppression(storeOn(handle.db), phone, "test", "test", now);
/** A lead rejected, as the final-result code leaves it: its claim stops blocking the number. */
const releaseClaim = (leadId: string) => handle.sqlite.run("UPDATE leads SET status = 'rejected' WHERE id = ?", [leadId]);
/** The number's claim as the duplicate rule reads it (store/phone-claims/sqlite.ts: its latest lead, unless rejected). */
function claims(phone = PHONE) {
  const holder = sqliteTables(handle.db).phoneClaims.holderOf(phone) as string | null;
  return holder === null ? [] : rows("SELECT id AS lead_id, created_at AS claimed_at FROM leads WHERE id = ?", holder);
}

async function accept(d: IntakeDeps, sub: LeadSubmission): Promise<string> {
  const outcome = await submitLead(d, sub);
  if (outcome.kind !== "accepted") throw new Error(`expected accepted, got ${JSON.stringify(outcome)}`);
  return outcome.leadId;
}

beforeEach(() => {
  handle = openDatabase(":memory:");
  now = START;
  addVendor("vendor-a");
  addVendor("vendor-b");
});

afterEach(() => handle.close());

describe("prePing", () => {
  test("a fresh valid number is eligible", () => {
    expect(prePing(deps(), { phone_number: "212-555-1234" })).toEqual({ kind: "eligible" });
  });

  test("an invalid body → the validation errors", () => {
    expect(prePing(deps(), { phone_number: "call me" })).toEqual({ kind: "invalid", errors: ["Invalid Characters: call me"] });
    expect(prePing(deps(), {})).toEqual({ kind: "invalid", errors: ["Missing Field: phone_number"] });
  });

  test("a suppressed number is blocked, whatever its formatting", () => {
    suppress("212.555.1234");
    for (const phone_number of ["2125551234", "(212) 555-1234", "+1 212.555.1234"]) {
      expect(prePing(deps(), { phone_number })).toEqual({ kind: "blocked" });
    }
    expect(prePing(deps(), { phone_number: "212-555-9876" })).toEqual({ kind: "eligible" });
  });

  test("a number with a lead accepted within the window is blocked; past the window it is eligible", async () => {
    const d = deps();
    await accept(d, submission(fixedLead()));
    expect(prePing(d, { phone_number: "2125551234" })).toEqual({ kind: "blocked" });
    advance(WINDOW - 1);
    expect(prePing(d, { phone_number: "2125551234" })).toEqual({ kind: "blocked" });
    advance(2);
    expect(prePing(d, { phone_number: "2125551234" })).toEqual({ kind: "eligible" });
  });

  test("a rejected lead's number is eligible again", async () => {
    const d = deps();
    const leadId = await accept(d, submission(fixedLead()));
    releaseClaim(leadId);
    expect(prePing(d, { phone_number: "2125551234" })).toEqual({ kind: "eligible" });
  });
});

describe("submitLead: validation", () => {
  test("an invalid lead → its errors, and nothing is written", async () => {
    const outcome = await submitLead(deps(), submission(leadWithout("customer_name", "email")));
    expect(outcome).toEqual({ kind: "invalid", errors: ["Missing Field: customer_name", "Missing Field: email"] });
    expect([count("leads"), claims().length, count("callbacks")]).toEqual([0, 0, 0]);
  });

  test.each(["", "has space", "x".repeat(256), "tab\tkey", "ключ"])("Idempotency-Key %p is refused as invalid", async (key) => {
    const outcome = await submitLead(deps(), submission(fixedLead(), { key }));
    expect(outcome).toEqual({ kind: "invalid", errors: ["Invalid Idempotency-Key: must be 1-255 visible ASCII characters"] });
    expect(count("leads")).toBe(0);
  });

  test("a bad Idempotency-Key is listed after the field errors", async () => {
    const outcome = await submitLead(deps(), submission(leadWithout("city"), { key: "bad key" }));
    expect(outcome).toEqual({ kind: "invalid", errors: ["Missing Field: city", "Invalid Idempotency-Key: must be 1-255 visible ASCII characters"] });
  });
});

describe("submitLead: call_back_url to a private address", () => {
  const local = fixedLead({ call_back_url: "http://127.0.0.1:9090/cb" });

  test("refused unless private callbacks are allowed", async () => {
    expect(await submitLead(deps(), submission(local))).toEqual({ kind: "invalid", errors: ["Invalid Callback URL: http://127.0.0.1:9090/cb"] });
    expect(count("leads")).toBe(0);
    expect(await submitLead(deps({ allowPrivateCallbacks: true }), submission(local))).toMatchObject({ kind: "accepted" });
  });
});

describe("submitLead: acceptance", () => {
  test("writes the lead (pending, normalised, raw request verbatim), its phone claim and a held callback", async () => {
    const body = fixedLead({ state: "ny", unknown_field: { kept: true } });
    const rawBody = JSON.stringify(body, null, 2);
    const leadId = await accept(deps(), submission(body, { rawBody }));

    const [lead] = rows("SELECT * FROM leads");
    expect(lead).toMatchObject({
      id: leadId,
      vendor_id: "vendor-a",
      phone_e164: PHONE,
      state: "NY",
      call_back_url: "https://vendor.example.com/callback",
      extra_data: '{"source":"web"}',
      raw_request: rawBody,
      status: "pending",
      created_at: START,
      decide_after: START + HOLD,
      decided_at: null,
    });
    expect(claims()).toEqual([{ lead_id: leadId, claimed_at: START }]);
    const callbacks = rows("SELECT * FROM callbacks");
    expect(callbacks).toHaveLength(1);
    expect(callbacks[0]).toMatchObject({
      // The Standard Webhooks message id: one callback per lead, so the lead's id in hex.
      id: `msg_${leadId.replaceAll("-", "")}`,
      lead_id: leadId,
      vendor_id: "vendor-a",
      url: "https://vendor.example.com/callback",
      status: "held",
      payload: null,
      attempt_count: 0,
      delivered_at: null,
    });
    // Both rows are stored under the id's key, which is how every lookup finds them.
    expect(rows("SELECT id FROM leads WHERE id_key = ?", leadKey(leadId))).toEqual([{ id: leadId }]);
    expect(rows("SELECT lead_id FROM callbacks WHERE lead_key = ?", leadKey(leadId))).toEqual([{ lead_id: leadId }]);
  });

  test("the lead id is a UUID", async () => {
    expect(await accept(deps(), submission(fixedLead()))).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  });

  test("without call_back_url the lead is stored and no callback row is written", async () => {
    await accept(deps(), submission(leadWithout("call_back_url")));
    expect(rows("SELECT call_back_url FROM leads")).toEqual([{ call_back_url: null }]);
    expect(count("callbacks")).toBe(0);
  });

  test("the lead row and the callback row are written in one transaction", async () => {
    const real = sqliteTables(handle.db);
    const failing: Tables = {
      ...real,
      callbacks: {
        ...real.callbacks,
        hold: () => {
          throw new Error("disk full");
        },
      },
    };
    const d = deps({ store: groupCommittedStore(handle.db, createGroupCommitter(handle.sqlite), failing) });
    await expect(submitLead(d, submission(fixedLead(), { key: "k1" }))).rejects.toThrow("disk full");
    expect([count("leads"), count("callbacks"), claims().length, count("idempotency_keys")]).toEqual([0, 0, 0, 0]);
    // Nothing half-written blocks the number.
    expect(await accept(deps(), submission(fixedLead(), { key: "k1" }))).toBeString();
  });

  test("a failed lead insert leaves no claim behind", async () => {
    const real = sqliteTables(handle.db);
    const failing: Tables = {
      ...real,
      leads: {
        ...real.leads,
        insertPending: () => {
          throw new Error("constraint failed");
        },
      },
    };
    await expect(
      submitLead(deps({ store: groupCommittedStore(handle.db, createGroupCommitter(handle.sqlite), failing) }), submission(fixedLead())),
    ).rejects.toThrow("constraint failed");
    expect(claims().length).toBe(0);
    expect(prePing(deps(), { phone_number: "2125551234" })).toEqual({ kind: "eligible" });
  });
});

describe("submitLead: eligibility", () => {
  test("a suppressed number is blocked and nothing is written", async () => {
    suppress(PHONE);
    expect(await submitLead(deps(), submission(fixedLead()))).toEqual({ kind: "blocked" });
    expect([count("leads"), claims().length, count("callbacks")]).toEqual([0, 0, 0]);
  });

  test("a number suppressed after its claim expired stays blocked, and the old claim is left as it was", async () => {
    const d = deps();
    const first = await accept(d, submission(fixedLead()));
    advance(WINDOW + 1);
    suppress(PHONE);
    expect(await submitLead(d, submission(fixedLead()))).toEqual({ kind: "blocked" });
    expect(claims()).toEqual([{ lead_id: first, claimed_at: START }]);
    expect(count("leads")).toBe(1);
  });

  test("a lead accepted within the window blocks the same number, in any formatting, from any vendor", async () => {
    const d = deps();
    const first = await accept(d, submission(fixedLead()));
    expect(await submitLead(d, submission(fixedLead({ phone_number: "+1 212.555.1234", customer_name: "Other Name" })))).toEqual({ kind: "blocked" });
    expect(await submitLead(d, submission(fixedLead(), { vendorId: "vendor-b" }))).toEqual({ kind: "blocked" });
    advance(WINDOW - 1);
    expect(await submitLead(d, submission(fixedLead()))).toEqual({ kind: "blocked" });
    expect(rows("SELECT id FROM leads")).toEqual([{ id: first }]);
  });

  test("outside the window the number is accepted again and the claim moves to the new lead", async () => {
    const d = deps();
    await accept(d, submission(fixedLead()));
    advance(WINDOW + 1);
    const second = await accept(d, submission(fixedLead()));
    expect(count("leads")).toBe(2);
    expect(claims()).toEqual([{ lead_id: second, claimed_at: START + WINDOW + 1 }]);
  });

  test("the window is configurable", async () => {
    const d = deps({ duplicateWindowMs: 1_000 });
    await accept(d, submission(fixedLead()));
    advance(999);
    expect(await submitLead(d, submission(fixedLead(), { vendorId: "vendor-b" }))).toEqual({ kind: "blocked" });
    advance(2);
    expect((await submitLead(d, submission(fixedLead()))).kind).toBe("accepted");
  });

  test("a rejected lead (its claim released) does not block", async () => {
    const d = deps();
    const first = await accept(d, submission(fixedLead()));
    releaseClaim(first);
    advance(1_000);
    const second = await accept(d, submission(fixedLead()));
    expect(second).not.toBe(first);
  });

  test("a prePing 'eligible' means an immediate postLead is not blocked, and vice versa", async () => {
    const d = deps();
    expect(prePing(d, { phone_number: "212 555 1234" })).toEqual({ kind: "eligible" });
    await accept(d, submission(fixedLead()));
    expect(prePing(d, { phone_number: "212 555 1234" })).toEqual({ kind: "blocked" });
  });

  test("concurrent submissions of one number: exactly one is accepted", async () => {
    const d = deps();
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        submitLead(d, submission(fixedLead({ customer_name: `Caller ${i}` }), { vendorId: i % 2 ? "vendor-a" : "vendor-b" })),
      ),
    );
    expect(outcomes.filter((o) => o.kind === "accepted")).toHaveLength(1);
    expect(outcomes.filter((o) => o.kind === "blocked")).toHaveLength(7);
    expect(count("leads")).toBe(1);
  });

  test("submissions through two connections to one database file: exactly one is accepted", async () => {
    const directory = mkdtempSync(join(tmpdir(), "intake-"));
    const first = openDatabase(join(directory, "leads.db"));
    const second = openDatabase(join(directory, "leads.db"));
    try {
      const on = (h: DatabaseHandle): IntakeDeps => ({ ...deps(), store: groupCommittedStore(h.db, createGroupCommitter(h.sqlite)) });
      addVendor("vendor-a", first);
      const [a, b] = [on(first), on(second)];
      const outcomes = await Promise.all([a, b, a, b].map((d, i) => submitLead(d, submission(fixedLead({ customer_name: `Caller ${i}` })))));
      expect(outcomes.filter((o) => o.kind === "accepted")).toHaveLength(1);
      expect(outcomes.filter((o) => o.kind === "blocked")).toHaveLength(3);
      expect((second.sqlite.query("SELECT count(*) AS n FROM leads").get() as { n: number }).n).toBe(1);
    } finally {
      first.close();
      second.close();
      rmSync(directory, { recursive: true, force: true });
    }
  });
});

describe("submitLead: idempotency", () => {
  test("same key and same body → the same lead id, replayed, one lead row", async () => {
    const d = deps();
    const body = fixedLead();
    const first = await submitLead(d, submission(body, { key: "order-1" }));
    advance(60_000);
    const second = await submitLead(d, submission(body, { key: "order-1" }));
    expect(first).toEqual({ kind: "accepted", leadId: expect.any(String), replayed: false });
    expect(second).toEqual({ kind: "accepted", leadId: (first as { leadId: string }).leadId, replayed: true });
    expect(count("leads")).toBe(1);
    expect(count("callbacks")).toBe(1);
  });

  test("a replay is answered even after the number became suppressed", async () => {
    const d = deps();
    const leadId = await accept(d, submission(fixedLead(), { key: "order-1" }));
    suppress(PHONE);
    expect(await submitLead(d, submission(fixedLead(), { key: "order-1" }))).toEqual({ kind: "accepted", leadId, replayed: true });
  });

  test("same key and a different body → idempotencyConflict, nothing new written", async () => {
    const d = deps();
    await accept(d, submission(fixedLead(), { key: "order-1" }));
    const outcome = await submitLead(d, submission(fixedLead({ customer_name: "Someone Else", phone_number: "212-555-9876" }), { key: "order-1" }));
    expect(outcome).toEqual({ kind: "idempotencyConflict" });
    expect(count("leads")).toBe(1);
    expect(claims().length).toBe(1);
  });

  test("the same key in one batch: one lead, the second answer is the replay", async () => {
    const d = deps();
    const body = fixedLead();
    const [a, b] = await Promise.all([submitLead(d, submission(body, { key: "k" })), submitLead(d, submission(body, { key: "k" }))]);
    expect(a).toEqual({ kind: "accepted", leadId: expect.any(String), replayed: false });
    expect(b).toEqual({ kind: "accepted", leadId: (a as { leadId: string }).leadId, replayed: true });
    expect(count("leads")).toBe(1);
  });

  test("keys are per vendor: another vendor's same key is a new request", async () => {
    const d = deps();
    await accept(d, submission(fixedLead(), { key: "order-1" }));
    const other = await submitLead(d, submission(fixedLead({ phone_number: "212-555-9876" }), { key: "order-1", vendorId: "vendor-b" }));
    expect(other).toEqual({ kind: "accepted", leadId: expect.any(String), replayed: false });
    expect(count("leads")).toBe(2);
  });

  test("a key is kept for 24 hours", async () => {
    const d = deps({ duplicateWindowMs: 3_600_000 });
    const leadId = await accept(d, submission(fixedLead(), { key: "order-1" }));
    advance(IDEMPOTENCY_TTL_MS - 1);
    expect(await submitLead(d, submission(fixedLead(), { key: "order-1" }))).toEqual({ kind: "accepted", leadId, replayed: true });
  });

  test("a key older than 24 hours → a new lead", async () => {
    // A 1-hour duplicate window, so the number itself is free again when the key expires.
    const d = deps({ duplicateWindowMs: 3_600_000 });
    const first = await accept(d, submission(fixedLead(), { key: "order-1" }));
    advance(IDEMPOTENCY_TTL_MS + 1);
    const second = await submitLead(d, submission(fixedLead(), { key: "order-1" }));
    expect(second).toEqual({ kind: "accepted", leadId: expect.any(String), replayed: false });
    expect((second as { leadId: string }).leadId).not.toBe(first);
    expect(count("leads")).toBe(2);
    // The key now points at the new lead.
    advance(1_000);
    expect(await submitLead(d, submission(fixedLead(), { key: "order-1" }))).toEqual({
      kind: "accepted",
      leadId: (second as { leadId: string }).leadId,
      replayed: true,
    });
  });

  test("a blocked request does not store its key: a retry is evaluated afresh", async () => {
    const d = deps();
    suppress(PHONE);
    expect(await submitLead(d, submission(fixedLead(), { key: "order-1" }))).toEqual({ kind: "blocked" });
    expect(count("idempotency_keys")).toBe(0);
  });
});

describe("submitLead: a re-post without a key (a retry after a lost answer)", () => {
  /** fixedLead() respelled: keys in reverse order, values padded, state lower-case, another phone format, extra_data's keys reordered. */
  const respelled = () => {
    const body: Body = Object.fromEntries(Object.entries(fixedLead({ extra_data: { b: [1, { y: 2, x: 1 }], a: "web" } })).reverse());
    return { ...body, customer_name: "  Jane Doe\t", state: "ny", phone_number: "+1 212.555.1234", unknown_field: "ignored" };
  };
  const original = () => fixedLead({ extra_data: { a: "web", b: [1, { x: 1, y: 2 }] } });

  test("the same vendor re-posting the same lead, respelled → the first lead's id, replayed; nothing new stored", async () => {
    const d = deps();
    const first = await accept(d, submission(original()));
    advance(60_000);
    expect(await submitLead(d, submission(respelled()))).toEqual({ kind: "accepted", leadId: first, replayed: true });
    expect([count("leads"), count("callbacks"), claims().length]).toEqual([1, 1, 1]);
    // The stored raw request stays the first one.
    expect(rows("SELECT raw_request FROM leads")).toEqual([{ raw_request: JSON.stringify(original()) }]);
  });

  test("customer_address for street is the same lead", async () => {
    const d = deps();
    const first = await accept(d, submission(fixedLead()));
    const { street, ...rest } = fixedLead();
    expect(await submitLead(d, submission({ ...rest, customer_address: street }))).toEqual({ kind: "accepted", leadId: first, replayed: true });
  });

  test("another vendor with the same lead → blocked", async () => {
    const d = deps();
    await accept(d, submission(original()));
    expect(await submitLead(d, submission(original(), { vendorId: "vendor-b" }))).toEqual({ kind: "blocked" });
    expect(count("leads")).toBe(1);
  });

  test.each([
    ["customer_name", "Jane Roe"],
    ["call_back_url", "https://vendor.example.com/other"],
    ["extra_data", { a: "web", b: [{ x: 1, y: 2 }, 1] }],
    ["certificate_url", null],
  ])("the same number with %s changed → blocked", async (field, value) => {
    const d = deps();
    await accept(d, submission(original()));
    expect(await submitLead(d, submission({ ...original(), [field]: value }))).toEqual({ kind: "blocked" });
    expect(count("leads")).toBe(1);
  });

  test("within the idempotency window it is replayed; after it, blocked by the duplicate rule", async () => {
    const d = deps();
    const first = await accept(d, submission(original()));
    advance(IDEMPOTENCY_TTL_MS - 1);
    expect(await submitLead(d, submission(original()))).toEqual({ kind: "accepted", leadId: first, replayed: true });
    advance(2);
    expect(await submitLead(d, submission(original()))).toEqual({ kind: "blocked" });
  });

  test("a lead suppressed since it was accepted is still replayed (the first answer); its final result will say rejected", async () => {
    const d = deps();
    const first = await accept(d, submission(original()));
    suppress(PHONE);
    expect(await submitLead(d, submission(original()))).toEqual({ kind: "accepted", leadId: first, replayed: true });
  });

  test("a re-post of a rejected lead (its claim released) is a new lead", async () => {
    const d = deps();
    const first = await accept(d, submission(original()));
    releaseClaim(first);
    const second = await submitLead(d, submission(original()));
    expect(second).toEqual({ kind: "accepted", leadId: expect.any(String), replayed: false });
    expect((second as { leadId: string }).leadId).not.toBe(first);
  });

  test("with an Idempotency-Key the key decides: a new key for the same lead is blocked", async () => {
    const d = deps();
    await accept(d, submission(original(), { key: "order-1" }));
    expect(await submitLead(d, submission(original(), { key: "order-2" }))).toEqual({ kind: "blocked" });
  });

  test("two identical posts in one batch: one lead, the second answer is the replay", async () => {
    const d = deps();
    const [a, b] = await Promise.all([submitLead(d, submission(original())), submitLead(d, submission(respelled()))]);
    expect(a).toEqual({ kind: "accepted", leadId: expect.any(String), replayed: false });
    expect(b).toEqual({ kind: "accepted", leadId: (a as { leadId: string }).leadId, replayed: true });
    expect(count("leads")).toBe(1);
  });
});
