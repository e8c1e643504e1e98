// Config: compiled-in defaults, then LEAD_INGRESS_* env, then flags; every problem reported at once.
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, defaultConfig, describeOptions, loadConfig, OPTIONS } from "../../src/config/index.ts";
import {
  parseAddressRanges,
  parseBoolean,
  parseCredentials,
  parseDuration,
  parseDurationList,
  parseInteger,
  parseNonEmpty,
  parsePositiveNumber,
  parseSize,
} from "../../src/config/parse.ts";

function problemsOf(env: Record<string, string | undefined>, argv: string[] = []): string[] {
  try {
    loadConfig(env, argv);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error("expected a ConfigError");
}

describe("parseDuration", () => {
  test.each([
    ["500ms", 500],
    ["60s", 60_000],
    ["5m", 300_000],
    ["2h", 7_200_000],
    ["30d", 2_592_000_000],
    ["1.5s", 1_500],
    ["0s", 0],
    [" 10s ", 10_000],
  ])("%p → %d ms", (raw, ms) => {
    expect(parseDuration(raw)).toBe(ms);
  });

  test.each(["", "60", "s", "-5s", "5 s", "5sec", "5S", "1e3ms", "5m30s", "abc"])("%p is refused", (raw) => {
    expect(() => parseDuration(raw)).toThrow("expected a duration such as 500ms, 60s, 5m, 2h or 30d");
  });
});

describe("parseDurationList", () => {
  test("reads durations separated by commas", () => {
    expect(parseDurationList("5s, 5m,30m")).toEqual([5_000, 300_000, 1_800_000]);
  });

  test.each(["", "5s,", ",5s", "5s,,5m"])("%p (an empty item) is refused", (raw) => {
    expect(() => parseDurationList(raw)).toThrow("expected durations separated by commas");
  });

  test("a bad item is refused", () => {
    expect(() => parseDurationList("5s,soon")).toThrow("expected a duration");
  });
});

describe("parseSize", () => {
  test.each([
    ["65536", 65_536],
    ["64KiB", 65_536],
    ["64kib", 65_536],
    ["64 KiB", 65_536],
    ["64kB", 64_000],
    ["1MiB", 1_048_576],
    ["1MB", 1_000_000],
    ["100b", 100],
  ])("%p → %d bytes", (raw, bytes) => {
    expect(parseSize(raw)).toBe(bytes);
  });

  test.each(["", "KiB", "64k", "1.5MiB", "-1", "64 GiB", "lots"])("%p is refused", (raw) => {
    expect(() => parseSize(raw)).toThrow("expected a size such as 65536, 64KiB or 1MiB");
  });
});

describe("parseInteger", () => {
  const port = parseInteger(0, 65535);

  test.each([
    ["0", 0],
    ["8080", 8080],
    ["65535", 65535],
    [" 42 ", 42],
  ])("%p → %d", (raw, value) => {
    expect(port(raw)).toBe(value);
  });

  test.each(["-1", "65536", "80.5", "1e3", "0x50", "", "eighty"])("%p is refused", (raw) => {
    expect(() => port(raw)).toThrow("expected a whole number from 0 to 65535");
  });
});

describe("parsePositiveNumber", () => {
  test.each([
    ["1", 1],
    ["0.001", 0.001],
    [" 2.5 ", 2.5],
  ])("%p → %d", (raw, value) => {
    expect(parsePositiveNumber(raw)).toBe(value);
  });

  test.each(["", " ", "0", "-1", "Infinity", "NaN", "fast"])("%p is refused", (raw) => {
    expect(() => parsePositiveNumber(raw)).toThrow("expected a number greater than 0");
  });
});

describe("parseBoolean", () => {
  test.each(["1", "true", "TRUE", "yes", "on", " On "])("%p → true", (raw) => {
    expect(parseBoolean(raw)).toBe(true);
  });

  test.each(["0", "false", "no", "off"])("%p → false", (raw) => {
    expect(parseBoolean(raw)).toBe(false);
  });

  test.each(["", "maybe", "2"])("%p is refused", (raw) => {
    expect(() => parseBoolean(raw)).toThrow("expected true or false");
  });
});

describe("parseNonEmpty", () => {
  test("keeps a value", () => {
    expect(parseNonEmpty("db.sqlite")).toBe("db.sqlite");
  });

  test.each(["", "   "])("%p is refused", (raw) => {
    expect(() => parseNonEmpty(raw)).toThrow("must not be empty");
  });
});

describe("parseCredentials", () => {
  test("splits NAME:PASSWORD at the first colon", () => {
    expect(parseCredentials("acme:pass:word")).toEqual({ name: "acme", password: "pass:word" });
  });

  test("a password of exactly 8 characters is enough", () => {
    expect(parseCredentials("acme:12345678")).toEqual({ name: "acme", password: "12345678" });
  });

  test.each(["acme", ":password1", "acme:1234567", "acme:", "bad name:password1", "a/b:password1"])("%p is refused", (raw) => {
    expect(() => parseCredentials(raw)).toThrow("expected NAME:PASSWORD");
  });
});

describe("parseAddressRanges", () => {
  test("reads addresses and CIDR ranges separated by commas", () => {
    expect(parseAddressRanges("10.0.0.0/8, 127.0.0.1,fd00::/8")).toEqual(["10.0.0.0/8", "127.0.0.1", "fd00::/8"]);
  });

  test.each(["lb.internal", "10.0.0.0/8,", "10.0.0.0/40", "127.0.0.1, nginx"])("%p is refused", (raw) => {
    expect(() => parseAddressRanges(raw)).toThrow("expected an IP address or CIDR range");
  });
});

describe("loadConfig", () => {
  test("trusted proxies: none by default (X-Forwarded-For is ignored); set by flag or environment; a typo stops the start", () => {
    expect(loadConfig({}, []).trustedProxies).toEqual([]);
    expect(loadConfig({}, ["--trusted-proxies", "127.0.0.1,10.0.0.0/8"]).trustedProxies).toEqual(["127.0.0.1", "10.0.0.0/8"]);
    expect(loadConfig({ LEAD_INGRESS_TRUSTED_PROXIES: "192.0.2.1" }, []).trustedProxies).toEqual(["192.0.2.1"]);
    expect(problemsOf({ LEAD_INGRESS_TRUSTED_PROXIES: "lb.internal" })).toEqual([
      'LEAD_INGRESS_TRUSTED_PROXIES="lb.internal": expected an IP address or CIDR range such as 10.0.0.0/8',
    ]);
  });

  test("a flag missing its value does not swallow the next flag", () => {
    expect(problemsOf({}, ["--port", "--host", "0.0.0.0"])).toEqual(["--port: needs a value"]);
  });

  test("defaults match the contract: 64 KiB body, 30-day window, 60 s hold, rate limit on", () => {
    const config = loadConfig({}, []);
    expect(config).toEqual(defaultConfig());
    expect(config.bodyLimitBytes).toBe(65_536);
    expect(config.duplicateWindowMs).toBe(30 * 24 * 3_600_000);
    expect(config.holdPeriodMs).toBe(60_000);
    expect(config.rateLimitPerSecond).toBeGreaterThan(0);
    expect(config.rateLimitBurst).toBeGreaterThan(0);
    expect(config.bootstrapVendor).toBeUndefined();
    expect(config.benchNoopRoute).toBe(false);
  });

  test("callback and final-result defaults match the contract (§7, §8)", () => {
    const config = loadConfig({}, []);
    expect(config.callbackTimeoutMs).toBe(10_000);
    expect(config.callbackRetrySchedule).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
    expect(config.callbackRetryScale).toBe(1);
    expect(config.verifyCertificates).toBe(false);
    expect(config.allowPrivateCallbacks).toBe(false);
  });

  test("the retry schedule is read as a list of durations", () => {
    expect(loadConfig({ LEAD_INGRESS_CALLBACK_RETRY_SCHEDULE: "10ms,20ms,1s" }, []).callbackRetrySchedule).toEqual([10, 20, 1_000]);
    expect(problemsOf({ LEAD_INGRESS_CALLBACK_RETRY_SCHEDULE: "10ms,,1s" })).toHaveLength(1);
  });

  test("environment variables override defaults", () => {
    const config = loadConfig(
      {
        LEAD_INGRESS_PORT: "9000",
        LEAD_INGRESS_BODY_LIMIT: "1MiB",
        LEAD_INGRESS_DUPLICATE_WINDOW: "2h",
        LEAD_INGRESS_RATE_LIMIT: "0",
        LEAD_INGRESS_HOLD_PERIOD: "500ms",
        LEAD_INGRESS_BOOTSTRAP_VENDOR: "acme:secret-password",
        LEAD_INGRESS_LOG_LEVEL: "silent",
      },
      [],
    );
    expect(config).toMatchObject({
      port: 9000,
      bodyLimitBytes: 1_048_576,
      duplicateWindowMs: 7_200_000,
      rateLimitPerSecond: 0,
      holdPeriodMs: 500,
      bootstrapVendor: { name: "acme", password: "secret-password" },
      logLevel: "silent",
    });
  });

  test("SQLite's page cache is a size: 4 MiB unless set", () => {
    expect(loadConfig({}, []).sqliteCacheBytes).toBe(4 * 1024 * 1024);
    expect(loadConfig({ LEAD_INGRESS_SQLITE_CACHE_SIZE: "16MiB" }, []).sqliteCacheBytes).toBe(16 * 1024 * 1024);
  });

  test("an empty environment variable is treated as unset", () => {
    expect(loadConfig({ LEAD_INGRESS_PORT: "" }, []).port).toBe(defaultConfig().port);
  });

  test("unrelated environment variables are ignored", () => {
    expect(loadConfig({ PORT: "1", HOME: "/root" }, [])).toEqual(defaultConfig());
  });

  test("flags override environment variables", () => {
    expect(loadConfig({ LEAD_INGRESS_PORT: "9000" }, ["--port", "9100"]).port).toBe(9100);
  });

  test("flags take --name value and --name=value", () => {
    const config = loadConfig({}, ["--port=0", "--database", "/tmp/x.db", "--hold-period=1s"]);
    expect(config).toMatchObject({ port: 0, databasePath: "/tmp/x.db", holdPeriodMs: 1_000 });
  });

  test("a value after = may itself contain =", () => {
    expect(loadConfig({}, ["--database=/tmp/a=b.db"]).databasePath).toBe("/tmp/a=b.db");
  });

  test("a boolean flag alone means true, also before another flag", () => {
    expect(loadConfig({}, ["--bench-noop-route"]).benchNoopRoute).toBe(true);
    expect(loadConfig({}, ["--bench-noop-route", "--port", "1"])).toMatchObject({ benchNoopRoute: true, port: 1 });
  });

  test("a boolean flag takes an explicit value", () => {
    expect(loadConfig({ LEAD_INGRESS_BENCH_NOOP_ROUTE: "true" }, ["--bench-noop-route", "false"]).benchNoopRoute).toBe(false);
    expect(loadConfig({}, ["--bench-noop-route=off"]).benchNoopRoute).toBe(false);
  });

  test("the result is frozen", () => {
    expect(Object.isFrozen(loadConfig({}, []))).toBe(true);
  });

  test("a bad environment value names the variable, the value and what was expected", () => {
    expect(problemsOf({ LEAD_INGRESS_PORT: "http" })).toEqual(['LEAD_INGRESS_PORT="http": expected a whole number from 0 to 65535']);
  });

  test("a bad flag value names the flag", () => {
    expect(problemsOf({}, ["--duplicate-window", "30"])).toEqual(['--duplicate-window="30": expected a duration such as 500ms, 60s, 5m, 2h or 30d']);
  });

  test("a flag without its value is a problem", () => {
    expect(problemsOf({}, ["--port"])).toEqual(["--port: needs a value"]);
  });

  test("an unknown flag is a problem", () => {
    expect(problemsOf({}, ["--prot", "9000"])).toContain('unknown option "--prot" (see --help)');
  });

  test("a bad log level lists the allowed values", () => {
    expect(problemsOf({ LEAD_INGRESS_LOG_LEVEL: "debug" })).toEqual(['LEAD_INGRESS_LOG_LEVEL="debug": expected one of info, warn, error, silent']);
  });

  test("every problem is reported at once", () => {
    const problems = problemsOf({ LEAD_INGRESS_PORT: "-1", LEAD_INGRESS_BODY_LIMIT: "big", LEAD_INGRESS_BOOTSTRAP_VENDOR: "acme:short" }, [
      "--rate-limit-burst",
      "0",
      "--nope",
    ]);
    expect(problems).toHaveLength(5);
    expect(problems.join("\n")).toContain("LEAD_INGRESS_PORT");
    expect(problems.join("\n")).toContain("LEAD_INGRESS_BODY_LIMIT");
    expect(problems.join("\n")).toContain("LEAD_INGRESS_BOOTSTRAP_VENDOR");
    expect(problems.join("\n")).toContain("--rate-limit-burst");
    expect(problems.join("\n")).toContain("--nope");
  });

  test("ConfigError's message lists every problem", () => {
    const error = new ConfigError(["first", "second"]);
    expect(error.message).toBe("Invalid configuration:\n  - first\n  - second");
  });

  // KNOWN BUG (reported, not fixed here: src/config/index.ts echoes every raw value): a refused
  // LEAD_INGRESS_BOOTSTRAP_VENDOR prints its password to stderr (docs/contract.md §9: "no passwords").
  test("the bootstrap vendor's password is not echoed when the setting is refused", () => {
    const problems = problemsOf({ LEAD_INGRESS_BOOTSTRAP_VENDOR: ":correct-horse-battery" });
    expect(problems).toHaveLength(1);
    expect(problems.join("\n")).not.toContain("correct-horse-battery");
  });
});

describe("bounds that keep the service sane", () => {
  test.each([
    [["--body-limit", "0"], "--body-limit"],
    [["--worker-poll-interval", "0ms"], "--worker-poll-interval"],
    [["--callback-timeout", "0ms"], "--callback-timeout"],
    [["--callback-retry-scale", "1e308"], "--callback-retry-scale"],
    [["--sqlite-cache-size", "1KiB"], "--sqlite-cache-size"],
  ])("%p is refused", (argv, flag) => {
    expect(problemsOf({}, argv)).toEqual([expect.stringContaining(flag)]);
  });

  test("a hold period as long as the duplicate window is refused (two leads could both be accepted)", () => {
    expect(problemsOf({}, ["--hold-period", "1h", "--duplicate-window", "1h"])).toEqual(["--hold-period must be shorter than --duplicate-window"]);
  });
});

describe("--help's defaults (issue 26)", () => {
  const help = describeOptions().split("\n");
  const printedDefault = (flag: string) => {
    const line = help.find((row) => row.startsWith(`  ${flag} / `));
    const match = /\((?:default: (.*)|unset by default)\)$/.exec(line ?? "");
    if (!match) throw new Error(`--help has no default for ${flag}: ${line}`);
    return match[1];
  };

  test.each(OPTIONS.map((o) => [o.flag, o.key] as const))("%s: the printed default, passed back as the flag, gives the default value", (flag, key) => {
    const printed = printedDefault(flag);
    if (printed === undefined) {
      // Unset: nothing to parse back; the setting is absent (no value, or an empty list).
      expect(JSON.stringify(defaultConfig()[key]) ?? "absent").toMatch(/^(absent|\[\])$/);
      return;
    }
    expect(loadConfig({}, [`${flag}=${printed}`])[key]).toEqual(defaultConfig()[key]);
  });

  test("the defaults are printed as an operator writes them: 60s, 30d, off", () => {
    expect([printedDefault("--hold-period"), printedDefault("--duplicate-window"), printedDefault("--console-port")]).toEqual(["60s", "30d", "off"]);
    expect(printedDefault("--callback-retry-schedule")).toBe("5s,5m,30m,2h,5h,10h,10h");
    expect(printedDefault("--tls-cert")).toBeUndefined();
  });
});

describe("start-up settings that name what to change (issue 26)", () => {
  test("--host: a dotted number that is no address is refused at once, naming the flag", () => {
    expect(problemsOf({}, ["--host", "999.1.1.1"])).toEqual([
      '--host="999.1.1.1": expected an IP address of this machine (such as 127.0.0.1, 0.0.0.0 or ::) or a host name',
    ]);
    expect(loadConfig({}, ["--host", "::"]).host).toBe("::");
    expect(loadConfig({}, ["--console-host", "localhost"]).consoleHost).toBe("localhost");
  });

  test("--database: a mysql:// URL is refused naming the flag (it was taken for a SQLite file's name); postgres:// and paths pass", () => {
    expect(problemsOf({}, ["--database", "mysql://app:pw@127.0.0.1/leads"])).toEqual([
      "--database: expected a SQLite file's path or a postgres:// URL (mysql:// is not supported)",
    ]);
    expect(loadConfig({}, ["--database", "postgresql://u@127.0.0.1/db"]).databasePath).toBe("postgresql://u@127.0.0.1/db");
    expect(loadConfig({}, ["--database", "data/leads.db"]).databasePath).toBe("data/leads.db");
  });

  test("--tls-key and --tls-cert: a file that is not a PEM key or certificate is refused naming the flag and the file", () => {
    const dir = mkdtempSync(join(tmpdir(), "lead-ingress-pem-"));
    try {
      const garbage = join(dir, "garbage.pem");
      const cert = join(dir, "cert.pem");
      writeFileSync(garbage, "not a key\n");
      writeFileSync(cert, "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n");
      expect(problemsOf({}, ["--tls-cert", cert, "--tls-key", garbage])).toEqual([
        `--tls-key="${garbage}": expected a PEM private key (-----BEGIN PRIVATE KEY-----); ${garbage} holds none`,
      ]);
      expect(problemsOf({}, ["--tls-cert", garbage, "--tls-key", cert])).toEqual([
        `--tls-cert="${garbage}": expected a PEM certificate (-----BEGIN CERTIFICATE-----); ${garbage} holds none`,
        `--tls-key="${cert}": expected a PEM private key (-----BEGIN PRIVATE KEY-----); ${cert} holds none`,
      ]);
      expect(problemsOf({}, ["--tls-cert", cert, "--tls-key", join(dir, "missing.pem")])).toEqual([
        `--tls-key="${join(dir, "missing.pem")}": expected a readable file`,
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
