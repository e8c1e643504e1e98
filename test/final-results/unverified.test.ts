// A lead judged by TrustedForm with no finding when it is decided (never claimed: TrustedForm slower
// than the leads come, a hold shorter than a poll, the certificate loop failing) is marked with the
// lead in the decision's own transaction: a settled "not_asked" finding, never over evidence the
// hold stored, and the final_result line says "accepted_unverified" when the setting accepted it.
// On SQLite and PostgreSQL, by the batched statements (store/batches/) and by the per-lead script
// (final-results/record.ts) alike.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { pgWorkerBatches } from "../../src/backend/pg-worker.ts";
import { evidenceFromAnswer, NOT_ASKED_FINDING, TRUSTEDFORM_FINDING } from "../../src/certificates/index.ts";
import { findingAnswer } from "../../src/certificates/stored.ts";
import { openDatabase } from "../../src/db/client.ts";
import { createGroupCommitter } from "../../src/db/group-commit.ts";
import { op, runAwaiting } from "../../src/db/script.ts";
import { createFinalResultJob, type DecisionBatches } from "../../src/final-results/job.ts";
import { recordDecision } from "../../src/final-results/record.ts";
import { createLogger } from "../../src/log/index.ts";
import { sqliteWorkerBatches } from "../../src/store/batches/sqlite.ts";
import type { Answering, Store, Tables } from "../../src/store/index.ts";
import { postgresStore, pgTables } from "../../src/store/pg.ts";
import { groupCommittedStore, sqliteTables } from "../../src/store/sqlite.ts";
import { usePgDatabase } from "../helpers/store-backends.ts";
import { pendingLead, vendorRow } from "../helpers/tables.ts";

const VENDOR = vendorRow("vendor-a");
const CREATED = Date.UTC(2026, 0, 1);
const DECIDED = CREATED + 60_000;
const CERTIFICATE = `https://cert.trustedform.com/${"a".repeat(40)}`;
const NO_ANSWER = "Certificate could not be verified: TrustedForm could not be reached before the decision was due";

interface Backend {
  t: Tables;
  store: Store<Answering, "promise">;
  batches: DecisionBatches;
}

/** The suite on one backend, by the batched statements and by the per-lead script. */
function suite(backend: Backend) {
  let phones = 0;
  const held = (certificateUrl = CERTIFICATE) =>
    runAwaiting(
      pendingLead(backend.t, {
        vendorId: VENDOR.id,
        phoneE164: `+1212555${String(++phones).padStart(4, "0")}`,
        createdAt: CREATED,
        decideAfter: DECIDED,
        callbackUrl: "https://example.com/hook",
        certificateUrl,
      }),
    );
  const findingsOf = (id: string) => backend.store.read((t) => op(t.findings.of([id])));

  // The mark is written by the decision's own statements, so a decision that is not recorded (or a
  // kill before its commit) leaves neither: the lead is decided again, and marked then.
  test("a decision not recorded marks nothing: its lease lost (per-lead), its facts changed (batched)", async () => {
    const [leased, changed] = [await held(), await held()];
    const due = await backend.store.write((t) => op(t.leads.claimDue(DECIDED, 10, 30_000, "mine")));
    const lead = due.find((row) => row.id === leased)!;
    expect(await backend.store.write((t) => recordDecision(t, lead, "not-mine", { status: "accepted" }, DECIDED, "{}", NOT_ASKED_FINDING))).toBe(false);
    const other = due.find((row) => row.id === changed)!;
    const record = { lead: other, factsVersion: -1, status: "accepted", reason: null, payload: "{}", finding: NOT_ASKED_FINDING } as const;
    expect(await backend.batches.record([record], "mine", DECIDED)).toEqual(new Set());
    expect([...(await findingsOf(leased)), ...(await findingsOf(changed))]).toEqual([]);
  });

  for (const path of ["batched", "per-lead"] as const)
    describe(path, () => {
      /** Decides every due lead under the setting; answers the final_result lines. */
      async function decide(onUnreachable: "accept" | "reject"): Promise<Record<string, unknown>[]> {
        const lines: Record<string, unknown>[] = [];
        const job = createFinalResultJob({
          store: backend.store,
          clock: () => DECIDED,
          log: createLogger("info", (line) => void lines.push(JSON.parse(line))),
          verifyCertificate: null,
          trustedForm: { onUnreachable },
          batchSize: 10,
          leaseMs: 30_000,
          onDecided: () => {},
          batches: path === "batched" ? backend.batches : undefined,
        });
        while ((await job.runOnce()) > 0);
        return lines.filter((line) => line.event === "final_result");
      }
      const leadOf = async (id: string) => (await backend.store.read((t) => op(t.leads.detail(id))))!;

      test("accept: accepted, a not_asked finding recorded with it, and the final_result line says accepted_unverified", async () => {
        const id = await held();
        const [line] = await decide("accept");
        expect(line).toMatchObject({ lead_id: id, status: "accepted", certificate: "accepted_unverified" });
        expect(await leadOf(id)).toMatchObject({ status: "accepted" });
        expect(await findingsOf(id)).toEqual([
          {
            leadId: id,
            ...TRUSTEDFORM_FINDING,
            outcome: "not_asked",
            reason: "TrustedForm was not asked before the decision was due",
            detail: null,
            raw: null,
            attempts: 0,
            firstAt: DECIDED,
            checkedAt: DECIDED,
            nextAt: DECIDED,
          },
        ]);
      });

      test("reject: rejected with the documented reason, and the not_asked finding recorded", async () => {
        const id = await held();
        const [line] = await decide("reject");
        expect(line).toMatchObject({ lead_id: id, status: "rejected", reason: NO_ANSWER });
        expect(line).not.toHaveProperty("certificate");
        expect(await leadOf(id)).toMatchObject({ status: "rejected", rejection_reason: NO_ANSWER });
        expect(await findingsOf(id)).toMatchObject([{ outcome: "not_asked", attempts: 0 }]);
      });

      test("evidence stored during the hold is kept as it was: verified is not marked, unreachable keeps its answer", async () => {
        const [verified, unreachable, other] = [await held(), await held(), await held("https://example.com/consent")];
        const store = (id: string, status: number, body: string) =>
          backend.store.write((t) =>
            op(
              t.findings.settleUnasked(
                TRUSTEDFORM_FINDING,
                id,
                findingAnswer(evidenceFromAnswer({ kind: "http", status, body, truncated: false }), CREATED, CREATED),
              ),
            ),
          );
        await store(verified, 200, JSON.stringify({ outcome: "success", match_lead: { result: { success: true, phone_match: true } } }));
        await store(unreachable, 500, "down");
        const lines = await decide("accept");
        const lineOf = (id: string) => lines.find((line) => line.lead_id === id);
        expect(lineOf(verified)).toMatchObject({ status: "accepted" });
        expect(lineOf(verified)).not.toHaveProperty("certificate");
        expect(lineOf(unreachable)).toMatchObject({ status: "accepted", certificate: "accepted_unverified" });
        expect(lineOf(other)).not.toHaveProperty("certificate");
        expect(await findingsOf(verified)).toMatchObject([{ outcome: "verified", checkedAt: CREATED }]);
        expect(await findingsOf(unreachable)).toMatchObject([{ outcome: "unreachable", reason: "TrustedForm answered HTTP 500", checkedAt: CREATED }]);
        // Not a TrustedForm certificate: nothing to mark.
        expect(await findingsOf(other)).toEqual([]);
      });
    });
}

describe("on SQLite", () => {
  const backend = {} as Backend & { close(): void };
  beforeEach(() => {
    const handle = openDatabase(":memory:");
    const commit = createGroupCommitter(handle.sqlite);
    backend.t = sqliteTables(handle.db);
    backend.store = groupCommittedStore(handle.db, commit);
    backend.batches = sqliteWorkerBatches(handle.sqlite, commit).decisions;
    backend.close = () => handle.close();
    backend.t.vendors.insert(VENDOR);
  });
  afterEach(() => backend.close());
  suite(backend);
});

describe("on PostgreSQL", () => {
  const pg = usePgDatabase();
  const backend = {} as Backend;
  beforeEach(async () => {
    await pg.handle.sql.unsafe("TRUNCATE vendors, leads, callbacks, callback_attempts, phone_claims, lead_findings RESTART IDENTITY");
    backend.t = pgTables(pg.handle.db);
    const store = postgresStore(pg.handle.db);
    backend.store = store;
    backend.batches = pgWorkerBatches(pg.handle.db, store).decisions;
    await backend.t.vendors.insert(VENDOR);
  });
  suite(backend);
});
