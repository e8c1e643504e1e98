// The mock receiver's answer rules, without a server.
import { describe, expect, test } from "bun:test";
import { BehaviourError, createBehaviourTable, parseBehaviour, pathCovers, planAnswer } from "../../src/mock-receiver/behaviour.ts";

describe("parseBehaviour", () => {
  test("accepts every field and keeps the path apart", () => {
    const input = { path: "/cb/x", status: 503, failFirst: 2, delayMs: 10, retryAfter: 2, body: "busy" };
    expect(parseBehaviour(input)).toEqual({ path: "/cb/x", behaviour: { status: 503, failFirst: 2, delayMs: 10, retryAfter: "2", body: "busy" } });
  });

  test("no path means the global default", () => {
    expect(parseBehaviour({ status: 410 })).toEqual({ behaviour: { status: 410 } });
    expect(parseBehaviour({ path: null, status: 410 })).toEqual({ behaviour: { status: 410 } });
  });

  test.each([
    ["not an object", [1]],
    ["a typo in a field name", { failfirst: 3 }],
    ["a status out of range", { status: 99 }],
    ["a status that is not a number", { status: "500" }],
    ["a fractional delay", { delayMs: 1.5 }],
    ["a negative failFirst", { failFirst: -1 }],
    ["hang and close together", { hang: true, close: true }],
    ["a non-boolean hang", { hang: "yes" }],
    ["a Retry-After with a line break", { retryAfter: "2\r\nx-injected: 1" }],
    ["a relative path", { path: "cb/x" }],
    ["a path under the control prefix", { path: "/_mock/callbacks" }],
  ])("refuses %s", (_name, input) => {
    expect(() => parseBehaviour(input)).toThrow(BehaviourError);
  });
});

describe("planAnswer", () => {
  test("no behaviour answers 200 at once", () => {
    expect(planAnswer(undefined, 0)).toEqual({ action: "respond", status: 200, delayMs: 0 });
  });

  test("failFirst misbehaves N times, then answers a plain 200", () => {
    const behaviour = { failFirst: 2, retryAfter: "1", delayMs: 5 };
    expect([0, 1, 2, 3].map((seen) => planAnswer(behaviour, seen))).toEqual([
      { action: "respond", status: 500, delayMs: 5, retryAfter: "1", body: undefined },
      { action: "respond", status: 500, delayMs: 5, retryAfter: "1", body: undefined },
      { action: "respond", status: 200, delayMs: 0 },
      { action: "respond", status: 200, delayMs: 0 },
    ]);
  });

  test("without failFirst the behaviour holds for every request", () => {
    expect(planAnswer({ status: 410 }, 1000)).toMatchObject({ status: 410 });
    expect(planAnswer({ close: true }, 1000)).toEqual({ action: "close", delayMs: 0 });
    expect(planAnswer({ hang: true, failFirst: 1 }, 0)).toEqual({ action: "hang" });
    expect(planAnswer({ hang: true, failFirst: 1 }, 1)).toMatchObject({ action: "respond", status: 200 });
  });
});

describe("behaviour table", () => {
  test("a path's behaviour beats the global one; other paths get the global one", () => {
    const table = createBehaviourTable();
    table.set(undefined, { status: 503 });
    table.set("/a", { status: 201 });
    expect(table.next("/a")).toMatchObject({ status: 201 });
    expect(table.next("/b")).toMatchObject({ status: 503 });
    table.reset("/a");
    expect(table.next("/a")).toMatchObject({ status: 503 });
    table.reset();
    expect(table.next("/a")).toMatchObject({ status: 200 });
  });

  test("a global failFirst counts each path on its own, from the moment it is set", () => {
    const table = createBehaviourTable();
    table.next("/a");
    table.set(undefined, { failFirst: 1 });
    expect([table.next("/a"), table.next("/a"), table.next("/b"), table.next("/b")].map((a) => a.action === "respond" && a.status)).toEqual([
      500, 200, 500, 200,
    ]);
  });

  test("a path covers everything under it: /dead answers for /dead/x and /dead/x/y, not for /deadline", () => {
    const table = createBehaviourTable();
    table.set("/dead", { status: 410 });
    const status = (path: string) => {
      const answer = table.next(path);
      return answer.action === "respond" ? answer.status : answer.action;
    };
    expect(["/dead", "/dead/", "/dead/x", "/dead/x/y", "/deadline", "/dea", "/other/dead"].map(status)).toEqual([410, 410, 410, 410, 200, 200, 200]);
  });

  test("the longest covering path wins, whatever the order they were set in; the global one only where none covers", () => {
    for (const order of [
      ["/v", "/v/a", "/v/a/b"],
      ["/v/a/b", "/v/a", "/v"],
    ]) {
      const table = createBehaviourTable();
      table.set(undefined, { status: 503 });
      const statuses: Record<string, number> = { "/v": 500, "/v/a": 502, "/v/a/b": 504 };
      for (const path of order) table.set(path, { status: statuses[path] });
      const status = (path: string) => (table.next(path) as { status: number }).status;
      expect([status("/v/x"), status("/v/a/x"), status("/v/a/b/c"), status("/v/ab"), status("/w")]).toEqual([500, 502, 504, 500, 503]);
      table.reset("/v/a");
      expect(status("/v/a/x")).toBe(500);
    }
  });

  test("a prefix's failFirst counts each path under it on its own", () => {
    const table = createBehaviourTable();
    table.set("/flaky", { failFirst: 1 });
    const statuses = ["/flaky/a", "/flaky/a", "/flaky/b", "/flaky/b"].map((path) => (table.next(path) as { status: number }).status);
    expect(statuses).toEqual([500, 200, 500, 200]);
  });

  test.each([
    ["/dead", "/dead", true],
    ["/dead", "/dead/x", true],
    ["/dead", "/deadline", false],
    ["/dead/", "/dead/x", true],
    ["/dead/", "/dead", false],
    ["/", "/anything/at/all", true],
  ])("pathCovers(%p, %p) is %p", (prefix, path, covers) => {
    expect(pathCovers(prefix, path)).toBe(covers);
  });
});
