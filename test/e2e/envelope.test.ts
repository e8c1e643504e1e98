// Every status the service answers on /v1 carries the contract's envelope, and checks run in the
// contract's order: authentication, body size, JSON, object, fields, eligibility (docs/contract.md §1–§3).
// On either backend (LEAD_INGRESS_TEST_BACKEND); the few tests of SQLite's own failures run on SQLite only.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createVendor, setVendorEnabled } from "../../src/auth/vendors.ts";
import { validLead } from "../helpers/leads.ts";
import { exchange, rawRequest } from "../helpers/raw-http.ts";
import {
  afterVendorChange,
  basicAuth,
  post,
  startApiTestServer,
  TEST_BACKEND,
  untilAuthenticates,
  VENDOR,
  type Answer,
  type ApiTestServer,
} from "../helpers/server.ts";

let server: ApiTestServer;
let auth: Record<string, string>;

beforeAll(async () => {
  server = await startApiTestServer({ bodyLimitBytes: 2048 });
  auth = { authorization: server.auth };
});
afterAll(() => server.stop());

function expectFailure(answer: Answer, status: number, flag: "success_bit" | "can_post_phone_bit", error: string) {
  expect(answer.status).toBe(status);
  expect(answer.headers.get("content-type")).toStartWith("application/json");
  expect(answer.body).toEqual({ [flag]: false, message: [{ error }] });
}

async function send(path: string, init: RequestInit): Promise<Answer> {
  const response = await fetch(`${server.url}${path}`, init);
  return { status: response.status, headers: response.headers, body: await response.json() };
}

/** Runs `check` against a server of its own (limited or broken on purpose), stopped afterwards. */
async function withOwnServer(overrides: Parameters<typeof startApiTestServer>[0], check: (own: ApiTestServer) => Promise<void>) {
  const own = await startApiTestServer(overrides);
  try {
    await check(own);
  } finally {
    await own.stop();
  }
}

describe("401 Unauthorized", () => {
  const CHALLENGE = 'Basic realm="lead-ingress", charset="UTF-8"';

  test.each([
    ["no Authorization header", undefined],
    ["another scheme", "Bearer abc"],
    ["Basic with broken base64", "Basic !!!"],
    ["Basic without a colon", `Basic ${Buffer.from("vendor-a").toString("base64")}`],
    ["a wrong password", basicAuth(VENDOR.name, "wrong-password")],
    ["an unknown vendor", basicAuth("nobody", VENDOR.password)],
  ])("%s → 401 with WWW-Authenticate, saying nothing of which part was wrong", async (_name, authorization) => {
    const headers: Record<string, string> = authorization ? { authorization } : {};
    for (const [path, flag] of [
      ["/v1/postLead", "success_bit"],
      ["/v1/prePing", "can_post_phone_bit"],
    ] as const) {
      const answer = await post(`${server.url}${path}`, validLead(), headers);
      expectFailure(answer, 401, flag, "Unauthorized");
      expect(answer.headers.get("www-authenticate")).toBe(CHALLENGE);
    }
  });

  test("a disabled vendor cannot authenticate, even right after a successful request", async () => {
    await createVendor(server.store, "vendor-disabled", "password-disabled");
    const headers = { authorization: basicAuth("vendor-disabled", "password-disabled") };
    await untilAuthenticates(server, headers.authorization);
    expect((await post(`${server.url}/v1/prePing`, { phone_number: "2125550100" }, headers)).status).toBe(200);
    await setVendorEnabled(server.store, "vendor-disabled", false, "test");
    await afterVendorChange();
    expectFailure(await post(`${server.url}/v1/prePing`, { phone_number: "2125550100" }, headers), 401, "can_post_phone_bit", "Unauthorized");
  });

  test("authentication comes before the body: bad credentials with a malformed or oversized body → 401", async () => {
    const bad = { authorization: basicAuth(VENDOR.name, "wrong-password") };
    expectFailure(await post(`${server.url}/v1/postLead`, "{not json", bad), 401, "success_bit", "Unauthorized");
    expectFailure(await post(`${server.url}/v1/postLead`, "x".repeat(10_000), bad), 401, "success_bit", "Unauthorized");
  });

  test("unknown /v1 paths ask for credentials before saying 404", async () => {
    expectFailure(await send("/v1/nothing-here", { method: "POST" }), 401, "success_bit", "Unauthorized");
  });
});

describe("body rules", () => {
  test("over the size limit (declared length) → 413 before the JSON is parsed", async () => {
    expectFailure(await post(`${server.url}/v1/postLead`, `{${"x".repeat(3000)}`, auth), 413, "success_bit", "Request body exceeds 2048 bytes");
  });

  test("over the size limit without a declared length (chunked) → 413", async () => {
    const chunk = new TextEncoder().encode(" ".repeat(1000));
    const body = new ReadableStream({
      start(controller) {
        for (let i = 0; i < 5; i++) controller.enqueue(chunk);
        controller.close();
      },
    });
    const answer = await send("/v1/prePing", { method: "POST", headers: auth, body });
    expectFailure(answer, 413, "can_post_phone_bit", "Request body exceeds 2048 bytes");
  });

  test("a body of exactly the limit is read; one byte more → 413", async () => {
    const padded = (bytes: number) => {
      const start = '{"phone_number":"(212) 555-0142","pad":"';
      return `${start}${"x".repeat(bytes - start.length - 2)}"}`;
    };
    expect(padded(2048)).toHaveLength(2048);
    expect((await post(`${server.url}/v1/prePing`, padded(2048), auth)).status).toBe(200);
    expectFailure(await post(`${server.url}/v1/prePing`, padded(2049), auth), 413, "can_post_phone_bit", "Request body exceeds 2048 bytes");
  });

  test.each([["{not json"], [""], ['{"a":1'], ["'single'"]])("malformed JSON %j → 400", async (body) => {
    expectFailure(await post(`${server.url}/v1/postLead`, body, auth), 400, "success_bit", "Malformed JSON body");
  });

  test.each([["[]"], ["null"], ["42"], ['"text"'], ["true"]])("a JSON value that is not an object (%s) → 400", async (body) => {
    expectFailure(await post(`${server.url}/v1/prePing`, body, auth), 400, "can_post_phone_bit", "Request body must be a JSON object");
  });

  describe("bytes that are not UTF-8 → 400, nothing stored (not replaced with U+FFFD)", () => {
    const NOT_UTF8 = "Request body is not valid UTF-8";
    /** A valid lead whose customer_name holds `bytes`. */
    const leadWith = (bytes: number[]) => {
      const [before, after] = JSON.stringify(validLead({ customer_name: "@@" })).split("@@");
      return Buffer.concat([Buffer.from(before!), Buffer.from(bytes), Buffer.from(after!)]);
    };
    const leadCount = async () => (await server.rows("SELECT count(*) AS n FROM leads"))[0]!.n as number;
    const chunked = (bytes: Uint8Array) =>
      new ReadableStream({
        start(controller) {
          controller.enqueue(bytes.subarray(0, 40));
          controller.enqueue(bytes.subarray(40));
          controller.close();
        },
      });

    test.each([
      ["an invalid continuation (C3 28)", [0xc3, 0x28]],
      ["a lone continuation byte (80)", [0x41, 0x80]],
      ["an overlong slash (C0 AF)", [0xc0, 0xaf]],
      ["an encoded surrogate (ED A0 80)", [0xed, 0xa0, 0x80]],
      ["a truncated sequence (E2 82)", [0xe2, 0x82]],
    ])("%s, with a declared length and chunked", async (_name, bytes) => {
      const stored = await leadCount();
      const body = leadWith(bytes);
      expectFailure(await send("/v1/postLead", { method: "POST", headers: auth, body }), 400, "success_bit", NOT_UTF8);
      expectFailure(await send("/v1/postLead", { method: "POST", headers: auth, body: chunked(body) }), 400, "success_bit", NOT_UTF8);
      expectFailure(
        await send("/v1/prePing", {
          method: "POST",
          headers: auth,
          body: Buffer.from([...Buffer.from('{"phone_number":"2125550142","x":"'), ...bytes, ...Buffer.from('"}')]),
        }),
        400,
        "can_post_phone_bit",
        NOT_UTF8,
      );
      expect(await leadCount()).toBe(stored);
    });

    test("checked after the size limit and before the JSON parse", async () => {
      const oversized = Buffer.concat([Buffer.from([0xc3, 0x28]), Buffer.alloc(3000, 0x20)]);
      expectFailure(await send("/v1/postLead", { method: "POST", headers: auth, body: oversized }), 413, "success_bit", "Request body exceeds 2048 bytes");
      expectFailure(await send("/v1/postLead", { method: "POST", headers: auth, body: Buffer.from([0x7b, 0xc3, 0x28]) }), 400, "success_bit", NOT_UTF8);
    });

    test("valid multi-byte UTF-8 is accepted and stored as sent", async () => {
      const body = leadWith([...Buffer.from("José Müller 😀")]);
      const answer = await send("/v1/postLead", { method: "POST", headers: auth, body });
      expect(answer.status).toBe(200);
      const [row] = await server.rows("SELECT raw_request FROM leads WHERE id = $1", answer.body.lead_id);
      expect(Buffer.from(row!.raw_request)).toEqual(body);
    });
  });
});

describe("routes", () => {
  test("an unknown /v1 path → 404 in the envelope", async () => {
    expectFailure(await send("/v1/nothing-here", { method: "POST", headers: auth }), 404, "success_bit", "Not Found");
  });

  test("a known path with the wrong method → 405 with Allow", async () => {
    const answer = await send("/v1/prePing", { method: "GET", headers: auth });
    expectFailure(answer, 405, "can_post_phone_bit", "Method Not Allowed");
    expect(answer.headers.get("allow")).toBe("POST");
    expect((await send("/v1/leads/abc", { method: "DELETE", headers: auth })).status).toBe(405);
    const onPostLead = await send("/v1/postLead", { method: "GET", headers: auth });
    expectFailure(onPostLead, 405, "success_bit", "Method Not Allowed");
    expect(onPostLead.headers.get("allow")).toBe("POST");
  });

  test("/healthz and /readyz answer without credentials", async () => {
    expect(await send("/healthz", {})).toMatchObject({ status: 200, body: { status: "ok" } });
    expect(await send("/readyz", {})).toMatchObject({ status: 200, body: { status: "ready" } });
  });
});

describe("429 rate limit", () => {
  test("over the vendor's burst → 429 with Retry-After; other vendors are not affected", async () => {
    await withOwnServer({ rateLimitPerSecond: 1, rateLimitBurst: 2 }, async (limited) => {
      await createVendor(limited.store, "vendor-other", "password-other");
      const other = basicAuth("vendor-other", "password-other");
      await untilAuthenticates(limited, other);
      const headers = { authorization: limited.auth };
      const answers = [];
      for (let i = 0; i < 3; i++) answers.push(await post(`${limited.url}/v1/prePing`, { phone_number: "2125550100" }, headers));
      expect(answers.map((a) => a.status)).toEqual([200, 200, 429]);
      expectFailure(answers[2]!, 429, "can_post_phone_bit", "Rate limit exceeded");
      expect(Number(answers[2]!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect((await post(`${limited.url}/v1/prePing`, { phone_number: "2125550100" }, { authorization: other })).status).toBe(200);
    });
  });

  test("the rate limit comes before the body: over it, an oversized or malformed body → 429", async () => {
    await withOwnServer({ rateLimitPerSecond: 1, rateLimitBurst: 1, bodyLimitBytes: 2048 }, async (limited) => {
      const headers = { authorization: limited.auth };
      expect((await post(`${limited.url}/v1/postLead`, "{not json", headers)).status).toBe(400);
      expectFailure(await post(`${limited.url}/v1/postLead`, "x".repeat(5000), headers), 429, "success_bit", "Rate limit exceeded");
      expectFailure(await post(`${limited.url}/v1/prePing`, "{not json", headers), 429, "can_post_phone_bit", "Rate limit exceeded");
    });
  });
});

describe("server-side failures", () => {
  /** A table the service needs, gone: every statement on it fails. */
  const dropSuppressions = (broken: ApiTestServer) => broken.rows(TEST_BACKEND === "postgres" ? "DROP TABLE suppressions CASCADE" : "DROP TABLE suppressions");

  test("an unexpected error → 500 in the envelope, no stack trace, with the route's own flag", async () => {
    await withOwnServer({}, async (broken) => {
      await dropSuppressions(broken);
      const answer = await post(`${broken.url}/v1/postLead`, validLead(), { authorization: broken.auth });
      expectFailure(answer, 500, "success_bit", "Internal server error");
      const prePing = await post(`${broken.url}/v1/prePing`, { phone_number: "(212) 555-0142" }, { authorization: broken.auth });
      expectFailure(prePing, 500, "can_post_phone_bit", "Internal server error");
    });
  });

  // On PostgreSQL credentials are answered from the vendors' cache, so no database error is behind a 404.
  test.skipIf(TEST_BACKEND !== "sqlite")(
    "when answering the error fails too (a database error behind an unknown path), the 500 still has the route's flag",
    async () => {
      await withOwnServer({}, async (broken) => {
        await broken.rows("PRAGMA foreign_keys = OFF");
        await broken.rows("DROP TABLE vendors");
        const answer = await post(`${broken.url}/v1/prePing/extra`, {}, { authorization: broken.auth });
        expectFailure(answer, 500, "can_post_phone_bit", "Internal server error");
      });
    },
  );

  test("a prePing 500 to a request without Host (HTTP/1.0) carries can_post_phone_bit too", async () => {
    await withOwnServer({}, async (broken) => {
      await dropSuppressions(broken);
      const request = rawRequest("POST /v1/prePing HTTP/1.0", [`Authorization: ${broken.auth}`], JSON.stringify({ phone_number: "(212) 555-0142" }));
      const answer = await exchange(Number(new URL(broken.url).port), request);
      expect([answer.status, JSON.parse(answer.body)]).toEqual([500, { can_post_phone_bit: false, message: [{ error: "Internal server error" }] }]);
    });
  });

  test.skipIf(TEST_BACKEND !== "sqlite")(
    "a database held locked by another process → 503 with Retry-After",
    async () => {
      await withOwnServer({}, async (locked) => {
        await locked.rows("BEGIN IMMEDIATE");
        const answer = await post(`${locked.url}/v1/postLead`, validLead(), { authorization: locked.auth });
        await locked.rows("ROLLBACK");
        expectFailure(answer, 503, "success_bit", "Service temporarily unavailable");
        expect(answer.headers.get("retry-after")).toBe("1");
      });
    },
    20_000,
  ); // waits out SQLite's 5 s busy timeout
});

describe("routing does not depend on the Host header", () => {
  test.each(["x", "lb", "abc", "a.b", "localhost"])("Host: %s routes like any other host", async (host) => {
    const health = await fetch(`${server.url}/healthz`, { headers: { host } });
    expect(health.status).toBe(200);
    const unauthenticated = await fetch(`${server.url}/v1/postLead`, { method: "POST", headers: { host }, body: "{}" });
    expect(unauthenticated.status).toBe(401);
    const nested = await fetch(`${server.url}/v1/metrics`, { headers: { host } });
    expect(nested.status).toBe(401);
  });
});
