// The fixture format: one JSON file per case (see fixtures/README.md). Loading checks each file's
// shape up front, so a typo in a fixture is reported with its file name before anything is sent.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { EXAMPLE_LEAD } from "../intake/lead-schema.ts";
import { parseFixture } from "./parse-fixture.ts";

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * The lead a case's `lead` states its differences from: the lead schema's example, with the case's
 * own fresh number, and a campaign that marks replayed leads in the target's database.
 */
export const BASE_LEAD: Record<string, Json> = { ...EXAMPLE_LEAD, phone_number: "{{phone}}", vendor_campaign_name: "replay" };

/** "vendor" (the default), "other-vendor", "none", explicit credentials, or "raw:<header value>". */
export type Auth = "vendor" | "other-vendor" | "none" | `raw:${string}` | { user: string; password: string };

export interface FixtureRequest {
  method: string;
  path: string;
  /** A null value means "do not send this header" (content-type: null sends the body untyped). */
  headers?: Record<string, string | null>;
  auth?: Auth;
  /** A JSON value, sent as JSON text; a case's `lead` (and `without`) becomes the body here. */
  body?: Json;
  /** Text sent as it is (malformed JSON, for instance). */
  raw?: string;
  /** A body of exactly this many bytes: `raw` padded with spaces, or else a JSON object. */
  bodyBytes?: number;
}

export interface ResponseExpectation {
  status: number;
  /** A null value means "must be absent". */
  headers?: Record<string, string | null>;
  body: Json;
}

/** For a concurrent step: how many answers of each status, e.g. { "200": 1, "422": 9 }. */
export interface CountExpectation {
  statusCounts: Record<string, number>;
}

export interface Step {
  request: FixtureRequest;
  expect: ResponseExpectation | CountExpectation;
  /** Sends this many copies of the request at once; expect.statusCounts then applies. */
  concurrent?: number;
  /**
   * Resends (10 at a time) until an answer has status `until`, at most `max` requests in all; then
   * waits out its Retry-After, or `cooldown` ("2s") when longer, so later cases start afresh.
   */
  repeat?: { until: number; max: number; cooldownMs: number };
  /** Resends every 100 ms until the answer matches, or --timeout passes. */
  poll?: boolean;
}

/** What the mock receiver answers on one of the case's paths (PUT /_mock/behaviour, path relative). */
export type ReceiverBehaviour = { path: string } & Record<string, Json>;

export interface CallbackExpectation {
  /** Under the case's receiver prefix; default "/callback". */
  path: string;
  body: Json;
  headers?: Record<string, string | null>;
  /** "valid": the receiver must report a valid Standard Webhooks signature. */
  signature?: "valid";
  /** Wait for this many deliveries (retries, when the receiver is told to fail first); default 1. */
  attempts: number;
}

export interface Fixture {
  /** The file's path under the fixtures folder, without ".json": "3-auth/wrong-password". */
  name: string;
  file: string;
  description: string;
  requires: string[];
  receiver: ReceiverBehaviour[];
  steps: Step[];
  callback?: CallbackExpectation;
  /**
   * An acceptance policy document (docs/policy.md), placeholders filled, in force during the case
   * only: imported into the target's database before the first step, the one before put back after.
   */
  policy?: { [key: string]: Json };
}

export class FixtureError extends Error {}

/** What the target was started with, declared by `--with` (see fixtures/README.md). */
export const WITH_FEATURES = ["verify-certificates", "rate-limit", "trustedform"];
/** What other replay options provide; cases may list these too, though their content implies them. */
export const OPTION_FEATURES = ["receiver", "other-vendor", "suppressed-phone", "database"];

/** Every *.json under `dir` (recursively), sorted by path, checked and parsed. */
export function loadFixtures(dir: string): Fixture[] {
  let files: string[];
  try {
    files = listJsonFiles(dir);
  } catch (error) {
    throw new FixtureError(`Cannot read fixtures folder ${dir}: ${(error as Error).message}`);
  }
  if (files.length === 0) throw new FixtureError(`No *.json fixtures under ${dir}`);
  return files.map((file) => {
    const name = relative(dir, file)
      .split(sep)
      .join("/")
      .replace(/\.json$/, "");
    let data: unknown;
    try {
      data = JSON.parse(readFileSync(file, "utf8"));
    } catch (error) {
      throw new FixtureError(`${file}: not valid JSON: ${(error as Error).message}`);
    }
    try {
      return parseFixture(name, file, data);
    } catch (error) {
      throw new FixtureError(`${file}: ${(error as Error).message}`);
    }
  });
}

function listJsonFiles(dir: string): string[] {
  const out: string[] = [];
  // Bounded: folders nest, but a fixtures tree deeper than this is a mistake (or a symlink loop).
  const walk = (folder: string, depth: number) => {
    if (depth > 8) throw new Error(`folders nested too deep at ${folder}`);
    for (const entry of readdirSync(folder).sort()) {
      const path = join(folder, entry);
      if (statSync(path).isDirectory()) walk(path, depth + 1);
      else if (entry.endsWith(".json")) out.push(path);
    }
  };
  walk(dir, 0);
  return out.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
