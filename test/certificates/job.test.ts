// The certificate job (certificates/job.ts) with a fake TrustedForm on a SQLite store: at most
// `concurrency` requests at once (a pass claims no more and does not wait for them), each answer stored as it comes and counted, an unreachable
// answer asked again only when due, a URL on TrustedForm's host that is not a certificate settled
// without a request.
import { expect, test } from "bun:test";
import { createCertificateJob } from "../../src/certificates/job.ts";
import { evidenceFromAnswer, type TrustedFormVerifier } from "../../src/certificates/index.ts";
import { openDatabase } from "../../src/db/client.ts";
import { createLogger } from "../../src/log/index.ts";
import { sqliteTables, storeOn } from "../../src/store/sqlite.ts";
import { leadFields, now, vendorRow } from "../helpers/tables.ts";

const NOW = Date.UTC(2026, 0, 1);
const certificateUrl = (n: number) => `https://cert.trustedform.com/${String(n).padStart(40, "a")}`;

function setup(verify: TrustedFormVerifier, concurrency = 2) {
  const database = openDatabase(":memory:");
  const t = sqliteTables(database.db);
  t.vendors.insert(vendorRow("vendor-a"));
  const clock = { now: NOW };
  const answers: string[] = [];
  const job = createCertificateJob({
    store: storeOn(database.db) as never,
    clock: () => clock.now,
    log: createLogger("silent"),
    verify,
    concurrency,
    timeoutMs: 1_000,
    onAnswer: (outcome) => answers.push(outcome),
  });
  const lead = (url: string) => {
    const id = Bun.randomUUIDv7();
    t.leads.insertPending({ ...leadFields(), certificateUrl: url }, { id, vendorId: "vendor-a", rawRequest: "{}", createdAt: NOW, decideAfter: NOW + 60_000 });
    return id;
  };
  return { t, job, clock, answers, lead };
}

const verified = evidenceFromAnswer({ kind: "http", status: 200, truncated: false, body: JSON.stringify({ outcome: "success" }) });
const down = evidenceFromAnswer({ kind: "http", status: 503, truncated: false, body: "" });

test("at most `concurrency` requests in flight; every answer stored and counted", async () => {
  let inFlight = 0;
  let most = 0;
  const { t, job, answers, lead } = setup(async () => {
    most = Math.max(most, ++inFlight);
    await Bun.sleep(10);
    inFlight--;
    return verified;
  }, 2);
  const ids = Array.from({ length: 6 }, (_, i) => lead(certificateUrl(i)));
  // A pass claims only what the flight has room for, and does not wait for the answers.
  expect(await job.runOnce()).toBe(2);
  expect(await job.runOnce()).toBe(0);
  for (let passes = 0; answers.length < 6 && passes < 100; passes++) {
    await job.runOnce();
    await Bun.sleep(5);
  }
  await job.settled();
  expect(most).toBe(2);
  expect(answers).toEqual(Array(6).fill("verified"));
  expect(now(t.findings.of(ids)).map((f) => f.outcome)).toEqual(Array(6).fill("verified"));
  expect(await job.runOnce()).toBe(0);
});

test("an unreachable answer is asked again when its backoff is over, not before", async () => {
  let calls = 0;
  const { job, clock, lead, t } = setup(async () => (++calls === 1 ? down : verified));
  const id = lead(certificateUrl(1));
  await job.runOnce();
  await job.settled();
  expect(t.findings.of([id])).toMatchObject([{ outcome: "unreachable", attempts: 1 }]);
  expect(await job.runOnce()).toBe(0);
  clock.now += 500;
  expect(await job.runOnce()).toBe(1);
  await job.settled();
  expect(t.findings.of([id])).toMatchObject([{ outcome: "verified", attempts: 2 }]);
});

test("a URL on TrustedForm's host that is not a certificate is settled not verified, without a request", async () => {
  let calls = 0;
  const { job, lead, t } = setup(async () => (calls++, verified));
  const id = lead("https://cert.trustedform.com/short?x=1");
  expect(await job.runOnce()).toBe(1);
  expect(calls).toBe(0);
  expect(t.findings.of([id])).toMatchObject([{ outcome: "not_verified", reason: "not a valid TrustedForm certificate URL", attempts: 0 }]);
  expect(await job.runOnce()).toBe(0);
});
