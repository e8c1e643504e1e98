// The final-stage checks job (checks/final-job.ts) with one check's service hanging, on SQLite with a
// fake runner: a pass starts each check's requests and returns without waiting for them, so the
// other check's leads are asked and answered meanwhile, new leads included (docs/contract.md §11: a
// slow or dead service must not slow other checks); the hanging check keeps at most `concurrency`
// requests in flight and never asks about a lead twice at once.
import { expect, test } from "bun:test";
import type { CompiledCheck } from "../../src/checks/entry.ts";
import { createFinalChecksJob } from "../../src/checks/final-job.ts";
import type { CheckResult, CheckRunner } from "../../src/checks/run.ts";
import { openDatabase } from "../../src/db/client.ts";
import { createLogger } from "../../src/log/index.ts";
import { compilePolicy } from "../../src/policy/index.ts";
import { sqliteTables, storeOn } from "../../src/store/sqlite.ts";
import { leadFields, now, vendorRow } from "../helpers/tables.ts";
import { waitUntil } from "../helpers/wait.ts";

const NOW = Date.UTC(2026, 0, 1);
const POLICY = compilePolicy({
  checks: [
    { name: "slow", stage: "final", url: "https://slow.example.com/", timeout_ms: 30_000, send: ["phone_number"] },
    { name: "fast", stage: "final", url: "https://fast.example.com/", on_error: "reject", send: ["phone_number"] },
  ],
});

/** A pass, or "hangs" when it has not ended within 200 ms. */
const pass = (job: { runOnce(): Promise<number> }) => Promise.race([job.runOnce(), Bun.sleep(200).then(() => "hangs" as const)]);

test("a hanging check's service holds back no other check: its leads are asked and answered, new ones too", async () => {
  const database = openDatabase(":memory:");
  const t = sqliteTables(database.db);
  t.vendors.insert(vendorRow("vendor-a"));
  const asked: string[] = [];
  const hanging: (() => void)[] = [];
  const runner: CheckRunner = {
    async run(checks: readonly CompiledCheck[], _facts, leadId) {
      const check = checks[0]!;
      asked.push(`${check.name}:${leadId}`);
      const result: CheckResult = { check, answer: { outcome: "fail", reason: "Listed" }, source: "request", durationMs: 1 };
      if (check.name === "slow") await new Promise<void>((resolve) => hanging.push(resolve));
      return [result];
    },
    forget() {},
  };
  const job = createFinalChecksJob({
    store: storeOn(database.db) as never,
    clock: () => NOW,
    log: createLogger("silent"),
    runner,
    policy: { current: () => POLICY },
    concurrency: 2,
    onResult: () => {},
  });
  let phones = 0;
  const lead = () => {
    const id = Bun.randomUUIDv7();
    t.leads.insertPending(leadFields(`+1212555${String(++phones).padStart(4, "0")}`), {
      id,
      vendorId: "vendor-a",
      rawRequest: "{}",
      createdAt: NOW,
      decideAfter: NOW + 5_000,
    });
    return id;
  };
  const fastAnswer = (leadId: string) => now(t.findings.of([leadId], "check")).find((finding) => finding.name === "fast")?.outcome;

  const ids = [lead(), lead(), lead()];
  // Each check claims as many leads as it has room for (2); the pass ends while "slow" hangs.
  expect(await pass(job)).toBe(4);
  await waitUntil(() => ids.slice(0, 2).every((id) => fastAnswer(id) === "fail"), 2_000);
  // The next passes: "fast" asks the third lead and one posted meanwhile; "slow" has no room.
  const later = lead();
  expect(await pass(job)).toBe(2);
  await waitUntil(() => [ids[2]!, later].every((id) => fastAnswer(id) === "fail"), 2_000);
  expect(await pass(job)).toBe(0);
  expect(asked.filter((entry) => entry.startsWith("slow:"))).toHaveLength(2);
  expect(asked.filter((entry) => entry.startsWith("fast:")).sort()).toEqual([...ids, later].map((id) => `fast:${id}`).sort());
  // "slow" answers: its places are free again, and its answers stored.
  for (const end of hanging.splice(0)) end();
  await job.settled();
  expect(await pass(job)).toBe(2);
  for (const end of hanging.splice(0)) end();
  await job.settled();
  const slow = now(t.findings.of([...ids, later], "check")).filter((finding) => finding.name === "slow");
  expect(slow.map((finding) => finding.outcome)).toEqual(["fail", "fail", "fail", "fail"]);
  await job.stop();
});
