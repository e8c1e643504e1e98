// `callbacks …` and the attempts in `leads show`, against a running service that delivers to the
// mock receiver on 127.0.0.1 with a retry schedule of milliseconds.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startMockReceiver, type MockReceiver } from "../../src/mock-receiver/index.ts";
import { validLead } from "../helpers/leads.ts";
import { post, startTestServer, type TestServer } from "../helpers/server.ts";
import { waitUntil } from "../helpers/wait.ts";
import { cli } from "../helpers/cli.ts";

let server: TestServer;
let receiver: MockReceiver;
beforeAll(async () => {
  server = await startTestServer({ holdPeriodMs: 50, workerPollIntervalMs: 20, callbackRetrySchedule: [20], allowPrivateCallbacks: true });
  receiver = startMockReceiver();
});
afterAll(async () => {
  await server.stop();
  await receiver.stop();
});

const callbacks = (...args: string[]) => cli(server.config.databasePath, "callbacks", ...args);
const callbackOf = (leadId: string) =>
  server.db.sqlite.query("SELECT id, status FROM callbacks WHERE lead_id = ?").get(leadId) as { id: string; status: string };

/** Posts a lead whose callback goes to `path` and waits until the callback is `status`. */
async function leadWithCallback(path: string, status: "dead" | "delivered"): Promise<string> {
  const answer = await post(`${server.url}/v1/postLead`, validLead({ call_back_url: `${receiver.url.origin}${path}` }), { authorization: server.auth });
  await waitUntil(() => callbackOf(answer.body.lead_id)?.status === status);
  return answer.body.lead_id;
}

let failing: string; // died after two 500s
let gone: string; // died at once on 410
beforeAll(async () => {
  receiver.setBehaviour({ path: "/failing", status: 500, body: "down for\nmaintenance" });
  receiver.setBehaviour({ path: "/gone", status: 410 });
  [failing, gone] = await Promise.all([leadWithCallback("/failing", "dead"), leadWithCallback("/gone", "dead")]);
});

test("leads show lists every attempt: time, status code, duration, error and the answer's start", async () => {
  const text = await cli(server.config.databasePath, "leads", "show", failing);
  expect(text.out).toMatch(/^Attempts \(2\)\n  #1  \d{4}-\S+Z  HTTP 500  \d+ ms  error: HTTP 500\n      answer body: down for\\nmaintenance\n  #2 /m);
  const detail = JSON.parse((await cli(server.config.databasePath, "leads", "show", failing, "--json")).out);
  expect(detail.callback).toMatchObject({ status: "dead", attempt_count: 2, last_error: "HTTP 500" });
  expect(detail.attempts).toEqual(
    [1, 2].map((n) => ({
      attempt_no: n,
      started_at: expect.stringMatching(/Z$/),
      status_code: 500,
      duration_ms: expect.any(Number),
      error: "HTTP 500",
      response_excerpt: "down for\nmaintenance",
    })),
  );
});

test("show ID (a callback id or its lead's id): the callback, every attempt and its lead's final result", async () => {
  const callbackId = callbackOf(failing).id;
  for (const id of [callbackId, failing]) {
    const shown = await callbacks("show", id);
    expect(shown.code).toBe(0);
    expect(shown.out).toStartWith(`Callback ${callbackId}\n`);
    expect(shown.out).toMatch(/^  status\s+dead$/m);
    expect(shown.out).toMatch(/^Attempts \(2\)\n  #1  \S+Z  HTTP 500  \d+ ms  error: HTTP 500\n      answer body: down for\\nmaintenance\n  #2 /m);
    expect(shown.out).toMatch(new RegExp(`\\nLead ${failing} \\(vendor vendor-a\\)\\n  accepted at \\S+Z: `));
  }
  const detail = JSON.parse((await callbacks("show", callbackId, "--json")).out);
  expect(detail.callback).toMatchObject({ id: callbackId, status: "dead", attempt_count: 2 });
  expect(detail.attempts).toHaveLength(2);
  expect(await callbacks("show", "msg_nope")).toEqual({ code: 2, out: "", err: "No such callback: msg_nope (give a callback id or its lead's id)\n" });
});

test("list: most recently changed first, filtered by status, as a table or JSON", async () => {
  const table = await callbacks("list", "--status", "dead");
  expect(table.code).toBe(0);
  expect(table.out).toMatch(/^UPDATED\s+ID\s+LEAD\s+VENDOR\s+STATUS\s+ATTEMPTS\s+NEXT ATTEMPT\s+LAST ERROR\s+URL$/m);
  expect(table.out).toMatch(
    new RegExp(`^\\S+Z\\s+${callbackOf(failing).id}\\s+${failing}\\s+vendor-a\\s+dead\\s+2\\s+-\\s+HTTP 500\\s+http://127.0.0.1:\\d+/failing$`, "m"),
  );
  const listed = JSON.parse((await callbacks("list", "--status", "dead", "--json")).out) as { lead_id: string; status: string }[];
  expect(listed.map((c) => c.lead_id).sort()).toEqual([failing, gone].sort());
  expect((await callbacks("list", "--status", "held")).out).toBe("No callbacks.\n");
});

test("replay ID (a callback id or its lead's id) sends a dead callback again, with the same webhook-id", async () => {
  receiver.resetBehaviour("/failing");
  const callbackId = callbackOf(failing).id;
  const replayed = await callbacks("replay", failing);
  expect(replayed).toMatchObject({ code: 0, err: "" });
  expect(replayed.out).toStartWith(`Queued callback ${callbackId} again;`);
  await waitUntil(() => callbackOf(failing).status === "delivered");
  expect(receiver.received("/failing").at(-1)!.headers["webhook-id"]).toBe(callbackId);
  expect(JSON.parse((await cli(server.config.databasePath, "leads", "show", failing, "--json")).out).attempts).toHaveLength(3);
  // Every attempt still counted: 2 before the replay, 1 since (the retry schedule restarted there).
  expect(JSON.parse((await callbacks("show", failing, "--json")).out).callback).toMatchObject({ attempt_count: 3, attempts_before_replay: 2 });
  // A delivered callback can be sent again too.
  expect((await callbacks("replay", callbackId)).code).toBe(0);
});

test("replay --dead [--since]: every dead callback, or those that died since a time; prints how many", async () => {
  receiver.resetBehaviour("/gone");
  expect(await callbacks("replay", "--dead", "--since", "2999-01-01T00:00:00Z")).toEqual({
    code: 0,
    out: "No dead callbacks that died since 2999-01-01T00:00:00.000Z; nothing was queued.\n",
    err: "",
  });
  const replayed = await callbacks("replay", "--dead", "--since", "1h");
  expect(replayed).toMatchObject({ code: 0, err: "" });
  expect(replayed.out).toMatch(/^Queued 1 dead callback that died since \S+Z again;/);
  await waitUntil(() => callbackOf(gone).status === "delivered");
  expect(await callbacks("replay", "--dead")).toEqual({ code: 0, out: "No dead callbacks; nothing was queued.\n", err: "" });
});

test("retry ID sends a pending callback now instead of at its scheduled retry; anything else is a clear error", async () => {
  const waiting = await leadWithCallback("/retry-now", "delivered");
  await server.rows("UPDATE callbacks SET status = 'pending', next_attempt_at = $1 WHERE lead_id = $2", Date.now() + 3_600_000, waiting);
  const before = receiver.received("/retry-now").length;
  const callbackId = callbackOf(waiting).id;
  expect(await callbacks("retry", callbackId)).toEqual({
    code: 0,
    out: `Callback ${callbackId} is due now; the running service sends it within its poll interval.\n`,
    err: "",
  });
  await waitUntil(() => callbackOf(waiting).status === "delivered");
  expect(receiver.received("/retry-now")).toHaveLength(before + 1);
  expect(await callbacks("retry", waiting)).toMatchObject({
    code: 2,
    err: `Callback ${callbackId} is delivered: only a pending callback can be retried (replay sends a dead or delivered one again).\n`,
  });
  expect(await callbacks("retry", "msg_nope")).toEqual({ code: 2, out: "", err: "No such callback: msg_nope (give a callback id or its lead's id)\n" });
});

test("replay: an unknown id, a callback still in the queue and bad arguments are errors with exit code 2", async () => {
  expect(await callbacks("replay", "msg_nope")).toEqual({ code: 2, out: "", err: "No such callback: msg_nope (give a callback id or its lead's id)\n" });
  const pending = await leadWithCallback("/later", "delivered");
  server.db.sqlite.run("UPDATE callbacks SET status = 'pending', next_attempt_at = ? WHERE lead_id = ?", [Date.now() + 3_600_000, pending]);
  expect(await callbacks("replay", pending)).toMatchObject({
    code: 2,
    err: expect.stringContaining("is pending: only dead or delivered callbacks can be replayed"),
  });
  expect(await callbacks("replay")).toMatchObject({ code: 2, err: expect.stringContaining("Give either a callback ID or --dead") });
  expect(await callbacks("replay", pending, "--dead")).toMatchObject({ code: 2, err: expect.stringContaining("Give either a callback ID or --dead") });
  expect(await callbacks("replay", pending, "--since", "1h")).toMatchObject({ code: 2, err: expect.stringContaining("--since goes with --dead") });
  expect(await callbacks("replay", "--dead", "--since", "yesterday")).toMatchObject({ code: 2, err: expect.stringContaining("--since must be a duration") });
});

test("paused lists each endpoint paused after the attempts of 5 callbacks failed in a row, and when it is tried again", async () => {
  expect(await callbacks("paused")).toEqual({ code: 0, out: "No callback endpoint is paused.\n", err: "" });
  receiver.setBehaviour({ path: "/down", status: 500 });
  const leads = await Promise.all(
    Array.from(
      { length: 5 },
      async () =>
        (await post(`${server.url}/v1/postLead`, validLead({ call_back_url: `${receiver.url.origin}/down` }), { authorization: server.auth })).body
          .lead_id as string,
    ),
  );
  await waitUntil(async () => (await callbacks("paused")).out.includes("/down"), 10_000, 50);
  const shown = await callbacks("paused");
  expect(shown.code).toBe(0);
  expect(shown.out).toMatch(/^VENDOR\s+ENDPOINT\s+FAILURES\s+PAUSED SINCE\s+TRIED AGAIN AT\s+LAST ERROR$/m);
  expect(shown.out).toMatch(/^vendor-a\s+http:\/\/127\.0\.0\.1:\d+\/down\s+5\s+\S+Z\s+\S+Z\s+HTTP 500$/m);
  expect(shown.out).toEndWith(
    "Then one callback goes as a probe: answered, the endpoint's waiting callbacks follow; failed, it is paused again for twice as long.\n",
  );
  const [paused] = JSON.parse((await callbacks("paused", "--json")).out);
  expect(paused).toEqual({
    vendor: "vendor-a",
    endpoint: `${receiver.url.origin}/down`,
    failures: 5,
    last_error: "HTTP 500",
    paused_at: expect.stringMatching(/Z$/),
    paused_until: expect.stringMatching(/Z$/),
  });
  expect(Date.parse(paused.paused_until) - Date.parse(paused.paused_at)).toBeGreaterThanOrEqual(5_000); // the first cooldown, at scale 1
  // None of them spent an attempt it did not make.
  const notSent = server.db.sqlite
    .query(
      `SELECT count(*) AS n FROM callback_attempts WHERE error LIKE 'Not sent%' AND callback_id IN (SELECT id FROM callbacks WHERE lead_id IN (${leads.map(() => "?").join(",")}))`,
    )
    .get(...leads);
  expect(notSent).toEqual({ n: 0 });
  // The five still wait for the cooldown's end (5 s): answered then, they are delivered, rather than
  // dying in the middle of a later test that counts the dead callbacks (on a busy machine it can
  // take that long to get there).
  receiver.resetBehaviour("/down");
});

test("discard ID acknowledges a dead callback, audited: it leaves the waiting count and replay --dead, and replay ID still sends it", async () => {
  // A server and database of its own: `replay --dead` must find no dead callback but the discarded
  // one, and on a busy machine the earlier tests' callbacks (the paused test's five) can still be
  // dying meanwhile (failed twice under CI's parallel load).
  const own = await startTestServer({ holdPeriodMs: 50, workerPollIntervalMs: 20, callbackRetrySchedule: [20], allowPrivateCallbacks: true });
  try {
    const callbacks = (...args: string[]) => cli(own.config.databasePath, "callbacks", ...args);
    const callbackOf = (leadId: string) =>
      own.db.sqlite.query("SELECT id, status FROM callbacks WHERE lead_id = ?").get(leadId) as { id: string; status: string };
    receiver.setBehaviour({ path: "/gone-for-good", status: 410 });
    const answer = await post(`${own.url}/v1/postLead`, validLead({ call_back_url: `${receiver.url.origin}/gone-for-good` }), { authorization: own.auth });
    const dead = answer.body.lead_id as string;
    await waitUntil(() => callbackOf(dead)?.status === "dead");
    const callbackId = callbackOf(dead).id;
    const discarded = await callbacks("discard", dead);
    expect(discarded).toEqual({
      code: 0,
      out: `Discarded dead callback ${callbackId}: it no longer counts as waiting; \`callbacks replay ${dead}\` still sends it again.\n`,
      err: "",
    });
    expect(own.db.sqlite.query("SELECT action, subject FROM audit_log WHERE action = 'callback.discard'").all()).toEqual([
      { action: "callback.discard", subject: dead },
    ]);
    expect((await callbacks("list", "--status", "dead")).out).toMatch(new RegExp(`${dead}\\s+vendor-a\\s+dead \\(discarded\\)\\s+1\\s`));
    expect(await callbacks("discard", callbackId)).toMatchObject({ code: 2, err: `Callback ${callbackId} was discarded already; nothing changed.\n` });
    expect((await callbacks("replay", "--dead")).out).toBe("No dead callbacks; nothing was queued.\n");
    receiver.resetBehaviour("/gone-for-good");
    expect((await callbacks("replay", dead)).code).toBe(0);
    await waitUntil(() => callbackOf(dead).status === "delivered");
    expect(await callbacks("discard", dead)).toMatchObject({ code: 2, err: `Callback ${callbackId} is delivered: only a dead callback can be discarded.\n` });
    expect(await callbacks("discard", "msg_nope")).toMatchObject({ code: 2, err: "No such callback: msg_nope (give a callback id or its lead's id)\n" });
  } finally {
    await own.stop();
  }
});
