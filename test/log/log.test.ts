import { expect, setSystemTime, test } from "bun:test";
import { createLogger, maskPhone } from "../../src/log/index.ts";

test("maskPhone keeps the country code and the last four digits only", () => {
  expect(maskPhone("+12125550123")).toBe("+1******0123");
  expect(maskPhone("123")).toBe("****");
});

test("one JSON object per line, with time, level and event; levels filter", () => {
  const lines: string[] = [];
  const info = createLogger("info", (line) => lines.push(line));
  info.info("request", { status: 200 });
  info.error("boom", {});
  createLogger("error", (line) => lines.push(line)).info("hidden");
  createLogger("silent", (line) => lines.push(line)).error("hidden");
  expect(lines.map((l) => l.endsWith("\n"))).toEqual([true, true]);
  expect(lines.map((l) => JSON.parse(l))).toEqual([
    { time: expect.any(String), level: "info", event: "request", status: 200 },
    { time: expect.any(String), level: "error", event: "boom" },
  ]);
});

test("each level logs its own lines and those of the levels after it: info, warn, error", () => {
  const said = (level: "info" | "warn" | "error" | "silent") => {
    const events: string[] = [];
    const log = createLogger(level, (line) => events.push(JSON.parse(line).level));
    log.info("a");
    log.warn("b");
    log.error("c");
    return events;
  };
  expect(said("info")).toEqual(["info", "warn", "error"]);
  expect(said("warn")).toEqual(["warn", "error"]);
  expect(said("error")).toEqual(["error"]);
  expect(said("silent")).toEqual([]);
});

test("each line carries the time it was logged, in ISO 8601 UTC", () => {
  const times: string[] = [];
  const log = createLogger("info", (line) => times.push(JSON.parse(line).time));
  try {
    setSystemTime(new Date("2026-11-21T10:00:00.001Z"));
    log.info("a");
    log.info("b");
    setSystemTime(new Date("2026-11-21T10:00:00.002Z"));
    log.info("c");
  } finally {
    setSystemTime();
  }
  expect(times).toEqual(["2026-11-21T10:00:00.001Z", "2026-11-21T10:00:00.001Z", "2026-11-21T10:00:00.002Z"]);
});

test.each([
  ["an uncaught exception", "throw", 1],
  ["process.exit", "exit", 3],
  ["a normal end", "end", 0],
])("buffered lines are written, in order, when the process ends by %s", async (_name, how, code) => {
  const child = Bun.spawn([process.execPath, `${import.meta.dir}/scripts/log-then-crash.ts`, how], { stdout: "pipe", stderr: "ignore" });
  const out = await new Response(child.stdout).text();
  expect(await child.exited).toBe(code);
  expect(
    out
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line).event),
  ).toEqual(["first", "second"]);
});

test.each([
  ["after flush() resolved, a kill -9 loses none of the lines logged before it", "flush", ["flushed"]],
  ["without flush(), a kill -9 loses the lines of the turn it interrupts", "none", []],
])("%s", async (_name, how, expected) => {
  const child = Bun.spawn([process.execPath, `${import.meta.dir}/scripts/log-flush-then-kill.ts`, how], { stdout: "pipe", stderr: "ignore" });
  const out = await new Response(child.stdout).text();
  await child.exited;
  expect(child.signalCode).toBe("SIGKILL");
  expect(
    out
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line).event),
  ).toEqual(expected);
});
