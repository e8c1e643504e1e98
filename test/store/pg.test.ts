// The PostgreSQL store, and what only several instances on one database can show: each pool below
// is one instance's. Claimers racing on separate connections never lease one row twice (FOR UPDATE
// SKIP LOCKED with the lease re-checked), one number is claimed once however many race for it, and
// an expired lease passes to another instance whose predecessor can then write nothing.
import { afterAll, beforeEach, expect, test } from "bun:test";
import { isDatabaseUnavailable, sqlState } from "../../src/backend/index.ts";
import { openPostgres, type PostgresHandle } from "../../src/db/pg/client.ts";
import { NO_CERTIFICATE, recordIfStill } from "../../src/final-results/record.ts";
import { errorText } from "../../src/log/index.ts";
import { op, type Script } from "../../src/db/script.ts";
import type { Store, Tables } from "../../src/store/index.ts";
import { postgresStore, pgTables } from "../../src/store/pg.ts";
import { usePgDatabase } from "../helpers/store-backends.ts";
import { leadFields, vendorRow } from "../helpers/tables.ts";

const pg = usePgDatabase();
const instances: PostgresHandle[] = [];
afterAll(() => Promise.all(instances.map((handle) => handle.close())));

/** `n` more instances' stores on the test database, each with a pool of its own. */
async function otherInstances(n: number): Promise<Store<"promise", "promise">[]> {
  const handles = await Promise.all(Array.from({ length: n }, () => openPostgres(pg.url, { poolSize: 4, migrate: false })));
  instances.push(...handles);
  return handles.map((handle) => postgresStore(handle.db));
}

const PHONE = "+12125551234";
const VENDOR = vendorRow("vendor-a");
const CREATED = Date.UTC(2026, 0, 1);
const DECIDED = CREATED + 60_000;
let t: Tables;

beforeEach(async () => {
  await pg.handle.sql.unsafe("TRUNCATE vendors, leads, callbacks, callback_attempts, phone_claims, suppressions, idempotency_keys RESTART IDENTITY");
  t = pgTables(pg.handle.db);
  await t.vendors.insert(VENDOR);
});

/** `n` leads whose hold is over, each with a callback due at DECIDED. */
async function dueLeadsWithCallbacks(n: number): Promise<string[]> {
  const ids = Array.from({ length: n }, () => Bun.randomUUIDv7());
  for (const id of ids) {
    await t.leads.insertPending(leadFields(), { id, vendorId: VENDOR.id, rawRequest: "{}", createdAt: CREATED, decideAfter: DECIDED });
    await t.callbacks.hold({ id: `msg_${id}`, leadId: id, vendorId: VENDOR.id, url: "https://example.com/hook" }, CREATED);
    await t.callbacks.release(id, "{}", DECIDED);
  }
  return ids;
}

/** Writes through each kind of statement (prepared, built per call, raw SQL), then fails. */
function* writeThenFail(t: Tables): Script<never> {
  const id = Bun.randomUUIDv7();
  yield* op(t.leads.insertPending(leadFields(), { id, vendorId: VENDOR.id, rawRequest: "{}", createdAt: CREATED, decideAfter: DECIDED }));
  yield* op(t.suppressions.add({ phoneE164: "+13125550000", reason: null, createdAt: 0 }));
  yield* op(t.phoneClaims.claim(PHONE, id, CREATED, 0));
  throw new Error("later step failed");
}

test("a write script is one transaction: one that fails after its writes leaves nothing written", async () => {
  const store = postgresStore(pg.handle.db);
  await expect(store.write(writeThenFail)).rejects.toThrow("later step failed");
  const counts = await pg.handle
    .sql`SELECT (SELECT count(*) FROM leads)::int AS leads, (SELECT count(*) FROM suppressions)::int AS suppressions, (SELECT count(*) FROM phone_claims)::int AS claims`;
  expect(counts).toEqual([{ leads: 0, suppressions: 0, claims: 0 }]);
});

test("a write script the database rolled back as a serialization failure or deadlock runs again; any other error is final", async () => {
  const store = postgresStore(pg.handle.db);
  let runs = 0;
  const added = await store.write(function* (t) {
    const added = yield* op(t.suppressions.add({ phoneE164: PHONE, reason: null, createdAt: runs }));
    if (++runs < 3) throw Object.assign(new Error("could not serialize access"), { errno: runs === 1 ? "40001" : "40P01" });
    return added;
  });
  expect({ added, runs }).toEqual({ added: true, runs: 3 });
  expect(await store.read((t) => op(t.suppressions.list()))).toEqual([{ phoneE164: PHONE, reason: null, createdAt: 2 }]);
  runs = 0;
  await expect(
    store.write(() => {
      runs++;
      throw Object.assign(new Error("unique"), { errno: "23505", constraint: "vendors_name_unique" });
    }),
  ).rejects.toThrow("unique");
  expect(runs).toBe(1);
});

test("a lead whose key another instance took in the same millisecond is accepted on the script's next run, under a new id", async () => {
  const store = postgresStore(pg.handle.db);
  const taken = Bun.randomUUIDv7();
  await t.leads.insertPending(leadFields(), { id: taken, vendorId: VENDOR.id, rawRequest: "{}", createdAt: CREATED, decideAfter: DECIDED });
  // The same first 64 bits (milliseconds and counter), another UUID: the key collides, the id does not.
  const ids = [`${taken.slice(0, 19)}ffff-ffffffffffff`, Bun.randomUUIDv7()];
  let runs = 0;
  const stored = await store.write(function* (t) {
    const id = ids[runs++]!;
    yield* op(t.leads.insertPending(leadFields(), { id, vendorId: VENDOR.id, rawRequest: "{}", createdAt: CREATED, decideAfter: DECIDED }));
    return id;
  });
  expect({ stored, runs }).toEqual({ stored: ids[1]!, runs: 2 });
});

test("a failing query's error, as the logs show it, is the driver's: no parameter values, its SQLSTATE kept", async () => {
  const store = postgresStore(pg.handle.db);
  // PostgreSQL's text refuses U+0000 (SQLSTATE 22021), with the values among the query's parameters.
  const email = "jane.private@example.com\u0000";
  const phone = "+12125559876";
  const failures = await Promise.all([
    store
      .write((t) =>
        op(
          t.leads.insertPending(
            { ...leadFields(phone), email },
            { id: Bun.randomUUIDv7(), vendorId: VENDOR.id, rawRequest: "{}", createdAt: CREATED, decideAfter: DECIDED },
          ),
        ),
      )
      .catch((error: unknown) => error),
    store.read((t) => op(t.suppressions.isListed(`${phone}\u0000`))).catch((error: unknown) => error),
  ]);
  for (const failure of failures) {
    expect(sqlState(failure)).toBe("22021");
    const logged = errorText(failure);
    for (const secret of ["jane.private", phone, "params:"]) expect(logged).not.toContain(secret);
  }
});

test("an operator decision committed while the worker decides the lead waits for it, then finds the lead decided: never 'Recorded' and overwritten", async () => {
  const leadId = Bun.randomUUIDv7();
  await t.leads.insertPending(leadFields(), { id: leadId, vendorId: VENDOR.id, rawRequest: "{}", createdAt: CREATED, decideAfter: DECIDED });
  await t.callbacks.hold({ id: `msg_${leadId}`, leadId, vendorId: VENDOR.id, url: "https://example.com/hook" }, CREATED);
  const [lead] = await t.leads.claimDue(DECIDED, 1, 60_000, "worker");
  const [operator] = await otherInstances(1);
  // The worker's transaction is held open between its read of the operator decision and its finish.
  const { promise: readDone, resolve: signalRead } = Promise.withResolvers<void>();
  const { promise: finishGate, resolve: openFinish } = Promise.withResolvers<void>();
  const deciding = postgresStore(pg.handle.db).write((tables) =>
    recordIfStill(
      { ...tables, leads: { ...tables.leads, finish: async (...args) => (signalRead(), await finishGate, tables.leads.finish(...args)) } },
      lead!,
      "worker",
      NO_CERTIFICATE,
      { status: "accepted" },
      DECIDED,
    ),
  );
  await readDone;
  let decideSettled = false;
  const decide = operator!.write((t) => op(t.leads.recordOperatorDecision(leadId, "reject", "changed my mind"))).finally(() => (decideSettled = true));
  try {
    await Bun.sleep(200); // ample for a decide that does not wait
    expect(decideSettled).toBe(false);
  } finally {
    openFinish();
  }
  expect(await deciding).toBe("recorded");
  expect(await decide).toBe(false); // the CLI says the lead is no longer pending
  expect(await pg.handle.sql`SELECT status, operator_decision FROM leads`).toEqual([{ status: "accepted", operator_decision: null }]);
});

test("a statement runs at most 30 s on the server, and one cancelled by the timeout is answered 503 (the database unavailable), not 500", async () => {
  expect(await pg.handle.sql`SHOW statement_timeout`).toEqual([{ statement_timeout: "30s" }]);
  const cancelled = await pg.handle.sql
    .begin(async (tx) => {
      await tx`SET LOCAL statement_timeout = 10`;
      await tx`SELECT pg_sleep(1)`;
    })
    .catch((error: unknown) => error);
  expect([sqlState(cancelled), isDatabaseUnavailable(cancelled)]).toEqual(["57014", true]);
});

/** Each instance claims batches at once with the others until none is left; the ids of every lease taken. */
async function drain(
  stores: Store<"promise", "promise">[],
  claim: (t: Tables, token: string) => Promise<{ id: string }[]> | { id: string }[],
): Promise<string[]> {
  const leased = await Promise.all(
    stores.map(async (store, i) => {
      const ids: string[] = [];
      for (;;) {
        const batch = await store.write((t) => op(claim(t, `worker-${i}`)));
        if (batch.length === 0) return ids;
        ids.push(...batch.map((row) => row.id));
      }
    }),
  );
  return leased.flat();
}

const claimsOf = {
  callbacks: (t: Tables, token: string) => t.callbacks.claimDue(DECIDED, 7, 60_000, token),
  leads: (t: Tables, token: string) => t.leads.claimDue(DECIDED, 7, 60_000, token),
};

for (const [table, claim] of Object.entries(claimsOf)) {
  test(`three instances claiming 200 due ${table} at once lease each exactly once`, async () => {
    await dueLeadsWithCallbacks(200);
    const ids = await drain(await otherInstances(3), claim);
    expect(ids).toHaveLength(200);
    expect(new Set(ids).size).toBe(200);
  });
}

test("20 claims of one number racing across three instances: exactly one takes it", async () => {
  const stores = await otherInstances(3);
  const claims = await Promise.all(
    Array.from({ length: 20 }, (_, i) => stores[i % 3]!.write((t) => op(t.phoneClaims.claim(PHONE, `lead-${i}`, CREATED, CREATED - 30 * 86_400_000)))),
  );
  expect(claims.filter(Boolean)).toHaveLength(1);
  expect(await pg.handle.sql`SELECT lead_id FROM phone_claims`).toEqual([{ lead_id: `lead-${claims.indexOf(true)}` }]);
});

test("an expired lease is claimed by another instance, after which the old holder's outcome writes nothing", async () => {
  const [leadId] = (await dueLeadsWithCallbacks(1)) as [string];
  const [first, second] = await otherInstances(2);
  const claimBoth = (store: Store<"promise", "promise">, now: number, token: string) =>
    store.write(function* (t) {
      return { leads: yield* op(t.leads.claimDue(now, 10, 1000, token)), callbacks: yield* op(t.callbacks.claimDue(now, 10, 1000, token)) };
    });
  const old = await claimBoth(first!, DECIDED, "old");
  expect(await claimBoth(second!, DECIDED + 999, "new")).toEqual({ leads: [], callbacks: [] });
  const fresh = await claimBoth(second!, DECIDED + 1001, "new");
  expect(fresh.leads.map((lead) => lead.id)).toEqual([leadId]);
  expect(fresh.callbacks.map((callback) => callback.leadId)).toEqual([leadId]);

  const attempt = { startedAt: DECIDED, durationMs: 5, statusCode: 200, error: null, responseExcerpt: null };
  expect(await first!.write((t) => op(t.leads.finish(leadId, "old", "accepted", null, DECIDED + 1002)))).toBe(false);
  expect(await first!.write((t) => op(t.callbacks.recordAttempt(old.callbacks[0]!, "old", attempt, { kind: "delivered" }, DECIDED + 1002)))).toBe(false);
  expect(await pg.handle.sql`SELECT status, claim_token FROM leads`).toEqual([{ status: "pending", claim_token: "new" }]);
  expect(await pg.handle.sql`SELECT status, claim_token, delivered_at FROM callbacks`).toEqual([{ status: "pending", claim_token: "new", delivered_at: null }]);
});
