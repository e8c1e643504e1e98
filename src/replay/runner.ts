// Replays a fixtures folder against a running instance: every case in file order, one at a time.
import { runCase, type CaseResult, type ReplayContext } from "./case.ts";
import { loadFixtures } from "./fixture.ts";
import { receiverClient } from "./receiver.ts";
import type { Credentials } from "./request.ts";

export interface ReplayOptions {
  /** The service's base URL. */
  url: string;
  vendor: Credentials;
  /** A second vendor, for "someone else's lead" cases. */
  otherVendor?: Credentials;
  /** The mock receiver's base URL. */
  receiver?: string;
  /** A number already on the target's suppression list. */
  suppressedPhone?: string;
  /** Sets the receiver's signing secret (PUT /_mock/secret) before the run. */
  receiverSecret?: string;
  /** Features the target was started with, e.g. "verify-certificates". */
  features?: Iterable<string>;
  /** Only cases whose name contains this text. */
  filter?: string;
  /** Bounds every request, every wait for a callback and every polled step. */
  timeoutMs: number;
  /** Called as each case finishes (the CLI prints its row then). */
  onResult?: (result: CaseResult) => void;
}

export interface ReplayReport {
  results: CaseResult[];
  passed: number;
  failed: number;
  skipped: number;
}

/** Names of the cases a replay of `dir` would run (after the filter), for laying out the table. */
export function caseNames(dir: string, filter?: string): string[] {
  return loadFixtures(dir)
    .map((fixture) => fixture.name)
    .filter((name) => filter === undefined || name.includes(filter));
}

/** Loads (throws FixtureError on a bad file) and runs every case; never throws for a failing case. */
export async function runReplay(dir: string, options: ReplayOptions): Promise<ReplayReport> {
  const fixtures = loadFixtures(dir).filter((fixture) => options.filter === undefined || fixture.name.includes(options.filter));
  const trim = (url: string) => url.replace(/\/+$/, "");
  const receiver =
    options.receiver === undefined ? undefined : { url: trim(options.receiver), client: receiverClient(trim(options.receiver), options.timeoutMs) };
  if (receiver && options.receiverSecret !== undefined) await receiver.client.setSecret(options.receiverSecret);
  const context: ReplayContext = {
    target: { url: trim(options.url), vendor: options.vendor, otherVendor: options.otherVendor, timeoutMs: options.timeoutMs },
    receiver,
    ...(options.suppressedPhone === undefined ? {} : { suppressedPhone: options.suppressedPhone }),
    features: new Set(options.features ?? []),
    runId: Buffer.from(crypto.getRandomValues(new Uint8Array(4))).toString("hex"),
  };
  const results: CaseResult[] = [];
  for (const fixture of fixtures) {
    const result = await runCase(fixture, context);
    results.push(result);
    options.onResult?.(result);
  }
  const count = (outcome: CaseResult["outcome"]) => results.filter((r) => r.outcome === outcome).length;
  return { results, passed: count("pass"), failed: count("fail"), skipped: count("skip") };
}
