// Every example the OpenAPI document gives for a status of a /v1 operation is what the service
// answers: for each one a request that produces it is sent to a running server, started with a
// non-default body limit, and the answer compared with the documented example (docs/contract.md §1, §9).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { EXAMPLE_LEAD_ID } from "../../src/docs/examples.ts";
import { importPolicy } from "../../src/policy-in-force/manage.ts";
import { uniquePhone, validLead } from "../helpers/leads.ts";
import { basicAuth, startTestServer, VENDOR, type TestServer } from "../helpers/server.ts";

const BODY_LIMIT = 4_096;

let server: TestServer;
/** Its vendor may send one request at a time (burst 1), for the 429s. */
let throttled: TestServer;
let doc: any;

beforeAll(async () => {
  [server, throttled] = await Promise.all([
    startTestServer({ bodyLimitBytes: BODY_LIMIT, holdPeriodMs: 1_000 }),
    startTestServer({ rateLimitPerSecond: 1, rateLimitBurst: 1 }),
  ]);
  doc = await (await fetch(`${server.url}/swagger/json`)).json();
  await installExamplePolicy();
});

/** Campaigns the example policy's entries are scoped to, so that it refuses nothing else here. */
const RULED_CAMPAIGN = "docs-ruled";
const CLOSED_CAMPAIGN = "docs-closed";
const CAPPED_CAMPAIGN = "docs-capped";

/** A policy whose refusals are the documented ones, in force once prePing refuses its closed campaign. */
async function installExamplePolicy(): Promise<void> {
  const policy = {
    rules: [
      { name: "states-served", campaigns: [RULED_CAMPAIGN], require: { field: "state", op: "in", value: ["CA", "NY"] }, reason: "State not served: {state}" },
      { name: "utility-served", campaigns: [RULED_CAMPAIGN], require: { field: "utility", op: "equals", value: "PG&E" } },
    ],
    schedules: [{ name: "call-center", campaigns: [CLOSED_CAMPAIGN], open: {} }],
    // A max of 0: full in every window.
    caps: [{ name: "acme-daily", campaigns: [CAPPED_CAMPAIGN], counts: "leads", max: 0, per: "day" }],
  };
  const outcome = await importPolicy(server.store, JSON.stringify(policy), "cli:test");
  expect(outcome.kind).toBe("imported");
  for (let i = 0; (await prePing({ phone_number: uniquePhone(), vendor_campaign_name: CLOSED_CAMPAIGN })).status !== 422; i++) {
    if (i > 100) throw new Error("the example policy was not applied within 5 s");
    await Bun.sleep(50);
  }
}
afterAll(() => Promise.all([server.stop(), throttled.stop()]));

interface Answer {
  status: number;
  body: any;
}

async function send(
  target: TestServer,
  method: string,
  path: string,
  body?: string | Uint8Array | object,
  headers: Record<string, string> = { authorization: target.auth },
): Promise<Answer> {
  const payload = body === undefined || typeof body === "string" || body instanceof Uint8Array ? body : JSON.stringify(body);
  const response = await fetch(`${target.url}${path}`, { method, headers, body: payload });
  return { status: response.status, body: await response.json() };
}

const none = {};
const postLead = (body: string | Uint8Array | object, headers?: Record<string, string>) => send(server, "POST", "/v1/postLead", body, headers);
const prePing = (body: string | Uint8Array | object, headers?: Record<string, string>) => send(server, "POST", "/v1/prePing", body, headers);
/** A lead's id in an answer is the example's: the id differs per lead, its place and form do not. */
const withExampleId = (answer: Answer): Answer =>
  typeof answer.body.lead_id === "string" ? { ...answer, body: { ...answer.body, lead_id: EXAMPLE_LEAD_ID } } : answer;

async function acceptedLead(overrides: Record<string, unknown> = {}): Promise<{ phone: string; leadId: string }> {
  const phone = uniquePhone();
  const answer = await postLead(validLead({ phone_number: phone, ...overrides }));
  expect(answer.status).toBe(200);
  return { phone, leadId: answer.body.lead_id };
}

async function untilStatus(leadId: string, status: string): Promise<Answer> {
  for (let i = 0; i < 100; i++) {
    const answer = await send(server, "GET", `/v1/leads/${leadId}`);
    if (answer.body.status === status) return answer;
    await Bun.sleep(100);
  }
  throw new Error(`lead ${leadId} never became ${status}`);
}

/** A vendor's second request at once on the throttled server. */
async function overRateLimit(method: string, path: string, body?: object): Promise<Answer> {
  await send(throttled, method, path, body);
  return send(throttled, method, path, body);
}

/** Wrong passwords from one address until they are throttled (the budget is 20, then 1 per 3 s). */
async function overFailedCredentials(method: string, path: string, body?: object): Promise<Answer> {
  const wrong = { authorization: basicAuth(VENDOR.name, "not-the-password") };
  for (let i = 0; i < 40; i++) {
    const answer = await send(throttled, method, path, body, wrong);
    if (answer.status === 429) return answer;
  }
  throw new Error("failed credentials were never throttled");
}

const NOT_UTF8 = new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x7d]);
/** A body whose extra_data opens the 33rd level. */
const TOO_DEEP = `{"extra_data":${"[".repeat(32)}${"]".repeat(32)}}`;
const oversized = (flag: string) => JSON.stringify({ [flag]: "x".repeat(BODY_LIMIT) });

/** A request that produces each documented example, by "<path> <method> <status> <example name>". */
/**
 * The producers of prePing's and postLead's examples at `paths`: the real routes, or their /v1/test/
 * twins (docs/contract.md §12), which answer alike. A number is blocked by a real lead (acceptedLead):
 * a test lead claims none.
 */
function intakeProducers(paths: { prePing: string; postLead: string }): Record<string, () => Promise<Answer>> {
  const ping = (body: string | Uint8Array | object, headers?: Record<string, string>) => send(server, "POST", paths.prePing, body, headers);
  const post = (body: string | Uint8Array | object, headers?: Record<string, string>) => send(server, "POST", paths.postLead, body, headers);
  return {
    [`${paths.prePing} post 200 `]: () => ping({ phone_number: uniquePhone() }),
    [`${paths.prePing} post 400 invalidCharacters`]: () => ping({ phone_number: "212-555-01x3" }),
    [`${paths.prePing} post 400 invalidNumber`]: () => ping({ phone_number: "555-0123" }),
    [`${paths.prePing} post 400 missing`]: () => ping({}),
    [`${paths.prePing} post 400 notUtf8`]: () => ping(NOT_UTF8),
    [`${paths.prePing} post 400 tooDeep`]: () => ping(TOO_DEEP),
    [`${paths.prePing} post 400 malformedJson`]: () => ping("{"),
    [`${paths.prePing} post 400 notAnObject`]: () => ping("[]"),
    [`${paths.prePing} post 401 `]: () => ping({ phone_number: uniquePhone() }, none),
    [`${paths.prePing} post 405 `]: () => send(server, "GET", paths.prePing),
    [`${paths.prePing} post 413 `]: () => ping(oversized("phone_number")),
    [`${paths.prePing} post 422 phoneBlocked`]: async () => ping({ phone_number: (await acceptedLead()).phone }),
    [`${paths.prePing} post 422 policySchedule`]: () => ping({ phone_number: uniquePhone(), vendor_campaign_name: CLOSED_CAMPAIGN }),
    [`${paths.prePing} post 422 policyCap`]: () => ping({ phone_number: uniquePhone(), vendor_campaign_name: CAPPED_CAMPAIGN }),
    [`${paths.prePing} post 429 rateLimit`]: () => overRateLimit("POST", paths.prePing, { phone_number: uniquePhone() }),
    [`${paths.prePing} post 429 failedCredentials`]: () => overFailedCredentials("POST", paths.prePing, { phone_number: uniquePhone() }),

    [`${paths.postLead} post 200 `]: async () => withExampleId(await post(validLead())),
    [`${paths.postLead} post 400 invalidFields`]: () => {
      const { email: _email, ...withoutEmail } = validLead({ state: "XX" });
      return post(withoutEmail);
    },
    [`${paths.postLead} post 400 missingCertificate`]: () => {
      const { certificate_url: _url, ...withoutCertificate } = validLead();
      return post(withoutCertificate);
    },
    [`${paths.postLead} post 400 notUtf8`]: () => post(NOT_UTF8),
    [`${paths.postLead} post 400 tooDeep`]: () => post(TOO_DEEP),
    [`${paths.postLead} post 400 malformedJson`]: () => post("{"),
    [`${paths.postLead} post 400 notAnObject`]: () => post("[]"),
    [`${paths.postLead} post 401 `]: () => post(validLead(), none),
    [`${paths.postLead} post 405 `]: () => send(server, "GET", paths.postLead),
    [`${paths.postLead} post 413 `]: () => post(oversized("customer_name")),
    [`${paths.postLead} post 422 phoneBlocked`]: async () => post(validLead({ phone_number: (await acceptedLead()).phone, customer_name: "Someone Else" })),
    [`${paths.postLead} post 422 idempotencyConflict`]: async () => {
      const key = { authorization: server.auth, "idempotency-key": `examples-${crypto.randomUUID()}` };
      await post(validLead(), key);
      return post(validLead(), key);
    },
    [`${paths.postLead} post 422 policyRules`]: () => post(validLead({ vendor_campaign_name: RULED_CAMPAIGN, state: "TX" })),
    [`${paths.postLead} post 422 policySchedule`]: () => post(validLead({ vendor_campaign_name: CLOSED_CAMPAIGN })),
    [`${paths.postLead} post 422 policyCap`]: () => post(validLead({ vendor_campaign_name: CAPPED_CAMPAIGN })),
    [`${paths.postLead} post 429 rateLimit`]: () => overRateLimit("POST", paths.postLead, validLead()),
    [`${paths.postLead} post 429 failedCredentials`]: () => overFailedCredentials("POST", paths.postLead, validLead()),
  };
}

const PRODUCE: Record<string, () => Promise<Answer>> = {
  ...intakeProducers({ prePing: "/v1/prePing", postLead: "/v1/postLead" }),
  ...intakeProducers({ prePing: "/v1/test/prePing", postLead: "/v1/test/postLead" }),

  "/v1/leads/{lead_id} get 200 pending": async () => withExampleId(await send(server, "GET", `/v1/leads/${(await acceptedLead()).leadId}`)),
  "/v1/leads/{lead_id} get 200 accepted": async () => withExampleId(await untilStatus((await acceptedLead()).leadId, "accepted")),
  "/v1/leads/{lead_id} get 404 ": () => send(server, "GET", `/v1/leads/${EXAMPLE_LEAD_ID}`),
  "/v1/leads/{lead_id} get 401 ": () => send(server, "GET", `/v1/leads/${EXAMPLE_LEAD_ID}`, undefined, none),
  "/v1/leads/{lead_id} get 405 ": () => send(server, "DELETE", `/v1/leads/${EXAMPLE_LEAD_ID}`),
  "/v1/leads/{lead_id} get 429 rateLimit": () => overRateLimit("GET", `/v1/leads/${EXAMPLE_LEAD_ID}`),
  "/v1/leads/{lead_id} get 429 failedCredentials": () => overFailedCredentials("GET", `/v1/leads/${EXAMPLE_LEAD_ID}`),
};

/**
 * Examples no request from outside can bring about; each is asserted elsewhere (the test named).
 * 500 and 503: test/e2e/envelope.test.ts and disk-full.test.ts; a rejected lead: test/e2e/callbacks.
 */
const NOT_PRODUCIBLE_HERE = new Set([
  ...["/v1/prePing post", "/v1/postLead post", "/v1/test/prePing post", "/v1/test/postLead post", "/v1/leads/{lead_id} get"].flatMap((operation) => [
    `${operation} 500 `,
    `${operation} 503 busy`,
    `${operation} 503 shuttingDown`,
  ]),
  "/v1/leads/{lead_id} get 200 rejected",
]);

/** Every documented JSON example of every /v1 operation, by its key in PRODUCE. */
function documentedExamples(): [key: string, example: Answer][] {
  return Object.entries<any>(doc.paths)
    .filter(([path]) => path.startsWith("/v1/"))
    .flatMap(([path, operations]) =>
      Object.entries<any>(operations).flatMap(([method, operation]) =>
        Object.entries<any>(operation.responses).flatMap(([status, response]) => {
          const media = response.content?.["application/json"];
          if (!media) return [];
          const named: [string, unknown][] =
            media.example !== undefined ? [["", media.example]] : Object.entries<any>(media.examples).map(([name, example]) => [name, example.value]);
          return named.map(([name, body]): [string, Answer] => [`${path} ${method} ${status} ${name}`, { status: Number(status), body }]);
        }),
      ),
    );
}

test("every documented example of a /v1 status is produced here or named as not producible from outside", () => {
  const documented = documentedExamples().map(([key]) => key);
  expect(documented.length).toBeGreaterThan(30);
  expect(documented.filter((key) => !(key in PRODUCE) && !NOT_PRODUCIBLE_HERE.has(key))).toEqual([]);
  expect(Object.keys(PRODUCE).filter((key) => !documented.includes(key))).toEqual([]);
});

test("the documented 413 names the running body limit", () => {
  const example = doc.paths["/v1/postLead"].post.responses[413].content["application/json"].example;
  expect(example.message).toEqual([{ error: `Request body exceeds ${BODY_LIMIT} bytes` }]);
});

test("the service answers every documented example: status and body", async () => {
  const answered: [string, Answer][] = [];
  for (const [key, _example] of documentedExamples()) {
    const produce = PRODUCE[key];
    if (produce) answered.push([key, await produce()]);
  }
  const documented = new Map(documentedExamples());
  for (const [key, answer] of answered) expect([key, answer]).toEqual([key, documented.get(key)!]);
});
