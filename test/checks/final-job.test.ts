// The final-stage checks job (checks/final-job.ts) with a fake runner on a SQLite store: each
// final-stage check asks the leads in its scope with their id, an answer is stored as it comes and
// counted, an error asked again only when its next try is due (hold/retry.ts), a pass never again,
// and a policy without final-stage checks costs nothing.
import { expect, test } from "bun:test";
import type { CompiledCheck } from "../../src/checks/entry.ts";
import { createFinalChecksJob } from "../../src/checks/final-job.ts";
import type { CheckAnswer } from "../../src/checks/send.ts";
import type { CheckRunner } from "../../src/checks/run.ts";
import { openDatabase } from "../../src/db/client.ts";
import { RETRY_FIRST_MS } from "../../src/hold/retry.ts";
import { createLogger } from "../../src/log/index.ts";
import { compilePolicy } from "../../src/policy/index.ts";
import { sqliteTables, storeOn } from "../../src/store/sqlite.ts";
import { leadFields, now, vendorRow } from "../helpers/tables.ts";

const NOW = Date.UTC(2026, 0, 1);
const POLICY = compilePolicy({
  checks: [
    { name: "intake-only", url: "https://a.example.com/" },
    { name: "dnc", stage: "final", url: "https://dnc.example.com/", campaigns: ["solar"], send: ["phone_number"] },
  ],
});

function setup(policy = POLICY) {
  const database = openDatabase(":memory:");
  const t = sqliteTables(database.db);
  t.vendors.insert(vendorRow("vendor-a"));
  const clock = { now: NOW };
  const asked: { check: string; leadId: string | undefined; phone: string | undefined }[] = [];
  const answers: Record<string, CheckAnswer> = {};
  const runner: CheckRunner = {
    async run(checks: readonly CompiledCheck[], facts, leadId) {
      return checks.map((check) => {
        asked.push({ check: check.name, leadId, phone: facts.lead.phoneE164 });
        return { check, answer: answers[leadId!] ?? { outcome: "pass", reason: "clean" }, source: "request" as const, durationMs: 3 };
      });
    },
    forget() {},
  };
  const results: string[] = [];
  const job = createFinalChecksJob({
    store: storeOn(database.db) as never,
    clock: () => clock.now,
    log: createLogger("silent"),
    runner,
    policy: { current: () => policy },
    concurrency: 4,
    onResult: (result) => results.push(`${result.check.name}:${result.answer.outcome}`),
  });
  let phones = 0;
  const lead = (campaign: string) => {
    const id = Bun.randomUUIDv7();
    const fields = { ...leadFields(`+1212555${String(++phones).padStart(4, "0")}`), vendorCampaignName: campaign };
    t.leads.insertPending(fields, { id, vendorId: "vendor-a", rawRequest: "{}", createdAt: NOW, decideAfter: NOW + 60_000 });
    return id;
  };
  const finding = (leadId: string) => now(t.findings.of([leadId], "check"))[0];
  return { job, clock, asked, answers, results, lead, finding };
}

test("asks each lead in the check's scope once with its id, and stores the answer", async () => {
  const { job, asked, results, lead, finding } = setup();
  const inScope = lead("Solar");
  lead("wind");
  expect(await job.runOnce()).toBe(1);
  expect(asked).toEqual([{ check: "dnc", leadId: inScope, phone: "+12125550001" }]);
  expect(results).toEqual(["dnc:pass"]);
  expect(finding(inScope)).toMatchObject({ name: "dnc", outcome: "pass", reason: "clean", attempts: 1 });
  expect(await job.runOnce()).toBe(0);
});

test("an error is asked again once its next try is due, and then settles", async () => {
  const { job, clock, answers, asked, lead, finding } = setup();
  const id = lead("solar");
  answers[id] = { outcome: "error", error: "HTTP 503" };
  expect(await job.runOnce()).toBe(1);
  expect(finding(id)).toMatchObject({ outcome: "error", reason: null, nextAt: NOW + RETRY_FIRST_MS });
  clock.now = NOW + RETRY_FIRST_MS - 1;
  expect(await job.runOnce()).toBe(0);
  clock.now = NOW + RETRY_FIRST_MS;
  answers[id] = { outcome: "fail", reason: "Listed" };
  expect(await job.runOnce()).toBe(1);
  expect(finding(id)).toMatchObject({ outcome: "fail", reason: "Listed", attempts: 2 });
  expect(asked.map((entry) => entry.leadId)).toEqual([id, id]);
});

test("a policy without final-stage checks asks nothing", async () => {
  const { job, asked, lead } = setup(compilePolicy({ checks: [{ name: "intake-only", url: "https://a.example.com/" }] }));
  lead("solar");
  expect(await job.runOnce()).toBe(0);
  expect(asked).toEqual([]);
});
