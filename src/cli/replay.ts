// `lead-ingress replay DIR …`: replays the fixtures against a running instance and prints a table.
// Exit code 0 when every case that ran passed, 1 on any mismatch, 2 on bad arguments or fixtures.
import { takeFlag, takePositionals, UsageError } from "./args.ts";
import { withExistingDatabase } from "./command.ts";
import { processUserName } from "./os-user.ts";
import { parseDuration } from "../config/parse.ts";
import { cliActor } from "../console/audit.ts";
import { FixtureError, WITH_FEATURES } from "../replay/fixture.ts";
import { tableHeader, tableRow, summaryLine } from "../replay/report.ts";
import type { CaseResult } from "../replay/case.ts";
import { caseNames, runReplay, type ReplayOptions } from "../replay/runner.ts";

export const REPLAY_HELP = `Usage:
  lead-ingress replay DIR --url URL --user USER --password PASSWORD [--receiver URL]
                      [--receiver-secret whsec_...] [--other-user USER --other-password PASSWORD]
                      [--suppressed-phone NUMBER] [--database FILE|postgres://...]
                      [--with FEATURE ...] [--filter TEXT] [--timeout 30s]
      Runs every *.json case under DIR (sorted by path) against the service at URL, with a fresh
      phone number per case, and prints case | expected | got | pass. Exits 1 on any mismatch.
      --receiver         the mock receiver's base URL; cases with callbacks need it (else SKIP).
      --receiver-secret  sets the receiver's signing secret first, so it can check signatures.
      --other-user/--other-password  a second vendor, for "another vendor's lead" cases.
      --suppressed-phone a number on the target's suppression list (lead-ingress suppress add),
                         for the suppression cases.
      --database         the database the service at URL uses: cases with a policy import theirs
                         there (as \`rules import\` does, audited), wait until the service applies
                         it (GET /metrics), and put the one before back after. Only against a test
                         instance: during such a case its policy is the one in force.
      --with FEATURE     the target runs with that feature (repeatable): verify-certificates
                         (started with --verify-certificates), rate-limit (cases may flood it
                         until 429), trustedform (a TrustedForm key, --trustedform-base-url at the
                         receiver's /trustedform). Cases that need a feature not given are skipped.
      --filter TEXT      only cases whose name contains TEXT.
      --timeout 30s      bounds each request, each wait for a callback and each polled step.
  For callbacks to arrive quickly, start the service with a short --hold-period (e.g. 200ms) and
  --allow-private-callbacks (the receiver listens on loopback).`;

export async function replayCommand(args: string[], print: (line: string) => void): Promise<number> {
  const options = parseReplayArgs(args);
  const { dir } = options;
  let names: string[];
  try {
    names = caseNames(dir, options.filter);
  } catch (error) {
    if (!(error instanceof FixtureError)) throw error;
    print(error.message);
    return 2;
  }
  if (names.length === 0) {
    print(`No case under ${dir} matches --filter ${JSON.stringify(options.filter)}`);
    return 2;
  }
  const nameWidth = Math.max(4, ...names.map((name) => name.length));
  const started = performance.now();
  for (const line of tableHeader(nameWidth)) print(line);
  const run = { ...options, onResult: (result: CaseResult) => tableRow(result, nameWidth).forEach((line) => print(line)) };
  const { databaseSetting } = options;
  const report =
    databaseSetting === undefined
      ? await runReplay(dir, run)
      : await withExistingDatabase(databaseSetting, (database) =>
          runReplay(dir, { ...run, database: { store: database.store, actor: cliActor(processUserName()) } }),
        );
  print("");
  print(summaryLine(report, performance.now() - started));
  return report.failed > 0 ? 1 : 0;
}

export function parseReplayArgs(args: string[]): ReplayOptions & { dir: string; databaseSetting?: string } {
  const rest = [...args];
  const url = required(rest, "--url");
  const user = required(rest, "--user");
  const password = required(rest, "--password");
  const receiver = takeFlag(rest, "--receiver");
  const receiverSecret = takeFlag(rest, "--receiver-secret");
  const otherUser = takeFlag(rest, "--other-user");
  const otherPassword = takeFlag(rest, "--other-password");
  const suppressedPhone = takeFlag(rest, "--suppressed-phone");
  const databaseSetting = takeFlag(rest, "--database");
  const filter = takeFlag(rest, "--filter");
  const timeout = takeFlag(rest, "--timeout") ?? "30s";
  const features = takeAll(rest, "--with").flatMap((value) => value.split(","));
  const [dir] = takePositionals(rest, 1);
  if (!dir) throw new UsageError(`replay needs the fixtures folder\n${REPLAY_HELP}`);
  if (rest.length > 0) throw new UsageError(`Unexpected argument(s): ${rest.join(" ")}\n${REPLAY_HELP}`);

  for (const [flag, value] of [
    ["--url", url],
    ["--receiver", receiver],
  ] as const) {
    if (value !== undefined && !/^https?:\/\/[^/\s]+/i.test(value)) throw new UsageError(`${flag} must be an http(s) URL, got ${value}`);
  }
  if ((otherUser === undefined) !== (otherPassword === undefined)) throw new UsageError("--other-user and --other-password go together");
  const unknown = features.filter((feature) => !WITH_FEATURES.includes(feature));
  if (unknown.length > 0) throw new UsageError(`Unknown feature(s) for --with: ${unknown.join(", ")} (known: ${WITH_FEATURES.join(", ")})`);
  let timeoutMs: number;
  try {
    timeoutMs = parseDuration(timeout);
  } catch (error) {
    throw new UsageError(`--timeout: ${(error as Error).message}`);
  }
  if (timeoutMs <= 0) throw new UsageError("--timeout must be more than 0");

  return {
    dir,
    url,
    vendor: { user, password },
    ...(otherUser !== undefined && otherPassword !== undefined ? { otherVendor: { user: otherUser, password: otherPassword } } : {}),
    ...(receiver === undefined ? {} : { receiver }),
    ...(receiverSecret === undefined ? {} : { receiverSecret }),
    ...(suppressedPhone === undefined ? {} : { suppressedPhone }),
    ...(databaseSetting === undefined ? {} : { databaseSetting }),
    ...(filter === undefined ? {} : { filter }),
    features,
    timeoutMs,
  };
}

function required(args: string[], flag: string): string {
  const value = takeFlag(args, flag);
  if (value === undefined || value === "") throw new UsageError(`replay needs ${flag}\n${REPLAY_HELP}`);
  return value;
}

/** Every occurrence of a repeatable flag (bounded by the number of arguments). */
function takeAll(args: string[], flag: string): string[] {
  const values: string[] = [];
  for (let i = args.length; i > 0; i--) {
    const value = takeFlag(args, flag);
    if (value === undefined) break;
    values.push(value);
  }
  return values;
}
