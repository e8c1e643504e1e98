// One exchange with a check service (src/checks/send.ts), the HTTP client injected (its own tests,
// http-client.test.ts, cover the wire: framing, the size bound, timeouts, TLS): the answer judged (pass,
// fail, or an error with a short description), the answer's size bounded, the timeout, and the
// callbacks' address rules (private addresses refused unless allowed; the checked address dialled).
import { describe, expect, test } from "bun:test";
import { type Cancel, MAX_ANSWER_BYTES, MAX_REASON_CHARS, parseAnswer, sendCheck, signedCheckRequest } from "../../src/checks/index.ts";
import type { Lookup } from "../../src/callbacks/ssrf.ts";
import { answer, cancelAfter, check, fakeClient, hang, lead, never, PUBLIC_URL, SECRET } from "./fixtures.ts";

const request = signedCheckRequest({ check: check(), facts: lead(), secret: SECRET, now: Date.now() });
const send = (client: ReturnType<typeof fakeClient>["client"], url = PUBLIC_URL, options: { allowPrivate?: boolean; lookup?: Lookup; cancel?: Cancel } = {}) =>
  sendCheck(url, "scrub", request, { client, allowPrivate: options.allowPrivate ?? false, lookup: options.lookup }, options.cancel ?? never());

describe("the answer", () => {
  test("2xx pass and fail are taken with their reason, trimmed", async () => {
    expect(await send(fakeClient(() => answer({ outcome: "pass", reason: " clean " })).client)).toEqual({ outcome: "pass", reason: "clean" });
    expect(await send(fakeClient(() => answer({ outcome: "fail", reason: "Known litigator" }, 201)).client)).toEqual({
      outcome: "fail",
      reason: "Known litigator",
    });
  });

  test("a fail without a reason reads 'Refused by check: <name>'; a pass without one has none; a long reason is cut", () => {
    expect(parseAnswer('{"outcome":"fail"}', "scrub")).toEqual({ outcome: "fail", reason: "Refused by check: scrub" });
    expect(parseAnswer('{"outcome":"fail","reason":"  "}', "scrub")).toEqual({ outcome: "fail", reason: "Refused by check: scrub" });
    expect(parseAnswer('{"outcome":"pass"}', "scrub")).toEqual({ outcome: "pass", reason: "" });
    const long = parseAnswer(JSON.stringify({ outcome: "fail", reason: "x".repeat(2_000) }), "scrub");
    expect(long.outcome === "fail" && long.reason.length).toBe(MAX_REASON_CHARS);
  });

  test("an unreadable or wrongly shaped body is an error saying what is wrong", () => {
    expect(parseAnswer("<html>", "scrub")).toEqual({ outcome: "error", error: "answer is not JSON" });
    expect(parseAnswer('["pass"]', "scrub")).toEqual({ outcome: "error", error: "answer is not a JSON object" });
    expect(parseAnswer('{"outcome":"maybe"}', "scrub")).toEqual({ outcome: "error", error: 'answer\'s outcome is not "pass" or "fail"' });
    expect(parseAnswer('{"outcome":"fail","reason":42}', "scrub")).toEqual({ outcome: "error", error: "answer's reason is not text" });
    expect(parseAnswer("", "scrub")).toMatchObject({ outcome: "error" });
  });

  test("a non-2xx answer is an error naming its status, whatever its body; a redirect is an answer", async () => {
    expect(await send(fakeClient(() => answer({ outcome: "pass" }, 500)).client)).toEqual({ outcome: "error", error: "HTTP 500" });
    expect(await send(fakeClient(() => new Response(null, { status: 302, headers: { location: "http://10.0.0.1/" } })).client)).toEqual({
      outcome: "error",
      error: "HTTP 302",
    });
  });

  test(`an answer larger than ${MAX_ANSWER_BYTES} bytes is an error, as the client reports it`, async () => {
    const big = JSON.stringify({ outcome: "pass", reason: "x".repeat(MAX_ANSWER_BYTES) });
    expect(await send(fakeClient(() => new Response(big, { headers: { "content-length": String(big.length) } })).client)).toEqual({
      outcome: "error",
      error: `answer larger than ${MAX_ANSWER_BYTES} bytes`,
    });
  });

  test("a failure to connect is an error with its description; the caller's cancel ending the wait reads 'timed out'", async () => {
    const refused = Object.assign(new Error("connect failed"), { code: "ECONNREFUSED" });
    expect(await send(fakeClient(() => Promise.reject(refused)).client)).toEqual({ outcome: "error", error: "ECONNREFUSED: connect failed" });
    const { client } = fakeClient((sent) => hang(sent.cancel));
    expect(await send(client, PUBLIC_URL, { cancel: cancelAfter(20) })).toEqual({ outcome: "error", error: "timed out" });
  });
});

describe("the request and the address rules", () => {
  test("POSTs the signed body to the address checked, keeping the URL's host in the Host header", async () => {
    const lookup: Lookup = async () => [{ address: "93.184.216.34", family: 4 }];
    const { client, sent } = fakeClient(() => answer({ outcome: "pass" }));
    await send(client, "https://scrub.example/v1/check?key=1", { lookup });
    const [first] = sent;
    expect(first?.target).toMatchObject({ address: "93.184.216.34", port: 443, tls: { serverName: "scrub.example" } });
    expect(first?.target.head).toBe("POST /v1/check?key=1 HTTP/1.1\r\nhost: scrub.example\r\n");
    expect(first?.headers["webhook-signature"]).toBe(request.headers["webhook-signature"]);
    expect(first?.body).toEqual(JSON.parse(request.body));
  });

  test("a loopback, private or metadata address is refused without a request unless private addresses are allowed", async () => {
    const { client, sent } = fakeClient(() => answer({ outcome: "pass" }));
    expect(await send(client, "http://127.0.0.1:9090/check")).toEqual({ outcome: "error", error: "Refused check address 127.0.0.1 (loopback)" });
    const internal: Lookup = async () => [{ address: "10.1.2.3", family: 4 }];
    expect(await send(client, "https://scrub.internal/check", { lookup: internal })).toEqual({
      outcome: "error",
      error: "Refused check address 10.1.2.3 (private), resolved from scrub.internal",
    });
    expect(await send(client, "http://169.254.169.254/latest")).toMatchObject({ outcome: "error", error: expect.stringContaining("(metadata)") });
    expect(sent).toHaveLength(0);
    expect(await send(client, "http://127.0.0.1:9090/check", { allowPrivate: true })).toEqual({ outcome: "pass", reason: "" });
    expect(sent).toHaveLength(1);
  });

  test("a host that does not resolve is an error naming it", async () => {
    const nowhere: Lookup = async () => {
      throw Object.assign(new Error("not found"), { code: "ENOTFOUND" });
    };
    expect(await send(fakeClient(() => answer({})).client, "https://nowhere.example/", { lookup: nowhere })).toEqual({
      outcome: "error",
      error: "Could not resolve check host nowhere.example: ENOTFOUND",
    });
  });
});
