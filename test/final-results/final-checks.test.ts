// The final-stage checks at the decision (docs/contract.md §11; final-results/checks.ts): what the
// stored answers decide, in which order among the other final checks, and the per-lead path (a lead
// decided alone, record.ts decideNow) reading them; the batched paths are in sqlite-batches and
// pg-worker tests, on the same fixture.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { storedReasons } from "../../src/contract/rejection-reasons.ts";
import { openDatabase, type DatabaseHandle } from "../../src/db/client.ts";
import { runNow } from "../../src/db/script.ts";
import { decideFinalResult } from "../../src/final-results/decide.ts";
import { judgeFinalChecks } from "../../src/final-results/checks.ts";
import { decideNow, NO_CERTIFICATE } from "../../src/final-results/record.ts";
import type { Finding } from "../../src/store/findings/index.ts";
import type { Tables } from "../../src/store/index.ts";
import { leadFields, now, pendingLead, tablesOf, vendorRow } from "../helpers/tables.ts";
import { arrangeFinalChecks, FINAL_CHECKS_POLICY } from "./final-checks-fixture.ts";

const stored = (vendor: string) => ({ vendor, fields: leadFields("+12125550001") });
const finding = (name: string, outcome: string, reason: string | null): Finding => ({
  leadId: "L1",
  kind: "check",
  name,
  outcome,
  reason,
  detail: null,
  raw: null,
  attempts: 1,
  firstAt: 0,
  checkedAt: 0,
  nextAt: 0,
});

describe("judgeFinalChecks", () => {
  test("a fail refuses with the service's reason; the facts hold it with the intake answers", () => {
    const judged = judgeFinalChecks(
      FINAL_CHECKS_POLICY,
      stored("vendor-a"),
      "L1",
      [finding("dnc", "fail", "Listed")],
      '{"linetype":{"outcome":"pass","reason":"mobile"}}',
    );
    expect(judged).toEqual({
      reasons: ["Listed"],
      facts: { linetype: { outcome: "pass", reason: "mobile" }, dnc: { outcome: "fail", reason: "Listed" } },
    });
  });

  test("an error still, asked but unanswered, or never asked: on_error decides (reject here) and the fact is an error", () => {
    for (const findings of [[finding("dnc", "error", null)], [finding("dnc", "pending", null)], []])
      expect(judgeFinalChecks(FINAL_CHECKS_POLICY, stored("vendor-a"), "L1", findings, null)).toEqual({
        reasons: ["Check unavailable: dnc"],
        facts: { dnc: { outcome: "error", reason: "Check unavailable: dnc" } },
      });
  });

  test("only the checks whose scope holds the lead are judged: another lead's answer or another vendor's check count for nothing", () => {
    const other = { ...finding("dnc", "fail", "Listed"), leadId: "L2" };
    expect(judgeFinalChecks(FINAL_CHECKS_POLICY, stored("vendor-other"), "L1", [finding("dnc", "pass", "ok"), other], null).reasons).toEqual([
      "Check unavailable: elsewhere",
    ]);
  });
});

test("the order: the certificate's rejection first, then the checks' refusals, then the final rules", () => {
  const base = { suppressedNow: false, operatorDecision: null, certificate: null, failingChecks: ["Listed"], failingFinalRules: ["Rule"] };
  expect(decideFinalResult(base)).toEqual({ status: "rejected", reasons: ["Listed"] });
  expect(decideFinalResult({ ...base, certificate: { verified: false, reason: "Cert" } })).toEqual({ status: "rejected", reasons: ["Cert"] });
  expect(decideFinalResult({ ...base, failingChecks: [] })).toEqual({ status: "rejected", reasons: ["Rule"] });
  expect(decideFinalResult({ ...base, operatorDecision: { decision: "accept", reason: null } })).toEqual({ status: "accepted" });
});

describe("the per-lead path", () => {
  let handle: DatabaseHandle;
  let t: Tables;
  const VENDOR = vendorRow("vendor-a");
  const CREATED = Date.UTC(2026, 0, 1);
  beforeEach(() => {
    handle = openDatabase(":memory:");
    t = tablesOf(handle.db);
    now(t.vendors.insert(VENDOR));
  });
  afterEach(() => handle.close());

  test("reads each lead's final-stage answers and intake answers when it is decided alone", async () => {
    const phones = ["+12125550001", "+12125550002", "+12125550003", "+12125550004"];
    const leads = phones.map((phoneE164) => runNow(pendingLead(t, { vendorId: VENDOR.id, phoneE164, createdAt: CREATED, decideAfter: CREATED + 60_000 })));
    const expected = await arrangeFinalChecks(
      leads,
      async (script) => runNow(script(t)),
      async (leadId, json) => handle.sqlite.query("UPDATE leads SET check_answers = ? WHERE id = ?").run(json, leadId),
      CREATED + 1_000,
    );
    const due = now(t.leads.claimDue(CREATED + 60_000, 10, 1_000, "token"));
    const byId = new Map(due.map((lead) => [lead.id, lead]));
    const decided = leads.map((id) => runNow(decideNow(t, byId.get(id)!, NO_CERTIFICATE, FINAL_CHECKS_POLICY)));
    expect(decided.map((result) => (result?.status === "rejected" ? storedReasons(result.reasons) : null))).toEqual(expected);
  });
});
