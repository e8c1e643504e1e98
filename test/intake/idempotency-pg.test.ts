// One Idempotency-Key sent to several instances on one PostgreSQL at once (a vendor's retry racing
// its first request through a load balancer): the first to commit accepts the lead, and every other
// answers as if it had come after it, not 422. The losers' phone claims wait for the winner's row
// and then find the number taken; the key, committed with it, is looked up again.
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { openPostgres, type PostgresHandle } from "../../src/db/pg/client.ts";
import { submitLead, type IntakeDeps, type SubmitOutcome } from "../../src/intake/service.ts";
import type { ServiceStore } from "../../src/store/index.ts";
import { postgresStore, pgTables } from "../../src/store/pg.ts";
import { pgIntakeBatches } from "../../src/backend/pg-intake.ts";
import { validLead } from "../helpers/leads.ts";
import { usePgDatabase } from "../helpers/store-backends.ts";
import { vendorRow } from "../helpers/tables.ts";

const pg = usePgDatabase();
const instances: PostgresHandle[] = [];
afterAll(() => Promise.all(instances.map((handle) => handle.close())));

const VENDOR = vendorRow("vendor-a");
let deps: IntakeDeps[];

// Each lead a transaction of its own, and the leads of a turn in one statement (backend/pg-intake.ts).
for (const batched of [false, true]) {
  describe(batched ? "leads in batches" : "one lead per transaction", () => {
    beforeEach(async () => {
      await pg.handle.sql.unsafe("TRUNCATE vendors, leads, callbacks, callback_attempts, phone_claims, suppressions, idempotency_keys RESTART IDENTITY");
      await pgTables(pg.handle.db).vendors.insert(VENDOR);
      const handles = await Promise.all([1, 2, 3].map(() => openPostgres(pg.url, { poolSize: 4, migrate: false })));
      instances.push(...handles);
      deps = handles.map((handle) => {
        // submitLead only writes; a PostgreSQL store's reads answer with promises, which prePing's
        // synchronous read (not used here) does not take.
        const store = postgresStore(handle.db);
        const duplicateWindowMs = 30 * 86_400_000;
        const batches = batched ? pgIntakeBatches(handle.db, store, { duplicateWindowMs }) : undefined;
        return {
          store: store as unknown as ServiceStore,
          duplicateWindowMs,
          holdPeriodMs: 60_000,
          testHoldPeriodMs: 5_000,
          allowPrivateCallbacks: false,
          clock: () => Date.now(),
          batches,
        };
      });
    });

    /** 20 submissions at once, spread over the three instances, all with one key. */
    function race(bodyOf: (i: number) => Record<string, unknown>): Promise<SubmitOutcome[]> {
      return Promise.all(
        Array.from({ length: 20 }, (_, i) => {
          const body = bodyOf(i);
          return submitLead(deps[i % 3]!, { vendorId: VENDOR.id, body, rawBody: JSON.stringify(body), idempotencyKey: "order-42" });
        }),
      );
    }

    test("20 concurrent submissions of one request with one key over three instances: one lead, and every answer is that lead", async () => {
      const lead = validLead();
      const outcomes = await race(() => lead);
      const leadIds = new Set(outcomes.map((outcome) => (outcome.kind === "accepted" ? outcome.leadId : outcome.kind)));
      expect(leadIds.size).toBe(1);
      expect(outcomes.filter((outcome) => outcome.kind === "accepted" && !outcome.replayed)).toHaveLength(1);
      expect(await pg.handle.sql`SELECT count(*)::int AS n FROM leads`).toEqual([{ n: 1 }]);
    });

    test("concurrent submissions of different bodies for one number with one key: one is accepted, the others are told the key is taken", async () => {
      const lead = validLead();
      const outcomes = await race((i) => ({ ...lead, customer_name: `Customer ${i}` }));
      expect(outcomes.filter((outcome) => outcome.kind === "accepted")).toHaveLength(1);
      expect(outcomes.filter((outcome) => outcome.kind === "idempotencyConflict")).toHaveLength(19);
    });

    test("concurrent submissions of different numbers with one key: one lead is stored and answered, the others are told the key is taken", async () => {
      const outcomes = await race(() => validLead());
      const accepted = outcomes.filter((outcome) => outcome.kind === "accepted");
      expect(accepted).toHaveLength(1);
      expect(outcomes.filter((outcome) => outcome.kind === "idempotencyConflict")).toHaveLength(19);
      const [lead] = await pg.handle.sql`SELECT id FROM leads`;
      expect(await pg.handle.sql`SELECT count(*)::int AS n FROM leads`).toEqual([{ n: 1 }]);
      expect(await pg.handle.sql`SELECT lead_id FROM idempotency_keys`).toEqual([{ lead_id: lead.id }]);
      expect(lead.id).toBe((accepted[0] as { leadId: string }).leadId);
    });
  });
}
