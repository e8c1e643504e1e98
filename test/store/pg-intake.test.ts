// PostgreSQL's batched intake (backend/pg-intake.ts): the leads submitted within one turn go to the
// database as one statement, and each gets exactly the answer its per-lead script would give.
// Submitted without an await between them, the leads below meet in one batch; the store the batch
// leaves leads to counts its writes, so a test sees which leads the statement settled itself.
import { beforeEach, describe, expect, test } from "bun:test";
import { FullCountersSeen } from "../../src/intake/caps.ts";
import type { CapToTake } from "../../src/intake/policy-port.ts";
import { IDEMPOTENCY_TTL_MS, prePing, submitLead, type IntakeDeps, type SubmitOutcome } from "../../src/intake/service.ts";
import type { Store } from "../../src/store/index.ts";
import { postgresStore, pgTables } from "../../src/store/pg.ts";
import { pgIntakeBatches } from "../../src/backend/pg-intake.ts";
import { validLead } from "../helpers/leads.ts";
import { usePgDatabase } from "../helpers/store-backends.ts";
import { leadFields, vendorRow } from "../helpers/tables.ts";
import { waitUntil } from "../helpers/wait.ts";

const pg = usePgDatabase();
const VENDOR = vendorRow("vendor-a");
const WINDOW_MS = 30 * 86_400_000;
const NOW = Date.UTC(2026, 5, 1);

let deps: IntakeDeps;
let writesAlone: number;
let reads: number;
let batchFailures: unknown[];

beforeEach(async () => {
  await pg.handle.sql.unsafe("TRUNCATE vendors, leads, callbacks, callback_attempts, phone_claims, suppressions, idempotency_keys, cap_usage RESTART IDENTITY");
  await pgTables(pg.handle.db).vendors.insert(VENDOR);
  const store = postgresStore(pg.handle.db);
  writesAlone = 0;
  reads = 0;
  batchFailures = [];
  const counted: Store<"promise", "promise"> = {
    read: (script) => {
      reads++;
      return store.read(script);
    },
    write: (script, options) => {
      writesAlone++;
      return store.write(script, options);
    },
  };
  deps = {
    store: counted,
    duplicateWindowMs: WINDOW_MS,
    holdPeriodMs: 60_000,
    testHoldPeriodMs: 5_000,
    allowPrivateCallbacks: false,
    clock: () => NOW,
    batches: pgIntakeBatches(pg.handle.db, counted, { duplicateWindowMs: WINDOW_MS, onBatchFailed: (error) => batchFailures.push(error) }),
  };
});

type Body = Record<string, unknown>;

type Submission = { body: Body; key?: string; vendorId?: string };

/** Submits every body in one turn (one batch). */
const submissionsOf = (...submissions: Submission[]): Promise<SubmitOutcome>[] =>
  submissions.map(({ body, key, vendorId }) =>
    submitLead(deps, { vendorId: vendorId ?? VENDOR.id, body, rawBody: JSON.stringify(body), idempotencyKey: key ?? null }),
  );

/** Submits every body in one turn (one batch); answers in order. */
const submitTogether = (...submissions: Submission[]): Promise<SubmitOutcome[]> => Promise.all(submissionsOf(...submissions));

const rows = (query: string) => pg.handle.sql.unsafe(query);
const e164 = (formatted: string) => `+1${formatted.replace(/\D/g, "")}`;
const accepted = (outcome: SubmitOutcome | undefined) =>
  outcome?.kind === "accepted" ? outcome : expect.unreachable(`not accepted: ${JSON.stringify(outcome)}`);

test("distinct leads are stored by the batch statement alone: each lead (its campaign folded as the policy's), its held callback, its claim and its key", async () => {
  const [a, b] = [validLead({ vendor_campaign_name: "ÉTÉ-Solar" }), validLead({ call_back_url: null })];
  const outcomes = await submitTogether({ body: a, key: "k-1" }, { body: b });
  expect(outcomes.map((o) => o.kind)).toEqual(["accepted", "accepted"]);
  expect(writesAlone).toBe(0);
  expect(batchFailures).toEqual([]);
  const [idA, idB] = outcomes.map((o) => accepted(o).leadId);
  expect(await rows("SELECT id, status, phone_e164, created_at::float8 AS created, decide_after::float8 AS decide FROM leads ORDER BY phone_e164")).toEqual(
    [
      { id: idA, status: "pending", phone_e164: e164(a.phone_number as string), created: NOW, decide: NOW + 60_000 },
      { id: idB, status: "pending", phone_e164: e164(b.phone_number as string), created: NOW, decide: NOW + 60_000 },
    ].sort((x, y) => x.phone_e164.localeCompare(y.phone_e164)),
  );
  expect(await rows(`SELECT campaign_folded FROM leads WHERE id = '${idA}'`)).toEqual([{ campaign_folded: "été-solar" }]);
  expect(await rows("SELECT lead_id, status, url FROM callbacks")).toEqual([{ lead_id: idA, status: "held", url: a.call_back_url }]);
  expect((await rows("SELECT lead_id FROM phone_claims ORDER BY lead_id")).map((r: { lead_id: string }) => r.lead_id)).toEqual([idA, idB].sort());
  expect(await rows("SELECT key, lead_id FROM idempotency_keys")).toEqual([{ key: "k-1", lead_id: idA }]);
});

test("duplicate phones in one batch: the first is stored; the same lead again replays it, another lead with that number is blocked", async () => {
  const lead = validLead();
  const outcomes = await submitTogether({ body: lead }, { body: { ...lead, customer_name: "Someone Else" } }, { body: lead }, { body: validLead() });
  const first = accepted(outcomes[0]);
  expect(outcomes[1]).toEqual({ kind: "blocked" });
  expect(outcomes[2]).toEqual({ kind: "accepted", leadId: first.leadId, replayed: true });
  expect(accepted(outcomes[3]).replayed).toBe(false);
  expect(writesAlone).toBe(2); // the two later leads with the first's number, after its commit
  expect(await rows("SELECT count(*)::int AS n FROM leads")).toEqual([{ n: 2 }]);
});

test("a suppressed number in the batch is blocked; the others are stored", async () => {
  const [suppressed, other] = [validLead(), validLead()];
  await pgTables(pg.handle.db).suppressions.add({ phoneE164: e164(suppressed.phone_number as string), reason: null, createdAt: 0 });
  const outcomes = await submitTogether({ body: suppressed }, { body: other });
  expect(outcomes[0]).toEqual({ kind: "blocked" });
  expect(accepted(outcomes[1]).replayed).toBe(false);
  expect(await rows("SELECT phone_e164 FROM leads")).toEqual([{ phone_e164: e164(other.phone_number as string) }]);
  expect(await rows("SELECT count(*)::int AS n FROM phone_claims")).toEqual([{ n: 1 }]);
});

test("a claim older than the duplicate window is taken over by the batch; a live one blocks", async () => {
  const [expired, live] = [validLead(), validLead()];
  const claims = pgTables(pg.handle.db).phoneClaims;
  await claims.claim(e164(expired.phone_number as string), "old-lead", NOW - WINDOW_MS, 0);
  await claims.claim(e164(live.phone_number as string), "recent-lead", NOW - WINDOW_MS + 1, 0);
  const outcomes = await submitTogether({ body: expired }, { body: live });
  const taken = accepted(outcomes[0]);
  expect(outcomes[1]).toEqual({ kind: "blocked" });
  expect(await claims.holderOf(e164(expired.phone_number as string))).toBe(taken.leadId);
  expect(await claims.holderOf(e164(live.phone_number as string))).toBe("recent-lead");
});

test("a claim older than the window still blocks while its lead's final acceptance is within it, in the batch and for prePing", async () => {
  const lead = validLead();
  const phone = e164(lead.phone_number as string);
  const tables = pgTables(pg.handle.db);
  const intake = NOW - WINDOW_MS - 60_000;
  const leadId = Bun.randomUUIDv7();
  await tables.leads.insertPending(leadFields(phone), { id: leadId, vendorId: VENDOR.id, rawRequest: "{}", createdAt: intake, decideAfter: intake + 60_000 });
  await tables.phoneClaims.claim(phone, leadId, intake, 0);
  await tables.leads.claimDue(NOW - WINDOW_MS + 1, 1, 1_000, "token");
  await tables.leads.finish(leadId, "token", "accepted", null, NOW - WINDOW_MS + 1);
  expect(await submitTogether({ body: lead }, { body: validLead() }).then((o) => o.map((x) => x.kind))).toEqual(["blocked", "accepted"]);
  expect(await prePing(deps, { phone_number: lead.phone_number })).toEqual({ kind: "blocked" });
  expect(await tables.phoneClaims.holderOf(phone)).toBe(leadId);
});

test("a key saved earlier: the same request in a batch replays its lead, another request with it is a conflict", async () => {
  const body = validLead();
  const [earlier] = await submitTogether({ body, key: "order-1" });
  writesAlone = 0;
  const outcomes = await submitTogether({ body, key: "order-1" }, { body: validLead(), key: "order-1" }, { body: validLead(), key: "order-2" });
  expect(outcomes[0]).toEqual({ kind: "accepted", leadId: accepted(earlier).leadId, replayed: true });
  expect(outcomes[1]).toEqual({ kind: "idempotencyConflict" });
  expect(accepted(outcomes[2]).replayed).toBe(false);
  expect(writesAlone).toBe(2); // the replay and the conflict: answered by their script after the batch
  expect(await rows("SELECT count(*)::int AS n FROM leads")).toEqual([{ n: 2 }]);
});

test("one key twice in one batch: the first request is stored, the same key with another body is a conflict, the same body a replay", async () => {
  const lead = validLead();
  const outcomes = await submitTogether({ body: lead, key: "order-9" }, { body: validLead(), key: "order-9" }, { body: lead, key: "order-9" });
  const first = accepted(outcomes[0]);
  expect(outcomes[1]).toEqual({ kind: "idempotencyConflict" });
  expect(outcomes[2]).toEqual({ kind: "accepted", leadId: first.leadId, replayed: true });
  expect(await rows("SELECT lead_id FROM idempotency_keys")).toEqual([{ lead_id: first.leadId }]);
  expect(await rows("SELECT count(*)::int AS n FROM leads")).toEqual([{ n: 1 }]);
});

test("a key another instance saves while the batch waits for it: the batch stores nothing, and the lead gets the key's answer", async () => {
  let outcomes: Promise<SubmitOutcome[]> | undefined;
  await pg.handle.sql.begin(async (other) => {
    await other`INSERT INTO idempotency_keys (vendor_id, key, request_hash, lead_id, created_at) VALUES (${VENDOR.id}, 'order-7', 'another request', 'another-lead', ${NOW})`;
    outcomes = submitTogether({ body: validLead(), key: "order-7" }, { body: validLead() });
    // The batch's snapshot does not see the key; its save waits for this transaction's row.
    await waitUntil(async () => (await pg.handle.sql`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock'`)[0].n === 1);
  });
  const [withKey, other] = await outcomes!;
  expect(batchFailures.map((error) => (error as Error).message)).toEqual([expect.stringContaining("saved meanwhile")]);
  expect(withKey).toEqual({ kind: "idempotencyConflict" });
  expect(await rows("SELECT id FROM leads")).toEqual([{ id: accepted(other).leadId }]);
});

test("a lead the statement cannot store fails alone: the batch is rolled back, the others are stored one by one", async () => {
  const [good, other] = [validLead(), validLead()];
  const outcomes = await Promise.allSettled(submissionsOf({ body: good }, { body: validLead(), vendorId: "no-such-vendor" }, { body: other }));
  expect(batchFailures).toHaveLength(1);
  expect(writesAlone).toBe(3);
  expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
  expect((outcomes[1] as PromiseRejectedResult).reason).toMatchObject({ errno: "23503" }); // the vendor's foreign key
  const ids = outcomes.flatMap((o) => (o.status === "fulfilled" ? [accepted(o.value).leadId] : []));
  expect((await rows("SELECT id FROM leads ORDER BY id")).map((r: { id: string }) => r.id)).toEqual(ids.sort());
});

test("prePings of one turn are answered by one statement, each by the rule: suppressed or claimed within the window", async () => {
  const [suppressed, claimed, expired, free] = [validLead(), validLead(), validLead(), validLead()].map((lead) => lead.phone_number as string);
  const tables = pgTables(pg.handle.db);
  await tables.suppressions.add({ phoneE164: e164(suppressed!), reason: null, createdAt: 0 });
  await tables.phoneClaims.claim(e164(claimed!), "recent-lead", NOW - WINDOW_MS + 1, 0);
  await tables.phoneClaims.claim(e164(expired!), "old-lead", NOW - WINDOW_MS, 0);
  const outcomes = await Promise.all([suppressed, claimed, expired, free, claimed].map((phone) => prePing(deps, { phone_number: phone })));
  expect(outcomes.map((o) => o.kind)).toEqual(["blocked", "blocked", "eligible", "eligible", "blocked"]);
  expect(reads).toBe(0);
});

test("checked leads of one turn are screened by one statement: only a blocked number or a live key is read alone, and calls no check", async () => {
  const tables = pgTables(pg.handle.db);
  const [suppressed, claimed, keyed, free] = [validLead(), validLead(), validLead(), validLead()];
  await tables.suppressions.add({ phoneE164: e164(suppressed.phone_number as string), reason: null, createdAt: 0 });
  await tables.phoneClaims.claim(e164(claimed.phone_number as string), "recent-lead", NOW - WINDOW_MS + 1, 0);
  const [earlier] = await submitTogether({ body: keyed, key: "order-1" });
  // A key saved a TTL ago has expired: it holds nothing back, and the batch takes it over.
  await tables.idempotencyKeys.save({ vendorId: VENDOR.id, key: "order-old", requestHash: "x", leadId: "old-lead" }, NOW - IDEMPOTENCY_TTL_MS, 0);
  const checked: string[] = [];
  deps.policy = {
    postLead: () => null,
    prePing: () => null,
    postLeadChecks: (_vendor, lead) => () => {
      checked.push(lead.phoneE164);
      return Promise.resolve({ kind: "passed", answers: {} });
    },
  };
  reads = 0;
  const reKeyed = validLead();
  const outcomes = await submitTogether(
    { body: suppressed },
    { body: claimed },
    { body: keyed, key: "order-1" },
    { body: reKeyed, key: "order-old" },
    { body: free },
  );
  expect(outcomes.slice(0, 3)).toEqual([{ kind: "blocked" }, { kind: "blocked" }, { kind: "accepted", leadId: accepted(earlier).leadId, replayed: true }]);
  expect(outcomes.slice(3).map((o) => accepted(o).replayed)).toEqual([false, false]);
  // The three held back were read alone for their answers; the two others went to their checks without a read.
  expect(reads).toBe(3);
  expect(checked.sort()).toEqual([reKeyed, free].map((lead) => e164(lead.phone_number as string)).sort());
});

describe("caps in the batch", () => {
  const cap = (max: number): CapToTake => ({
    name: "daily",
    bucket: "",
    windowStart: NOW - 1_000,
    windowEnd: NOW + 86_400_000,
    max,
    reason: "Daily cap reached",
    retryAfterSeconds: 86_400,
  });
  const withCap = (max: number) => {
    deps.fullCounters = new FullCountersSeen();
    deps.policy = { postLead: () => ({ kind: "caps", leads: [cap(max)], pings: [] }), prePing: () => null };
  };
  const used = async () => (await rows("SELECT used FROM cap_usage"))[0]?.used ?? 0;

  test("leads in a cap's scope with room are stored by the statement, which takes their slots together", async () => {
    withCap(10);
    const outcomes = await submitTogether({ body: validLead() }, { body: validLead() }, { body: validLead() });
    expect(outcomes.map((o) => o.kind)).toEqual(["accepted", "accepted", "accepted"]);
    expect(writesAlone).toBe(0);
    expect(await used()).toBe(3);
  });

  test("a lead of the batch whose number is blocked takes no slot", async () => {
    withCap(10);
    const lead = validLead();
    await submitTogether({ body: lead });
    const outcomes = await submitTogether({ body: { ...lead, customer_name: "Someone Else" } }, { body: validLead() });
    expect(outcomes.map((o) => o.kind)).toEqual(["blocked", "accepted"]);
    expect(await used()).toBe(2);
  });

  test("prePings of one turn read their leads caps' counters by one statement: one is refused while the cap is full, not before", async () => {
    withCap(2);
    deps.policy = { ...deps.policy!, prePing: () => ({ kind: "caps", leads: [cap(2)], pings: [] }) };
    const ping = () => Promise.all([prePing(deps, { phone_number: validLead().phone_number }), prePing(deps, { phone_number: validLead().phone_number })]);
    expect((await ping()).map((o) => o.kind)).toEqual(["eligible", "eligible"]);
    await submitTogether({ body: validLead() }, { body: validLead() });
    expect((await ping()).map((o) => o.kind)).toEqual(["capped", "capped"]);
    expect(reads).toBe(0); // neither a per-ping read script
  });

  test("prePings of one turn take their pings caps' slots in one statement; short of room, each takes its own: exactly the slots left", async () => {
    const pingsCap = { ...cap(3), name: "pings" };
    deps.policy = { postLead: () => null, prePing: () => ({ kind: "caps", leads: [], pings: [pingsCap] }) };
    const pings = (n: number) => Promise.all(Array.from({ length: n }, () => prePing(deps, { phone_number: validLead().phone_number })));
    expect((await pings(2)).map((o) => o.kind)).toEqual(["eligible", "eligible"]);
    expect(writesAlone).toBe(0);
    const outcomes = await pings(4);
    expect(outcomes.filter((o) => o.kind === "eligible")).toHaveLength(1);
    expect(outcomes.filter((o) => o.kind === "capped")).toHaveLength(3);
    expect(writesAlone).toBe(4);
    expect(batchFailures).toEqual([]);
    expect(await used()).toBe(3);
  });

  test("2 slots left for 5 leads: the statement takes none, each lead's script shares them out, and the full counter is remembered", async () => {
    withCap(3);
    await submitTogether({ body: validLead() });
    const outcomes = await submitTogether(...Array.from({ length: 5 }, () => ({ body: validLead() })));
    expect(outcomes.filter((o) => o.kind === "accepted")).toHaveLength(2);
    expect(outcomes.filter((o) => o.kind === "capped").map((o) => o.kind === "capped" && o.reasons)).toEqual([
      ["Daily cap reached"],
      ["Daily cap reached"],
      ["Daily cap reached"],
    ]);
    expect(writesAlone).toBe(5);
    expect(batchFailures).toEqual([]); // a cap short of room is not a failure to report
    expect(await used()).toBe(3);
    expect(await rows("SELECT count(*)::int AS n FROM leads")).toEqual([{ n: 3 }]);
    // Seen full: the next lead is refused by a read, with no write.
    const [writes, readsBefore] = [writesAlone, reads];
    expect((await submitTogether({ body: validLead() }))[0]?.kind).toBe("capped");
    expect(writesAlone).toBe(writes);
    expect(reads).toBeGreaterThan(readsBefore);
  });
});
