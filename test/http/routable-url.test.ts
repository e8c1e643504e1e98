import { expect, test } from "bun:test";
import { pathsAsSent, routableRequest } from "../../src/http/routable-url.ts";

test.each([
  ["http://lb/v1/postLead?x=1", "http://stand-in-host.invalid/v1/postLead?x=1"],
  ["http://x:8/v1/prePing", "http://stand-in-host.invalid/v1/prePing"],
  ["https://ab/healthz", "https://stand-in-host.invalid/healthz"],
])("a short host is replaced for routing: %s", (url, routed) => {
  expect(routableRequest(new Request(url)).url).toBe(routed);
});

test.each([["http://localhost/v1/postLead"], ["https://abc/v1/postLead"], ["http://127.0.0.1:8080/v1/postLead"]])(
  "a host long enough for Elysia is left alone: %s",
  (url) => {
    const request = new Request(url);
    expect(routableRequest(request)).toBe(request);
  },
);

test("the method, headers and body travel with the rewritten request", async () => {
  const routed = routableRequest(new Request("http://lb/v1/postLead", { method: "POST", headers: { authorization: "Basic x" }, body: '{"a":1}' }));
  expect([routed.method, routed.headers.get("authorization"), await routed.text()]).toEqual(["POST", "Basic x", '{"a":1}']);
});

test("the paths as sent: each route path, with and without a trailing slash", () => {
  expect(pathsAsSent(["/healthz", "/v1/leads/:lead_id", "/healthz"])).toEqual(["/healthz", "/healthz/", "/v1/leads/:lead_id", "/v1/leads/:lead_id/"]);
});
