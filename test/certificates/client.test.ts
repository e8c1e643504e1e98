// The request the client sends and how it reads what comes back, with a fake fetch: no network.
import { describe, expect, test } from "bun:test";
import {
  INSIGHTS_PROPERTIES,
  MAX_ANSWER_BYTES,
  matchLeadPhone,
  trustedFormRequest,
  trustedFormVerifier,
  type Fetch,
  type TrustedFormLead,
} from "../../src/certificates/index.ts";
import { json, VERIFIED_BODY } from "./fixtures.ts";

const ID = "eb9fc4dd9bed9ad451a5648946cf4bf09b5bb947";
const KEY = "tf-key-1f1b96c9150d8050e858c043d543bb4e";
const LEAD: TrustedFormLead = { phone: "5125550134", email: "jane@example.com", reference: "lead-0001", vendor: "acme" };

/** A fetch that records what it was asked and answers with `respond`. */
function fakeFetch(respond: (url: URL, init: RequestInit) => Response | Promise<Response>) {
  const calls: { url: URL; init: RequestInit }[] = [];
  const fetch: Fetch = async (url, init) => {
    calls.push({ url, init });
    return respond(url, init);
  };
  return { fetch, calls };
}

describe("the request", () => {
  test("POSTs retain + match_lead + insights for the id under the base URL, v4, HTTP Basic with user API", () => {
    const { url, init } = trustedFormRequest(ID, LEAD, { baseUrl: "https://cert.trustedform.com", apiKey: KEY });
    expect(url.href).toBe(`https://cert.trustedform.com/${ID}`);
    expect(init.method).toBe("POST");
    expect(init.headers).toEqual({
      "content-type": "application/json",
      accept: "application/json",
      "api-version": "4.0",
      authorization: `Basic ${btoa(`API:${KEY}`)}`,
    });
    expect(JSON.parse(init.body)).toEqual({
      match_lead: { phone: "5125550134", email: "jane@example.com" },
      retain: { reference: "lead-0001", vendor: "acme" },
      insights: { properties: [...INSIGHTS_PROPERTIES] },
    });
  });

  test("a base URL with a path keeps it (the mock receiver's /trustedform), with or without a trailing slash", () => {
    for (const baseUrl of ["http://127.0.0.1:9090/trustedform", "http://127.0.0.1:9090/trustedform/"])
      expect(trustedFormRequest(ID, LEAD, { baseUrl, apiKey: KEY }).url.href).toBe(`http://127.0.0.1:9090/trustedform/${ID}`);
  });

  test("a lead without an email is matched on its phone alone (no blank email)", () => {
    const { init } = trustedFormRequest(ID, { ...LEAD, email: null }, { baseUrl: "https://cert.trustedform.com", apiKey: KEY });
    expect(JSON.parse(init.body).match_lead).toEqual({ phone: "5125550134" });
  });

  test("the phone is matched as its ten national digits", () => {
    expect(matchLeadPhone("+15125550134")).toBe("5125550134");
  });
});

describe("the client", () => {
  test("sends the request to the configured base URL, not following redirects, and returns the evidence", async () => {
    const fake = fakeFetch(() => new Response(json(VERIFIED_BODY), { status: 200 }));
    const verify = trustedFormVerifier({ apiKey: KEY, baseUrl: "http://tf.test/api", timeoutMs: 1000, fetch: fake.fetch });
    const evidence = await verify(ID, LEAD);
    expect(evidence).toMatchObject({ outcome: "verified", phone_match: true, age_seconds: 412 });
    expect(fake.calls).toHaveLength(1);
    expect(fake.calls[0]!.url.href).toBe(`http://tf.test/api/${ID}`);
    expect(fake.calls[0]!.init.redirect).toBe("manual");
  });

  test("defaults to TrustedForm's production base URL", async () => {
    const fake = fakeFetch(() => new Response(json(VERIFIED_BODY)));
    await trustedFormVerifier({ apiKey: KEY, timeoutMs: 1000, fetch: fake.fetch })(ID, LEAD);
    expect(fake.calls[0]!.url.href).toBe(`https://cert.trustedform.com/${ID}`);
  });

  test("no answer within the timeout is unreachable (timeout), and the request is aborted", async () => {
    let aborted = false;
    const fake = fakeFetch(
      (_url, init) =>
        new Promise((_resolve, reject) => {
          init.signal?.addEventListener("abort", () => {
            aborted = true;
            reject(init.signal?.reason);
          });
        }),
    );
    const evidence = await trustedFormVerifier({ apiKey: KEY, timeoutMs: 50, fetch: fake.fetch })(ID, LEAD);
    expect(evidence).toMatchObject({ outcome: "unreachable", problem: "timeout", reason: "TrustedForm did not answer within 50 ms" });
    expect(aborted).toBe(true);
  });

  test("a body that stalls past the timeout is a timeout too", async () => {
    const fake = fakeFetch((_url, init) => {
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('{"outcome":'));
          init.signal?.addEventListener("abort", () => controller.error(init.signal?.reason));
        },
      });
      return new Response(body, { status: 200 });
    });
    const evidence = await trustedFormVerifier({ apiKey: KEY, timeoutMs: 50, fetch: fake.fetch })(ID, LEAD);
    expect(evidence).toMatchObject({ outcome: "unreachable", problem: "timeout" });
  });

  test("a network error is unreachable (network), and its text never carries the key", async () => {
    const fake = fakeFetch((_url, init) => {
      const header = (init.headers as Record<string, string>).authorization!;
      throw new TypeError(`connect failed (sent ${header}; key ${KEY}; basic ${header.slice(6)})`);
    });
    const evidence = await trustedFormVerifier({ apiKey: KEY, timeoutMs: 1000, fetch: fake.fetch })(ID, LEAD);
    expect(evidence).toMatchObject({ outcome: "unreachable", problem: "network" });
    expect(evidence.reason).not.toContain(KEY);
    expect(evidence.reason).not.toContain(btoa(`API:${KEY}`));
    expect(evidence.reason).toContain("[redacted]");
  });

  test("the evidence holds nothing of the key whatever the answer", async () => {
    for (const status of [200, 401, 404, 500]) {
      const fake = fakeFetch(() => new Response(status === 200 ? json(VERIFIED_BODY) : json({ outcome: "error", reason: "no" }), { status }));
      const evidence = await trustedFormVerifier({ apiKey: KEY, timeoutMs: 1000, fetch: fake.fetch })(ID, LEAD);
      expect(JSON.stringify(evidence)).not.toContain(KEY);
    }
  });

  test("an answer larger than the read limit is cut, not read whole, and counted unreadable", async () => {
    let pulled = 0;
    const chunk = new Uint8Array(64 * 1024).fill(0x20);
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(chunk);
      },
    });
    const fake = fakeFetch(() => new Response(endless, { status: 200 }));
    const evidence = await trustedFormVerifier({ apiKey: KEY, timeoutMs: 5000, fetch: fake.fetch })(ID, LEAD);
    expect(evidence).toMatchObject({ outcome: "unreachable", problem: "unreadable", raw_truncated: true });
    expect(pulled * chunk.byteLength).toBeLessThan(MAX_ANSWER_BYTES + 4 * chunk.byteLength);
  });

  test("the caller's signal stops a request early (shutdown); that is not reported as a timeout", async () => {
    const stop = new AbortController();
    const fake = fakeFetch(
      (_url, init) =>
        new Promise((_resolve, reject) => {
          init.signal?.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError")));
        }),
    );
    const pending = trustedFormVerifier({ apiKey: KEY, timeoutMs: 60_000, fetch: fake.fetch })(ID, LEAD, stop.signal);
    stop.abort();
    expect(await pending).toMatchObject({ outcome: "unreachable", problem: "network" });
  });
});
