// The mock receiver plays an external check service (docs/contract.md §11, docs/checks.md): a POST
// to /check (or any path under it) is a check request, answered as the tester set for the phone
// number in its fields, so one receiver can pass one number, fail another, and fail to answer a
// third. Set with PUT /_mock/checks (or setCheckAnswer):
//
//   { "phone": "+12125550123", "outcome": "fail", "reason": "Known litigator" }
//   { "phone": "2125550124", "status": 500 }          a non-2xx answer
//   { "phone": "2125550125", "delayMs": 3000 }        slow (then its outcome, pass by default)
//   { "phone": "2125550126", "hang": true }           no answer at all
//   { "outcome": "pass" }                             no phone: every number without its own answer
//
// `check` (a check's name) narrows an answer to that check's requests. Phone numbers are compared
// by their digits, a leading US 1 ignored, so "+1 (212) 555-0123" and "2125550123" are one number.
import { type Answer, BehaviourError, integerIn } from "./behaviour.ts";

export const CHECK_PREFIX = "/check";

/** How to answer one number's check requests. All optional; `{}` passes at once. */
export interface CheckPlay {
  outcome?: "pass" | "fail";
  reason?: string;
  /** Answer this status instead (a non-2xx one is an error to the service). */
  status?: number;
  delayMs?: number;
  hang?: boolean;
  /** The exact body to answer (a malformed answer, say); outcome and reason are then ignored. */
  body?: string;
}

const FIELDS = new Set(["phone", "check", "outcome", "reason", "status", "delayMs", "hang", "body"]);
const MAX_DELAY_MS = 3_600_000;
const MAX_TEXT = 64 * 1024;

/** Is `path` a check endpoint: /check or a path under it. */
export const isCheckPath = (path: string): boolean => path === CHECK_PREFIX || path.startsWith(`${CHECK_PREFIX}/`);

/** A phone number's digits, a leading US 1 dropped: the key answers are set and found by. */
export function phoneKey(phone: string): string {
  const digits = phone.replace(/\D/g, "");
  return digits.length === 11 && digits.startsWith("1") ? digits.slice(1) : digits;
}

/** Checks an answer as sent to PUT /_mock/checks; throws BehaviourError. */
export function parseCheckPlay(input: unknown): { phone?: string; check?: string; play: CheckPlay } {
  if (typeof input !== "object" || input === null || Array.isArray(input)) throw new BehaviourError("a check answer must be a JSON object");
  const fields = input as Record<string, unknown>;
  const unknown = Object.keys(fields).filter((key) => !FIELDS.has(key));
  if (unknown.length > 0) throw new BehaviourError(`unknown field(s): ${unknown.join(", ")}`);
  const play: CheckPlay = {};
  if (fields.outcome !== undefined) {
    if (fields.outcome !== "pass" && fields.outcome !== "fail") throw new BehaviourError('outcome must be "pass" or "fail"');
    play.outcome = fields.outcome;
  }
  if (fields.reason !== undefined) play.reason = text(fields.reason, "reason");
  if (fields.body !== undefined) play.body = text(fields.body, "body");
  if (fields.status !== undefined) play.status = integerIn(fields.status, "status", 200, 599);
  if (fields.delayMs !== undefined) play.delayMs = integerIn(fields.delayMs, "delayMs", 0, MAX_DELAY_MS);
  if (fields.hang !== undefined) {
    if (typeof fields.hang !== "boolean") throw new BehaviourError("hang must be true or false");
    play.hang = fields.hang;
  }
  const phone = fields.phone === undefined || fields.phone === null ? undefined : phoneKey(text(fields.phone, "phone"));
  if (phone === "") throw new BehaviourError("phone must hold digits");
  const check = fields.check === undefined || fields.check === null ? undefined : text(fields.check, "check");
  return { phone, check, play };
}

/** The answer a play gives. */
export function planCheckAnswer(play: CheckPlay | undefined): Answer {
  if (play?.hang) return { action: "hang" };
  const status = play?.status ?? 200;
  const outcome = play?.outcome ?? "pass";
  const reason = play?.reason ?? (outcome === "fail" ? "Failed by the mock check" : "Passed by the mock check");
  const body = play?.body ?? (status >= 200 && status < 300 ? JSON.stringify({ outcome, reason }) : undefined);
  return { action: "respond", status, delayMs: play?.delayMs ?? 0, body };
}

export interface CheckTable {
  set(phone: string | undefined, check: string | undefined, play: CheckPlay): void;
  /** Forgets one number's answers (every check's), or all of them. */
  reset(phone?: string): void;
  /** The answer to a check request's parsed body: by its phone and check, its phone, its check, else the default. */
  next(body: unknown): Answer;
  describe(): { phone: string | null; check: string | null; answer: CheckPlay }[];
}

const keyOf = (phone: string | undefined, check: string | undefined) => JSON.stringify([phone ?? null, check ?? null]);

export function createCheckTable(): CheckTable {
  const plays = new Map<string, { phone?: string; check?: string; play: CheckPlay }>();
  return {
    set(phone, check, play) {
      plays.set(keyOf(phone, check), { phone, check, play });
    },
    reset(phone) {
      if (phone === undefined) return plays.clear();
      const key = phoneKey(phone);
      for (const [entryKey, entry] of plays) if (entry.phone === key) plays.delete(entryKey);
    },
    next(body) {
      const request = typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {};
      const check = typeof request.check === "string" ? request.check : undefined;
      const fields = typeof request.fields === "object" && request.fields !== null ? (request.fields as Record<string, unknown>) : {};
      const phone = typeof fields.phone_number === "string" ? phoneKey(fields.phone_number) : undefined;
      const candidates = [keyOf(phone, check), keyOf(phone, undefined), keyOf(undefined, check), keyOf(undefined, undefined)];
      const found = candidates.map((key) => plays.get(key)).find((entry) => entry !== undefined);
      return planCheckAnswer(found?.play);
    },
    describe: () => [...plays.values()].map(({ phone, check, play }) => ({ phone: phone ?? null, check: check ?? null, answer: play })),
  };
}

function text(value: unknown, name: string): string {
  if (typeof value !== "string" || value.length > MAX_TEXT) throw new BehaviourError(`${name} must be a string of at most ${MAX_TEXT} characters`);
  return value;
}
