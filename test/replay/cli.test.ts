// `lead-ingress replay` arguments: what is required, what is refused, and the defaults.
import { describe, expect, test } from "bun:test";
import { UsageError } from "../../src/cli/args.ts";
import { parseReplayArgs, REPLAY_HELP } from "../../src/cli/replay.ts";

const BASE = ["fixtures/", "--url", "http://127.0.0.1:8080", "--user", "demo", "--password", "demo-password"];

describe("parseReplayArgs", () => {
  test("the minimal command: defaults to a 30 s timeout, no receiver, no features", () => {
    expect(parseReplayArgs(BASE)).toEqual({
      dir: "fixtures/",
      url: "http://127.0.0.1:8080",
      vendor: { user: "demo", password: "demo-password" },
      features: [],
      timeoutMs: 30_000,
    });
  });

  test("every option", () => {
    const options = parseReplayArgs([
      ...BASE,
      "--receiver",
      "http://127.0.0.1:9090",
      "--receiver-secret",
      "whsec_abc",
      "--other-user",
      "other",
      "--other-password",
      "other-password",
      "--suppressed-phone",
      "(212) 555-0199",
      "--database",
      "postgres://replay@127.0.0.1/leads",
      "--with",
      "verify-certificates",
      "--with=rate-limit",
      "--filter",
      "8-callback",
      "--timeout",
      "5s",
    ]);
    expect(options).toEqual({
      dir: "fixtures/",
      url: "http://127.0.0.1:8080",
      vendor: { user: "demo", password: "demo-password" },
      otherVendor: { user: "other", password: "other-password" },
      receiver: "http://127.0.0.1:9090",
      receiverSecret: "whsec_abc",
      suppressedPhone: "(212) 555-0199",
      databaseSetting: "postgres://replay@127.0.0.1/leads",
      filter: "8-callback",
      features: ["verify-certificates", "rate-limit"],
      timeoutMs: 5_000,
    });
  });

  test("--with also takes a comma-separated list", () => {
    expect(parseReplayArgs([...BASE, "--with", "verify-certificates,rate-limit"]).features).toEqual(["verify-certificates", "rate-limit"]);
  });

  test.each([
    ["no folder", BASE.slice(1), "replay needs the fixtures folder"],
    ["no --url", ["fixtures/", "--user", "u", "--password", "p"], "replay needs --url"],
    ["no --password", ["fixtures/", "--url", "http://127.0.0.1:1", "--user", "u"], "replay needs --password"],
    ["a URL that is not http(s)", ["fixtures/", "--url", "ftp://x", "--user", "u", "--password", "p"], "--url must be an http(s) URL"],
    ["an unknown feature", [...BASE, "--with", "time-travel"], "Unknown feature(s) for --with: time-travel"],
    ["half a second vendor", [...BASE, "--other-user", "other"], "--other-user and --other-password go together"],
    ["a bad timeout", [...BASE, "--timeout", "soon"], "--timeout: expected a duration"],
    ["a stray argument", [...BASE, "extra"], "Unexpected argument(s): extra"],
  ])("refuses %s with a usage error", (_name, args, message) => {
    expect(() => parseReplayArgs(args)).toThrow(UsageError);
    expect(() => parseReplayArgs(args)).toThrow(message);
  });

  test("the help names every option", () => {
    for (const flag of [
      "--url",
      "--user",
      "--password",
      "--receiver",
      "--receiver-secret",
      "--other-user",
      "--suppressed-phone",
      "--database",
      "--with",
      "--filter",
      "--timeout",
    ]) {
      expect(REPLAY_HELP).toContain(flag);
    }
  });
});
