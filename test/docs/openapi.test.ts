// The OpenAPI document at /swagger/json: every route, Basic auth on /v1, every status with an
// example in the contract's envelope, the callback, and the lead's rules (examples-answered.test.ts
// compares every example with the service's real answer).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { callbackPayload } from "../../src/callbacks/payload.ts";
import { defaultConfig } from "../../src/config/index.ts";
import { openDatabase } from "../../src/db/client.ts";
import { createApp } from "../../src/app.ts";
import { LEAD_ACCEPTED, LEAD_NOT_FOUND, LEAD_PENDING } from "../../src/contract/texts.ts";
import { EXAMPLE_LEAD, LEAD_FIELDS, RULE_KEYWORDS } from "../../src/intake/lead-schema.ts";
import { createLogger } from "../../src/log/index.ts";
import { createMetrics } from "../../src/metrics/index.ts";
import { expectEnvelopeShape, type EnvelopeFlag } from "../helpers/envelope.ts";
import { get, startTestServer, type TestServer } from "../helpers/server.ts";
import { createGroupCommitter } from "../../src/db/group-commit.ts";
import { sqliteBackend } from "../../src/backend/index.ts";

let server: TestServer;
let doc: any;

beforeAll(async () => {
  server = await startTestServer();
  doc = (await get(`${server.url}/swagger/json`)).body;
});
afterAll(() => server.stop());

const V1: [path: string, method: string, flag: EnvelopeFlag, statuses: number[]][] = [
  ["/v1/prePing", "post", "can_post_phone_bit", [200, 400, 401, 405, 413, 422, 429, 500, 503]],
  ["/v1/postLead", "post", "success_bit", [200, 400, 401, 405, 413, 422, 429, 500, 503]],
  ["/v1/test/prePing", "post", "can_post_phone_bit", [200, 400, 401, 405, 413, 422, 429, 500, 503]],
  ["/v1/test/postLead", "post", "success_bit", [200, 400, 401, 405, 413, 422, 429, 500, 503]],
  ["/v1/leads/{lead_id}", "get", "success_bit", [200, 401, 404, 405, 429, 500, 503]],
];

/** A response's examples: its single `example` or each of its named `examples`. */
function examplesOf(response: any): any[] {
  const media = response.content?.["application/json"];
  if (!media) return [];
  return media.example !== undefined ? [media.example] : Object.values(media.examples ?? {}).map((example: any) => example.value);
}

/** The single example, or the named one. */
const example = (response: any, name?: string) => {
  const media = response.content["application/json"];
  return name ? media.examples[name].value : media.example;
};

test("OpenAPI 3.1 with HTTP Basic as a security scheme", () => {
  expect(doc.openapi).toBe("3.1.0");
  expect(doc.components.securitySchemes.basicAuth).toMatchObject({ type: "http", scheme: "basic" });
});

test.each(V1)("%s %s: basicAuth and every status, each with an envelope example", (path, method, flag, statuses) => {
  const operation = doc.paths[path][method];
  expect(operation.security).toEqual([{ basicAuth: [] }]);
  expect(Object.keys(operation.responses).map(Number)).toEqual(statuses);
  for (const [status, response] of Object.entries<any>(operation.responses)) {
    expect(response.description).toBeTruthy();
    const examples = examplesOf(response);
    expect(examples.length).toBeGreaterThan(0);
    for (const body of examples) {
      expectEnvelopeShape(body, flag);
      if (status !== "200") expect(body[flag]).toBe(false);
    }
  }
});

test("postLead takes an optional Idempotency-Key header, shown as an example that Try it out does not pre-fill", () => {
  const key = doc.paths["/v1/postLead"].post.parameters.find((parameter: any) => parameter.name === "Idempotency-Key");
  expect(key).toMatchObject({ in: "header", required: false });
  // What Swagger UI's Try it out fills a parameter with (its parameter row's setDefaultValue, 5.x):
  // a key filled in there would be sent by every try, replaying an earlier answer or getting a 422.
  for (const prefilled of ["example", "examples", "content", "default", "schema.example", "schema.default"]) expect(key).not.toHaveProperty(prefilled);
  expect(key.description).toContain("`order-4711`");
});

/** Every `description` in the document, with where it is. */
function descriptions(node: unknown, at = "#"): [at: string, text: string][] {
  if (typeof node !== "object" || node === null) return [];
  return Object.entries(node).flatMap(([key, value]) =>
    key === "description" && typeof value === "string" ? [[`${at}/${key}`, value] as [string, string]] : descriptions(value, `${at}/${key}`),
  );
}

// Descriptions are CommonMark, and the page drops raw HTML: `<body>` written as text vanished from
// the signature formula. Rendering with and without raw HTML differs exactly where a `<word>` would.
test("no description has raw HTML: every <placeholder> is in a code span or escaped", () => {
  const literal = { noHtmlSpans: true, noHtmlBlocks: true };
  const all = descriptions(doc);
  expect(all.length).toBeGreaterThan(50);
  const swallowed = all.filter(([, text]) => Bun.markdown.html(text) !== Bun.markdown.html(text, literal));
  expect(swallowed).toEqual([]);
});

test("postLead describes the callback: both bodies as sent, and the Standard Webhooks headers", () => {
  const callback = doc.paths["/v1/postLead"].post.callbacks.finalResult["{$request.body#/call_back_url}"].post;
  const headers = callback.parameters.filter((p: any) => p.in === "header" && p.required).map((p: any) => p.name);
  expect(headers).toEqual(expect.arrayContaining(["webhook-id", "webhook-timestamp", "webhook-signature"]));

  const lead = { id: "0193a5c2-7b1e-7cc0-9a63-3f1d2e4b5a69", phoneE164: "+12125550123", vendorCampaignName: "spring-2026" };
  const sent = {
    accepted: JSON.parse(callbackPayload(lead, { status: "accepted" }, 0)),
    rejected: JSON.parse(callbackPayload(lead, { status: "rejected", reasons: ["Rejected by operator."] }, 0)),
  };
  for (const name of ["accepted", "rejected"] as const) {
    const documented = example(callback.requestBody, name);
    expect(Object.keys(documented).sort()).toEqual(Object.keys(sent[name]).sort());
    expect([documented.success_bit, documented.status]).toEqual([sent[name].success_bit, sent[name].status]);
  }
  expect(example(callback.requestBody, "accepted").message).toBe(sent.accepted.message);
  expect(Object.keys(callback.responses)).toEqual(expect.arrayContaining(["2XX", "410"]));
});

test("the vendors' page shows only the /v1 operations: health and metrics are the operators' (README)", () => {
  expect(Object.keys(doc.paths).sort()).toEqual(V1.map(([path]) => path).sort());
});

test("every route of the app is documented, with a unique operationId, a summary and described responses", () => {
  const database = openDatabase(":memory:");
  try {
    const app = createApp({
      config: { ...defaultConfig(), databasePath: ":memory:" },
      backend: sqliteBackend(database, createGroupCommitter(database.sqlite)),
      log: createLogger("silent"),
      metrics: createMetrics(),
    });
    const routes = app.routes.filter((route) => (route.hooks?.detail as { hide?: boolean } | undefined)?.hide !== true);
    const ids = new Set<string>();
    for (const route of routes) {
      const operation = doc.paths[route.path.replace(/:(\w+)/g, "{$1}")]?.[route.method.toLowerCase()];
      expect(operation, `${route.method} ${route.path}`).toBeDefined();
      expect(operation.summary).toBeTruthy();
      expect(ids.has(operation.operationId)).toBe(false);
      ids.add(operation.operationId);
      for (const response of Object.values<any>(operation.responses)) expect(response.description).toBeTruthy();
    }
  } finally {
    database.close();
  }
});

test("the lead lookup's examples use the service's texts", () => {
  const operation = doc.paths["/v1/leads/{lead_id}"].get;
  expect(example(operation.responses[200], "pending").message).toBe(LEAD_PENDING);
  expect(example(operation.responses[200], "accepted").message).toBe(LEAD_ACCEPTED);
  expect(example(operation.responses[404])).toEqual({ success_bit: false, message: [{ error: LEAD_NOT_FOUND }] });
});

test("the lead's field rules are in the documented schema (maxLength, pattern, format), not in prose only", () => {
  const properties = doc.components.schemas.LeadRequest.properties;
  for (const [name, field] of Object.entries(LEAD_FIELDS)) {
    for (const keyword of RULE_KEYWORDS) expect([name, keyword, properties[name][keyword]]).toEqual([name, keyword, field.schema[keyword]]);
  }
  expect([properties.customer_name.maxLength, properties.certificate_url.maxLength, properties.call_back_url.maxLength]).toEqual([255, 500, 2048]);
  expect(new RegExp(properties.zip.pattern).test("12345-6789")).toBe(true);
  expect(doc.paths["/v1/postLead"].post.requestBody.content["application/json"].example).toEqual(EXAMPLE_LEAD);
});
