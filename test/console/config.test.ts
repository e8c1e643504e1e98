// The console's options: off unless a port is given; never the vendors' port.
import { expect, test } from "bun:test";
import { defaultConfig, loadConfig } from "../../src/config/index.ts";

test("the console is off by default, on 127.0.0.1 when a port is given; 'off' turns it off", () => {
  expect(defaultConfig()).toMatchObject({ consoleHost: "127.0.0.1", consolePort: undefined, consoleSessionLifetimeMs: 12 * 3_600_000 });
  expect(loadConfig({}, ["--console-port", "8081"]).consolePort).toBe(8081);
  expect(loadConfig({ LEAD_INGRESS_CONSOLE_PORT: "8081" }, ["--console-port", "off"]).consolePort).toBeUndefined();
  expect(loadConfig({}, ["--console-session-lifetime", "30m"]).consoleSessionLifetimeMs).toBe(1_800_000);
});

test("the console's port cannot be the vendors' port, and a session lasts at least a minute", () => {
  expect(() => loadConfig({}, ["--port", "8080", "--console-port", "8080"])).toThrow("--console-port must differ from --port");
  expect(() => loadConfig({}, ["--console-session-lifetime", "10s"])).toThrow("--console-session-lifetime=");
  expect(() => loadConfig({}, ["--console-port", "eighty"])).toThrow("--console-port=");
});
