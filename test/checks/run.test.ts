// Running a lead's checks (src/checks/run.ts), client injected: all at once, the whole wait bounded by
// the longest timeout_ms whatever a service does, answers cached per check and phone (errors not),
// and a check that keeps failing paused without slowing the others.
import { expect, test } from "bun:test";
import { FAILURES_TO_OPEN } from "../../src/callbacks/endpoints.ts";
import { createCheckRunner, type HttpClient } from "../../src/checks/index.ts";
import { answer, check, fakeClient, hang, lead, SECRET } from "./fixtures.ts";

const runner = (client: HttpClient, clock = () => Date.now()) => createCheckRunner({ secret: () => SECRET, clock, allowPrivate: false, client });
const checkNamed = (sent: { body: unknown }) => (sent.body as { check: string }).check;

test("a lead's checks are asked at once, and their results come back in the checks' order", async () => {
  const started: string[] = [];
  let inFlight = 0;
  let most = 0;
  const { client } = fakeClient(async (sent) => {
    started.push(checkNamed(sent));
    most = Math.max(most, ++inFlight);
    await Bun.sleep(30);
    inFlight--;
    return answer({ outcome: checkNamed(sent) === "b" ? "fail" : "pass", reason: checkNamed(sent) });
  });
  const results = await runner(client).run([check({ name: "a" }), check({ name: "b" }), check({ name: "c" })], lead());
  expect(most).toBe(3);
  expect(results.map((result) => [result.check.name, result.answer.outcome, result.source])).toEqual([
    ["a", "pass", "request"],
    ["b", "fail", "request"],
    ["c", "pass", "request"],
  ]);
});

test("the whole wait is bounded by the longest timeout: services that hang give timeout errors, each at its own timeout", async () => {
  const { client } = fakeClient((sent) => hang(sent.cancel));
  const started = performance.now();
  const results = await runner(client).run([check({ name: "short", timeout_ms: 50 }), check({ name: "long", timeout_ms: 150 })], lead());
  const elapsed = performance.now() - started;
  expect(results.map((result) => result.answer)).toEqual([
    { outcome: "error", error: "timed out after 50 ms" },
    { outcome: "error", error: "timed out after 150 ms" },
  ]);
  expect(elapsed).toBeGreaterThanOrEqual(145);
  // Generous: only a wait for the sum, or no bound at all, would come near it.
  expect(elapsed).toBeLessThan(1_000);
});

test("a client that ignores the abort still cannot hold the lead past the timeout", async () => {
  const { client } = fakeClient(() => new Promise<Response>(() => {}));
  const results = await runner(client).run([check({ timeout_ms: 30 })], lead());
  expect(results[0]?.answer).toEqual({ outcome: "error", error: "timed out after 30 ms" });
});

test("with `cache`, a phone's answer is reused for the check's duration: the second lead with that number makes no request", async () => {
  let now = 1_000_000;
  const { client, sent } = fakeClient(() => answer({ outcome: "fail", reason: "Known litigator" }));
  const run = runner(client, () => now);
  const cached = check({ cache: "1h" });
  expect((await run.run([cached], lead()))[0]).toMatchObject({ source: "request", answer: { outcome: "fail", reason: "Known litigator" } });
  expect((await run.run([cached], lead()))[0]).toMatchObject({ source: "cache", durationMs: 0, answer: { outcome: "fail", reason: "Known litigator" } });
  expect(sent).toHaveLength(1);
  await run.run([cached], lead("+12125550124"));
  expect(sent).toHaveLength(2);
  now += 3_600_000;
  await run.run([cached], lead());
  expect(sent).toHaveLength(3);
  // Without `cache` every lead asks.
  await run.run([check()], lead());
  await run.run([check()], lead());
  expect(sent).toHaveLength(5);
});

test("an error is not cached: the next lead asks again", async () => {
  let status = 500;
  const { client, sent } = fakeClient(() => answer({ outcome: "pass" }, status));
  const run = runner(client);
  const cached = check({ cache: "1h" });
  expect((await run.run([cached], lead()))[0]?.answer.outcome).toBe("error");
  status = 200;
  expect((await run.run([cached], lead()))[0]?.answer.outcome).toBe("pass");
  expect(sent).toHaveLength(2);
});

test("a check that keeps failing is paused: leads get its error at once without a request, while another check is still asked", async () => {
  const { client, sent } = fakeClient((request) => (checkNamed(request) === "dead" ? answer({}, 503) : answer({ outcome: "pass" })));
  const run = runner(client);
  const checks = [check({ name: "dead", on_error: "reject" }), check({ name: "alive" })];
  for (let i = 0; i < FAILURES_TO_OPEN; i++) await run.run(checks, lead());
  const before = sent.length;
  const [dead, alive] = await run.run(checks, lead());
  expect(dead).toMatchObject({ source: "paused", durationMs: 0, answer: { outcome: "error" } });
  expect(alive).toMatchObject({ source: "request", answer: { outcome: "pass" } });
  expect(sent.slice(before).map(checkNamed)).toEqual(["alive"]);
});

test("a malformed secret is an error for the lead (on_error decides), not a thrown exception", async () => {
  const { client, sent } = fakeClient(() => answer({ outcome: "pass" }));
  const run = createCheckRunner({ secret: () => "not-a-secret", clock: Date.now, allowPrivate: false, client });
  const [result] = await run.run([check()], lead());
  expect(result?.answer).toMatchObject({ outcome: "error", error: expect.stringContaining("not signed") });
  expect(sent).toHaveLength(0);
});

test("a check's host is looked up once for many leads (address.ts keeps it), and each request still goes to the address checked", async () => {
  let lookups = 0;
  const lookup = async () => {
    lookups++;
    return [{ address: "93.184.216.34", family: 4 }];
  };
  const { client, sent } = fakeClient(() => answer({ outcome: "pass" }));
  const run = createCheckRunner({ secret: () => SECRET, clock: () => Date.now(), allowPrivate: false, client, lookup });
  const named = check({ url: "https://scrub.example/check" });
  for (const phone of ["+12125550123", "+12125550124", "+12125550125"]) await run.run([named], lead(phone));
  expect(lookups).toBe(1);
  expect(sent.map((request) => [request.target.address, request.target.head])).toEqual(
    Array(3).fill(["93.184.216.34", "POST /check HTTP/1.1\r\nhost: scrub.example\r\n"]),
  );
  run.forget();
  await run.run([named], lead());
  expect(lookups).toBe(2);
});
