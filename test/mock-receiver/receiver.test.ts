// The mock vendor receiver in-process, on an ephemeral port: recording, signatures, and every way it
// can be told to answer. Assertions are about behaviour, never about speed.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { Webhook } from "standardwebhooks";
import { LoopbackError, SecretError, startMockReceiver, type MockReceiver, type RecordedCallback } from "../../src/mock-receiver/index.ts";

const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const OTHER_SECRET = "whsec_c2VjcmV0LW9mLWFub3RoZXItdmVuZG9yLTEyMzQ1Ng==";

/** The headers a correctly signing sender would add, computed with the reference implementation. */
function signedHeaders(body: string, secret = SECRET, id = `msg_${crypto.randomUUID()}`): Record<string, string> {
  const now = new Date();
  return {
    "content-type": "application/json",
    "webhook-id": id,
    "webhook-timestamp": String(Math.floor(now.getTime() / 1000)),
    "webhook-signature": new Webhook(secret).sign(id, now, body),
  };
}

let receiver: MockReceiver;
const at = (path: string) => new URL(path, receiver.url);
const post = (path: string, body = '{"lead_id":"L1"}', headers: Record<string, string> = { "content-type": "application/json" }, signal?: AbortSignal) =>
  fetch(at(path), { method: "POST", body, headers, signal });
const control = (method: string, path: string, body?: unknown) =>
  fetch(at(`/_mock${path}`), { method, body: body === undefined ? undefined : JSON.stringify(body), headers: { "content-type": "application/json" } });
const listed = async (query = "") => (await (await control("GET", `/callbacks${query}`)).json()) as RecordedCallback[];
const statuses = async (path: string, count: number) => {
  const out: number[] = [];
  for (let i = 0; i < count; i++) out.push((await post(path)).status);
  return out;
};

beforeEach(() => {
  receiver = startMockReceiver({ port: 0 });
});
afterEach(async () => {
  await receiver.stop();
});

describe("recording", () => {
  test("listens on 127.0.0.1 and an ephemeral port by default", () => {
    expect(receiver.url.hostname).toBe("127.0.0.1");
    expect(Number(receiver.url.port)).toBeGreaterThan(0);
  });

  test("a callback is listed with its method, path, lower-cased headers, body and parsed JSON", async () => {
    const response = await post("/cb/one?vendor=a", '{"lead_id":"L1","success_bit":true}', { "Content-Type": "application/json", "X-Custom": "yes" });
    expect(response.status).toBe(200);
    const [callback, ...others] = await listed();
    expect(others).toHaveLength(0);
    expect(callback).toMatchObject({
      seq: 1,
      method: "POST",
      path: "/cb/one",
      query: "?vendor=a",
      body: '{"lead_id":"L1","success_bit":true}',
      json: { lead_id: "L1", success_bit: true },
      attempt: 1,
      signature: null,
      answer: { action: "respond", status: 200, delayMs: 0 },
    });
    expect(callback!.headers["content-type"]).toBe("application/json");
    expect(callback!.headers["x-custom"]).toBe("yes");
    expect(Date.parse(callback!.receivedAt)).not.toBeNaN();
    expect(receiver.received()).toEqual(await listed());
  });

  test("a body that is not JSON is kept as text, without json", async () => {
    await post("/cb/text", "not json");
    const [callback] = receiver.received();
    expect(callback!.body).toBe("not json");
    expect(callback!.json).toBeUndefined();
    expect(await listed()).toEqual([expect.not.objectContaining({ json: expect.anything() })]);
  });

  test("each path counts its own attempts; ?path= filters the list", async () => {
    await post("/cb/a");
    await post("/cb/b");
    await post("/cb/a");
    expect(receiver.received().map((c) => [c.path, c.attempt])).toEqual([
      ["/cb/a", 1],
      ["/cb/b", 1],
      ["/cb/a", 2],
    ]);
    expect((await listed("?path=/cb/a")).map((c) => c.attempt)).toEqual([1, 2]);
    expect(receiver.received("/cb/b")).toHaveLength(1);
  });

  test("control requests are not recorded", async () => {
    await listed();
    await control("PUT", "/behaviour", { status: 200 });
    expect(await listed()).toEqual([]);
  });

  test("clear forgets everything and restarts the attempt counts", async () => {
    await post("/cb/a");
    await post("/cb/a");
    expect(await (await control("DELETE", "/callbacks")).json()).toEqual({ cleared: 2 });
    expect(await listed()).toEqual([]);
    await post("/cb/a");
    receiver.clear();
    await post("/cb/a");
    expect(receiver.received().map((c) => c.attempt)).toEqual([1]);
  });

  test("waitFor resolves once enough callbacks have arrived, and rejects on timeout", async () => {
    const waiting = receiver.waitFor(2, { path: "/cb/w" });
    await post("/cb/w");
    await post("/cb/other");
    await post("/cb/w");
    expect((await waiting).map((c) => c.path)).toEqual(["/cb/w", "/cb/w"]);
    await expect(receiver.waitFor(1, { path: "/cb/never", timeoutMs: 20 })).rejects.toThrow("got 0");
  });
});

describe("signatures", () => {
  const body = '{"lead_id":"L1","success_bit":true}';

  test("without a secret nothing is checked", async () => {
    await post("/cb/s", body, signedHeaders(body));
    expect(receiver.received()[0]!.signature).toBeNull();
  });

  test("a correct Standard Webhooks signature is valid", async () => {
    receiver.setSecret(SECRET);
    await post("/cb/s", body, signedHeaders(body));
    expect(receiver.received()[0]!.signature).toEqual({ valid: true });
  });

  test("a signature made with another secret, or over another body, is not", async () => {
    receiver.setSecret(SECRET);
    await post("/cb/s", body, signedHeaders(body, OTHER_SECRET));
    await post("/cb/s", body.replace("true", "false"), signedHeaders(body));
    await post("/cb/s", body, { "content-type": "application/json" });
    expect(receiver.received().map((c) => c.signature)).toEqual([
      { valid: false, error: "No matching signature found" },
      { valid: false, error: "No matching signature found" },
      { valid: false, error: "Missing required headers" },
    ]);
  });

  test("a stale timestamp is refused as Standard Webhooks receivers do", async () => {
    receiver.setSecret(SECRET);
    const id = "msg_stale";
    const then = new Date(Date.now() - 10 * 60_000);
    const headers = {
      "webhook-id": id,
      "webhook-timestamp": String(Math.floor(then.getTime() / 1000)),
      "webhook-signature": new Webhook(SECRET).sign(id, then, body),
    };
    await post("/cb/s", body, headers);
    expect(receiver.received()[0]!.signature).toEqual({ valid: false, error: "Message timestamp too old" });
  });

  test("a correctly signed body that is not JSON is still valid", async () => {
    receiver.setSecret(SECRET);
    await post("/cb/s", "plain text", signedHeaders("plain text"));
    expect(receiver.received()[0]!.signature).toEqual({ valid: true });
  });

  test("the secret can be given at start, and set or forgotten through the control API", async () => {
    const withSecret = startMockReceiver({ secret: SECRET });
    try {
      await fetch(new URL("/cb/s", withSecret.url), { method: "POST", body, headers: signedHeaders(body) });
      expect(withSecret.received()[0]!.signature).toEqual({ valid: true });
    } finally {
      await withSecret.stop();
    }

    expect(await (await control("PUT", "/secret", { secret: SECRET })).json()).toEqual({ secret: "set" });
    await post("/cb/s", body, signedHeaders(body));
    expect((await control("DELETE", "/secret")).status).toBe(200);
    await post("/cb/s", body, signedHeaders(body));
    expect(receiver.received().map((c) => c.signature)).toEqual([{ valid: true }, null]);
  });

  test("a malformed secret is refused", async () => {
    const response = await control("POST", "/secret", { secret: "whsec_!!!" });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toContain("whsec_");
    expect(() => receiver.setSecret("whsec_")).toThrow(SecretError);
    expect(() => startMockReceiver({ secret: "nope!" })).toThrow(SecretError);
  });
});

describe("behaviours", () => {
  test("failFirst 3 answers 500 three times, then 200", async () => {
    await control("PUT", "/behaviour", { path: "/cb/flaky", status: 500, failFirst: 3 });
    expect(await statuses("/cb/flaky", 5)).toEqual([500, 500, 500, 200, 200]);
    expect(receiver.received().map((c) => c.attempt)).toEqual([1, 2, 3, 4, 5]);
  });

  test("a path's behaviour beats the global one, so scenarios run side by side", async () => {
    await control("PUT", "/behaviour", { status: 503 });
    await control("POST", "/behaviour", { path: "/cb/gone", status: 410 });
    receiver.setBehaviour({ path: "/cb/ok", status: 202 });
    expect([(await post("/cb/gone")).status, (await post("/cb/ok")).status, (await post("/cb/anything")).status]).toEqual([410, 202, 503]);
    expect(await (await control("GET", "/behaviour")).json()).toEqual({
      global: { status: 503 },
      paths: { "/cb/gone": { status: 410 }, "/cb/ok": { status: 202 } },
    });
  });

  test("a behaviour's path covers the paths under it over HTTP; the longest configured path wins", async () => {
    await control("PUT", "/behaviour", { path: "/dead", status: 410 });
    await control("PUT", "/behaviour", { path: "/dead/revived", status: 202 });
    const paths = ["/dead", "/dead/x", "/dead/x/y", "/dead/revived/z", "/deadline", "/flaky"];
    const got: number[] = [];
    for (const path of paths) got.push((await post(path)).status);
    expect(got).toEqual([410, 410, 410, 202, 200, 200]);
    // Recording stays by exact path: what /dead/x received is not listed under /dead.
    expect((await listed("?path=/dead")).map((c) => c.path)).toEqual(["/dead"]);
  });

  test("DELETE /_mock/behaviour resets one path or everything", async () => {
    await control("PUT", "/behaviour", { status: 503 });
    await control("PUT", "/behaviour", { path: "/cb/gone", status: 410 });
    await control("DELETE", "/behaviour?path=/cb/gone");
    expect((await post("/cb/gone")).status).toBe(503);
    await control("DELETE", "/behaviour");
    expect((await post("/cb/gone")).status).toBe(200);
  });

  test("410 Gone", async () => {
    receiver.setBehaviour({ status: 410 });
    const response = await post("/cb/x");
    expect(response.status).toBe(410);
    expect(await response.json()).toEqual({ mock: "lead-ingress", status: 410 });
  });

  test("429 with Retry-After and a custom body", async () => {
    await control("PUT", "/behaviour", { path: "/cb/busy", status: 429, retryAfter: "2", body: "slow down" });
    const response = await post("/cb/busy");
    expect(response.status).toBe(429);
    expect(response.headers.get("retry-after")).toBe("2");
    expect(response.headers.get("content-type")).toStartWith("text/plain");
    expect(await response.text()).toBe("slow down");
  });

  test("a delayed answer arrives after the delay, and the callback is recorded on arrival", async () => {
    receiver.setBehaviour({ path: "/cb/slow", delayMs: 300 });
    const started = performance.now();
    const answered = post("/cb/slow");
    const [recorded] = await receiver.waitFor(1);
    expect(recorded!.answer).toEqual({ action: "respond", status: 200, delayMs: 300 });
    expect((await answered).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(250);
  });

  test("a hanging receiver never answers: the client's own timeout ends the request", async () => {
    receiver.setBehaviour({ path: "/cb/hang", hang: true });
    const outcome = await post("/cb/hang", "{}", {}, AbortSignal.timeout(200)).then(
      (response) => `answered ${response.status}`,
      (error: Error) => error.name,
    );
    expect(outcome).toBe("TimeoutError");
    expect(receiver.received()[0]!.answer).toEqual({ action: "hang" });
  });

  test("stop() ends hanging and long-delayed requests instead of waiting for them", async () => {
    receiver.setBehaviour({ path: "/cb/hang", hang: true });
    receiver.setBehaviour({ path: "/cb/hour", delayMs: 3_600_000 });
    const pending = ["/cb/hang", "/cb/hour"].map((path) =>
      post(path).then(
        (r) => `answered ${r.status}`,
        () => "rejected",
      ),
    );
    await receiver.waitFor(2);
    await receiver.stop();
    expect(await Promise.all(pending)).toEqual(["rejected", "rejected"]);
  });

  test("close drops the connection without an answer: the client's fetch rejects", async () => {
    await control("PUT", "/behaviour", { path: "/cb/drop", close: true });
    const error = await post("/cb/drop").then(
      () => undefined,
      (e: Error & { code?: string }) => e,
    );
    expect(error).toBeInstanceOf(Error);
    expect(error!.code).toBe("ECONNRESET");
    expect(receiver.received()[0]!.answer).toEqual({ action: "close", delayMs: 0 });
  });

  test("close for the first request, then a normal answer", async () => {
    receiver.setBehaviour({ path: "/cb/drop-once", close: true, failFirst: 1 });
    const first = await post("/cb/drop-once").then(
      (r) => r.status,
      () => "rejected",
    );
    expect([first, (await post("/cb/drop-once")).status]).toEqual(["rejected", 200]);
  });

  test("a bad behaviour is refused with 400 and changes nothing", async () => {
    for (const body of [{ failfirst: 3 }, { hang: true, close: true }, { status: 42 }]) {
      const response = await control("PUT", "/behaviour", body);
      expect(response.status).toBe(400);
      expect(Object.keys((await response.json()) as object)).toEqual(["error"]);
    }
    const invalidJson = await fetch(at("/_mock/behaviour"), { method: "PUT", body: "{" });
    expect(invalidJson.status).toBe(400);
    expect((await post("/cb/x")).status).toBe(200);
  });
});

describe("control API", () => {
  test("unknown routes are 404 and wrong methods 405", async () => {
    expect((await control("GET", "/nope")).status).toBe(404);
    expect((await control("GET", "")).status).toBe(404);
    const wrongMethod = await control("PATCH", "/callbacks");
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get("allow")).toBe("GET, DELETE");
  });
});

test("only loopback addresses are allowed", () => {
  expect(() => startMockReceiver({ host: "0.0.0.0" })).toThrow(LoopbackError);
  expect(() => startMockReceiver({ host: "192.168.1.10" })).toThrow(LoopbackError);
});
