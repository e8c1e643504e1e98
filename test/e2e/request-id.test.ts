// The request id (X-Request-Id) and the request's log line: every answer carries the id, a sane
// incoming one is kept and a hostile one replaced, and the line of each request says its vendor,
// lead, outcome and reason, under that id. The real server, in-process on SQLite, its log captured.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { defaultConfig, type Config } from "../../src/config/index.ts";
import { openDatabase } from "../../src/db/client.ts";
import { PHONE_BLOCKED } from "../../src/contract/texts.ts";
import { REQUEST_ID_RULE } from "../../src/http/request-id.ts";
import { createLogger } from "../../src/log/index.ts";
import { startServer } from "../../src/server.ts";
import { postLead, prePing } from "../helpers/api.ts";
import { validLead } from "../helpers/leads.ts";
import { exchange, rawRequest } from "../helpers/raw-http.ts";
import { basicAuth, tempDatabasePath, VENDOR } from "../helpers/server.ts";

interface LoggedServer {
  url: string;
  logs: Record<string, unknown>[];
  /** The log line of the request answered with this id. */
  lineOf(requestId: string | null): Record<string, unknown> | undefined;
  databasePath: string;
  stop(): Promise<unknown>;
}

async function startLogged(overrides: Partial<Config> = {}): Promise<LoggedServer> {
  const temp = tempDatabasePath();
  const logs: Record<string, unknown>[] = [];
  const config: Config = {
    ...defaultConfig(),
    host: "127.0.0.1",
    port: 0,
    databasePath: temp.path,
    bootstrapVendor: VENDOR,
    worker: false,
    shutdownDrainMs: 0,
    diskReserveBytes: 8 * 1024 * 1024,
    ...overrides,
  };
  const server = await startServer(
    config,
    createLogger("info", (line) => void logs.push(JSON.parse(line))),
  );
  return {
    url: server.url.origin,
    logs,
    lineOf: (requestId) => logs.find((line) => line.event === "request" && line.request_id === requestId),
    databasePath: temp.path,
    stop: () => server.stop().finally(temp.cleanup),
  };
}

const AUTH = basicAuth(VENDOR.name, VENDOR.password);
const ID = /^[A-Za-z0-9_-]{22}$/;

let server: LoggedServer;
beforeAll(async () => {
  server = await startLogged();
});
afterAll(() => server.stop());

const send = (path: string, init: RequestInit = {}) => fetch(`${server.url}${path}`, init);
const postJson = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  send(path, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });

/** The answer's id, and that its log line carries it with this status. */
function idLogged(response: Response): string {
  const id = response.headers.get("x-request-id");
  expect(id).toMatch(ID);
  expect(server.lineOf(id)).toMatchObject({ status: response.status });
  return id!;
}

describe("every answer carries X-Request-Id, and the request's log line the same id", () => {
  test("200, 400, 401, 404, 405, /healthz, /readyz, /metrics, /swagger/json", async () => {
    const answers = [
      await postJson("/v1/prePing", { phone_number: "(212) 555-0142" }, { authorization: AUTH }),
      await postJson("/v1/postLead", { nope: 1 }, { authorization: AUTH }),
      await postJson("/v1/postLead", validLead()),
      await send("/v1/nothing-here", { headers: { authorization: AUTH } }),
      await send("/v1/postLead", { headers: { authorization: AUTH } }),
      await send("/not-a-route"),
      await send("/healthz"),
      await send("/readyz"),
      await send("/metrics"),
      await send("/swagger/json"),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([200, 400, 401, 404, 405, 404, 200, 200, 200, 200]);
    const ids = answers.map(idLogged);
    expect(new Set(ids).size).toBe(ids.length);
  });

  test("a request without a Host header (HTTP/1.0 health checker) too", async () => {
    const answer = await exchange(Number(new URL(server.url).port), rawRequest("GET /healthz HTTP/1.0", []));
    expect(answer.status).toBe(200);
    expect(answer.headers["x-request-id"]).toMatch(ID);
  });

  test("429 over the rate limit, 500 on a broken database, 503 while shutting down", async () => {
    const broken = await startLogged({ rateLimitPerSecond: 1, rateLimitBurst: 2, shutdownDrainMs: 2_000 });
    try {
      const db = openDatabase(broken.databasePath);
      db.sqlite.run("DROP TABLE suppressions");
      db.close();
      const failed = await postLead(broken, AUTH);
      await postLead(broken, AUTH);
      const limited = await postLead(broken, AUTH);
      const stopping = broken.stop();
      await Bun.sleep(100);
      const late = await fetch(`${broken.url}/healthz`);
      await stopping;
      expect([failed.status, limited.status, late.status]).toEqual([500, 429, 503]);
      for (const answer of [failed, limited, late]) expect(broken.lineOf(answer.headers.get("x-request-id"))).toMatchObject({ status: answer.status });
    } finally {
      await broken.stop();
    }
  });
});

describe("an incoming X-Request-Id", () => {
  test.each(["7b0c4a52-3f1e-4d7a-9a53-0b8c6c9c2f10", "lb-1:req.42", "Root=1-5759e988-bd862e3fe1be46a994272793", "x".repeat(128)])(
    "%s is kept",
    async (sent) => {
      const answer = await send("/healthz", { headers: { "x-request-id": sent } });
      expect(answer.headers.get("x-request-id")).toBe(sent);
      expect(server.lineOf(sent)).toMatchObject({ path: "/healthz" });
    },
  );

  test.each(["x".repeat(129), "<script>alert(1)</script>", "a b", '"quoted"', "", "id;other=1"])("%j is replaced by one of ours", async (sent) => {
    const answer = await send("/healthz", { headers: { "x-request-id": sent } });
    const id = answer.headers.get("x-request-id");
    expect(id).toMatch(ID);
    expect(server.lineOf(id)).toMatchObject({ path: "/healthz" });
    expect(JSON.stringify(server.logs)).not.toContain(sent || "never-empty");
  });
});

describe("the request's log line says what became of it", () => {
  test("an accepted lead: vendor, lead id, outcome", async () => {
    const answer = await postJson("/v1/postLead", validLead(), { authorization: AUTH });
    const { lead_id } = (await answer.json()) as { lead_id: string };
    expect(server.lineOf(answer.headers.get("x-request-id"))).toMatchObject({
      level: "info",
      method: "POST",
      path: "/v1/postLead",
      status: 200,
      vendor: VENDOR.name,
      lead_id,
      outcome: "accepted",
    });
  });

  test("a 400: every failed field, without the values sent (a lead's data stays out of the logs)", async () => {
    const answer = await postJson("/v1/postLead", validLead({ email: "someone-secret@example", zip: "1234", state: undefined }), { authorization: AUTH });
    expect(answer.status).toBe(400);
    const line = server.lineOf(answer.headers.get("x-request-id"));
    expect(line).toMatchObject({ status: 400, vendor: VENDOR.name, outcome: "invalid", reason: "Missing Field: state; Invalid ZIP Code: …; Invalid Email: …" });
    expect(JSON.stringify(line)).not.toContain("someone-secret");
  });

  test("a 422: the number is blocked (a duplicate here)", async () => {
    const lead = validLead();
    await postJson("/v1/postLead", lead, { authorization: AUTH });
    const answer = await postJson("/v1/postLead", { ...lead, customer_name: "Someone Else" }, { authorization: AUTH });
    expect(answer.status).toBe(422);
    expect(server.lineOf(answer.headers.get("x-request-id"))).toMatchObject({ vendor: VENDOR.name, outcome: "blocked", reason: PHONE_BLOCKED });
  });

  test('a 401: under a known vendor\'s name, else "unknown", never the name sent', async () => {
    const known = await postJson("/v1/prePing", { phone_number: "2125550100" }, { authorization: basicAuth(VENDOR.name, "wrong-password") });
    const stranger = await postJson("/v1/prePing", { phone_number: "2125550100" }, { authorization: basicAuth("who-is-this", "x") });
    expect([known.status, stranger.status]).toEqual([401, 401]);
    expect(server.lineOf(known.headers.get("x-request-id"))).toMatchObject({ vendor: VENDOR.name, outcome: "unauthorized", reason: "Unauthorized" });
    expect(server.lineOf(stranger.headers.get("x-request-id"))).toMatchObject({ vendor: "unknown", outcome: "unauthorized", reason: "Unauthorized" });
    expect(JSON.stringify(server.logs)).not.toContain("who-is-this");
  });

  test("a 429: the vendor over its rate limit", async () => {
    const limited = await startLogged({ rateLimitPerSecond: 1, rateLimitBurst: 1 });
    try {
      const answer = (await prePing(limited, AUTH, { phone_number: "2125550100" }), await prePing(limited, AUTH, { phone_number: "2125550100" }));
      expect(answer.status).toBe(429);
      expect(limited.lineOf(answer.headers.get("x-request-id"))).toMatchObject({ vendor: VENDOR.name, outcome: "rate_limited", reason: "Rate limit exceeded" });
    } finally {
      await limited.stop();
    }
  });
});

test("the OpenAPI document declares the header once and on every response of every operation", async () => {
  const doc: any = await (await send("/swagger/json")).json();
  expect(doc.components.headers.RequestId.schema).toMatchObject({ type: "string", ...REQUEST_ID_RULE });
  const responses = Object.values(doc.paths).flatMap((operations: any) =>
    Object.values(operations).flatMap((operation: any) => Object.values(operation.responses)),
  );
  expect(responses.length).toBeGreaterThan(20);
  for (const response of responses as any[]) expect(response.headers["X-Request-Id"]).toEqual({ $ref: "#/components/headers/RequestId" });
});
