// Checks a parsed fixture file against the format, naming the first problem by its position
// ("steps[1].expect.status must be …"), and fills in defaults.
import { parseDuration } from "../config/parse.ts";
import { checkPolicyDocument } from "../policy/index.ts";
import {
  BASE_LEAD,
  OPTION_FEATURES,
  WITH_FEATURES,
  type Auth,
  type CallbackExpectation,
  type Fixture,
  type FixtureRequest,
  type Json,
  type MockAnswer,
  type ReceiverBehaviour,
  type Step,
} from "./fixture.ts";
import { isMatcher } from "./match.ts";
import { fillPlaceholders, PLACEHOLDERS, SAMPLE_VALUES } from "./placeholders.ts";

const MAX_CONCURRENT = 50;
const MAX_REPEAT = 2_000;
const MAX_BODY_BYTES = 16 * 1024 * 1024;

/** Checks one case's shape; throws an Error naming the first problem. */
export function parseFixture(name: string, file: string, data: unknown): Fixture {
  const root = object(data, "the case");
  allowKeys(root, "the case", ["description", "requires", "receiver", "checks", "certificates", "policy", "steps", "callback"]);
  const description = string(root.description, "description");
  const requires = root.requires === undefined ? [] : array(root.requires, "requires").map((r, i) => feature(r, `requires[${i}]`));
  const receiver = root.receiver === undefined ? [] : array(root.receiver, "receiver").map((b, i) => receiverBehaviour(b, `receiver[${i}]`));
  const checks = root.checks === undefined ? [] : array(root.checks, "checks").map((a, i) => object(a, `checks[${i}]`) as MockAnswer);
  const certificates =
    root.certificates === undefined ? [] : array(root.certificates, "certificates").map((a, i) => object(a, `certificates[${i}]`) as MockAnswer);
  const steps = array(root.steps, "steps").map((s, i) => step(s, `steps[${i}]`));
  if (steps.length === 0) throw new Error("steps must not be empty");
  const callback = root.callback === undefined ? undefined : callbackExpectation(root.callback);
  const policy = root.policy === undefined ? undefined : policyDocument(root.policy);
  checkPlaceholders(data);
  return { name, file, description, requires, receiver, checks, certificates, steps, callback, ...(policy === undefined ? {} : { policy }) };
}

function step(input: unknown, where: string): Step {
  const s = object(input, where);
  allowKeys(s, where, ["request", "expect", "concurrent", "repeat", "poll"]);
  const out: Step = { request: request(s.request, `${where}.request`), expect: { status: 0, body: null } };
  const modes = ["concurrent", "repeat", "poll"].filter((key) => s[key] !== undefined);
  if (modes.length > 1) throw new Error(`${where}: use at most one of concurrent, repeat, poll`);
  if (s.concurrent !== undefined) out.concurrent = integer(s.concurrent, `${where}.concurrent`, 2, MAX_CONCURRENT);
  if (s.repeat !== undefined) {
    const r = object(s.repeat, `${where}.repeat`);
    allowKeys(r, `${where}.repeat`, ["until", "max", "cooldown"]);
    out.repeat = {
      until: integer(r.until, `${where}.repeat.until`, 100, 599),
      max: integer(r.max, `${where}.repeat.max`, 1, MAX_REPEAT),
      cooldownMs: r.cooldown === undefined ? 0 : duration(r.cooldown, `${where}.repeat.cooldown`),
    };
  }
  if (s.poll !== undefined && s.poll !== true) throw new Error(`${where}.poll must be true when present`);
  if (s.poll === true) out.poll = true;

  const e = object(s.expect, `${where}.expect`);
  if (out.concurrent !== undefined) {
    allowKeys(e, `${where}.expect`, ["statusCounts"]);
    const counts = object(e.statusCounts, `${where}.expect.statusCounts`);
    const statusCounts: Record<string, number> = {};
    for (const [status, count] of Object.entries(counts)) statusCounts[status] = integer(count, `${where}.expect.statusCounts.${status}`, 0, MAX_CONCURRENT);
    if (Object.values(statusCounts).reduce((a, b) => a + b, 0) !== out.concurrent)
      throw new Error(`${where}.expect.statusCounts must add up to concurrent (${out.concurrent})`);
    out.expect = { statusCounts };
  } else {
    allowKeys(e, `${where}.expect`, ["status", "headers", "body"]);
    if (!("body" in e)) throw new Error(`${where}.expect.body is required`);
    out.expect = { status: integer(e.status, `${where}.expect.status`, 100, 599), body: e.body as Json };
    if (e.headers !== undefined) out.expect.headers = headers(e.headers, `${where}.expect.headers`);
  }
  return out;
}

function request(input: unknown, where: string): FixtureRequest {
  const r = object(input, where);
  allowKeys(r, where, ["method", "path", "headers", "auth", "body", "lead", "without", "raw", "bodyBytes"]);
  const out: FixtureRequest = { method: string(r.method, `${where}.method`).toUpperCase(), path: string(r.path, `${where}.path`) };
  if (!out.path.startsWith("/")) throw new Error(`${where}.path must start with "/"`);
  if (r.headers !== undefined) out.headers = headers(r.headers, `${where}.headers`);
  if (r.auth !== undefined) out.auth = auth(r.auth, `${where}.auth`);
  const bodies = ["body", "lead", "raw"].filter((key) => r[key] !== undefined || (key === "raw" && r.bodyBytes !== undefined));
  if (bodies.length > 1) throw new Error(`${where}: a body goes alone: one of body, lead, raw (raw and bodyBytes go together)`);
  if (r.without !== undefined && r.lead === undefined) throw new Error(`${where}.without goes with lead`);
  if (r.body !== undefined) out.body = r.body as Json;
  if (r.lead !== undefined) out.body = leadBody(r.lead, r.without, where);
  if (r.raw !== undefined) {
    if (typeof r.raw !== "string") throw new Error(`${where}.raw must be a string`);
    out.raw = r.raw;
  }
  if (r.bodyBytes !== undefined) out.bodyBytes = integer(r.bodyBytes, `${where}.bodyBytes`, 16, MAX_BODY_BYTES);
  return out;
}

/** BASE_LEAD with the case's differences: `lead` sets (or adds) fields, `without` leaves fields out. */
function leadBody(lead: unknown, without: unknown, where: string): Json {
  const body = { ...BASE_LEAD, ...(object(lead, `${where}.lead`) as Record<string, Json>) };
  const omitted = without === undefined ? [] : array(without, `${where}.without`).map((name, i) => string(name, `${where}.without[${i}]`));
  for (const name of omitted) {
    if (!(name in body)) throw new Error(`${where}.without: ${name} is not a field of the lead`);
    delete body[name];
  }
  return body;
}

function auth(input: unknown, where: string): Auth {
  if (input === "vendor" || input === "other-vendor" || input === "none") return input;
  if (typeof input === "string" && input.startsWith("raw:")) return input as `raw:${string}`;
  const credentials = object(input, where);
  allowKeys(credentials, where, ["user", "password"]);
  return { user: string(credentials.user, `${where}.user`), password: string(credentials.password, `${where}.password`) };
}

function feature(input: unknown, where: string): string {
  const name = string(input, where);
  const known = [...WITH_FEATURES, ...OPTION_FEATURES];
  if (!known.includes(name)) throw new Error(`${where}: unknown feature ${JSON.stringify(name)} (known: ${known.join(", ")})`);
  return name;
}

function receiverBehaviour(input: unknown, where: string): ReceiverBehaviour {
  const b = object(input, where);
  if (string(b.path, `${where}.path`)[0] !== "/") throw new Error(`${where}.path must start with "/"`);
  return b as ReceiverBehaviour;
}

/** A policy document the service would import: every problem named now, before anything is sent. */
function policyDocument(input: unknown): { [key: string]: Json } {
  const document = object(input, "policy");
  // Placeholders are filled before the check, so a check's "{{check_url}}" is judged as the URL it will be.
  const checked = checkPolicyDocument(fillPlaceholders(document, SAMPLE_VALUES));
  if (!checked.ok) throw new Error(checked.problems.map((p) => `policy${p.path}: ${p.message}`).join("; "));
  return document as { [key: string]: Json };
}

function callbackExpectation(input: unknown): CallbackExpectation {
  const c = object(input, "callback");
  allowKeys(c, "callback", ["path", "attempts", "expect"]);
  const attempts = c.attempts === undefined ? 1 : integer(c.attempts, "callback.attempts", 1, 10);
  const path = c.path === undefined ? "/callback" : string(c.path, "callback.path");
  if (!path.startsWith("/")) throw new Error(`callback.path must start with "/"`);
  const e = object(c.expect, "callback.expect");
  allowKeys(e, "callback.expect", ["body", "headers", "signature"]);
  if (!("body" in e)) throw new Error("callback.expect.body is required");
  if (e.signature !== undefined && e.signature !== "valid") throw new Error(`callback.expect.signature must be "valid" when present`);
  return {
    path,
    attempts,
    body: e.body as Json,
    ...(e.headers === undefined ? {} : { headers: headers(e.headers, "callback.expect.headers") }),
    ...(e.signature === "valid" ? { signature: "valid" as const } : {}),
  };
}

/** Every "{{…}}" in the case must be a known placeholder, or a matcher standing alone as a value. */
function checkPlaceholders(value: unknown, where = "the case"): void {
  if (typeof value === "string") {
    if (isMatcher(value)) return;
    for (const match of value.matchAll(/\{\{(.*?)\}\}/g)) {
      if ((PLACEHOLDERS as readonly string[]).includes(match[1]!)) continue;
      const hint = isMatcher(match[0]) ? " (a matcher must be the whole value)" : "";
      throw new Error(`${where}: unknown placeholder ${match[0]}${hint}`);
    }
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => checkPlaceholders(item, `${where}[${i}]`));
  } else if (typeof value === "object" && value !== null) {
    for (const [key, item] of Object.entries(value)) checkPlaceholders(item, `${where}.${key}`);
  }
}

function headers(input: unknown, where: string): Record<string, string | null> {
  const h = object(input, where);
  const out: Record<string, string | null> = {};
  for (const [name, value] of Object.entries(h)) {
    if (value !== null && typeof value !== "string") throw new Error(`${where}.${name} must be a string or null`);
    out[name.toLowerCase()] = value;
  }
  return out;
}

function duration(value: unknown, where: string): number {
  try {
    return parseDuration(string(value, where));
  } catch (error) {
    throw new Error(`${where}: ${(error as Error).message}`);
  }
}

function object(value: unknown, where: string): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new Error(`${where} must be an object`);
  return value as Record<string, unknown>;
}

function array(value: unknown, where: string): unknown[] {
  if (!Array.isArray(value)) throw new Error(`${where} must be an array`);
  return value;
}

function string(value: unknown, where: string): string {
  if (typeof value !== "string" || value === "") throw new Error(`${where} must be a non-empty string`);
  return value;
}

function integer(value: unknown, where: string, min: number, max: number): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max)
    throw new Error(`${where} must be a whole number from ${min} to ${max}`);
  return value;
}

function allowKeys(value: Record<string, unknown>, where: string, allowed: string[]): void {
  const unknown = Object.keys(value).filter((key) => !allowed.includes(key));
  if (unknown.length > 0) throw new Error(`${where} has unknown key(s): ${unknown.join(", ")} (allowed: ${allowed.join(", ")})`);
}
