// The answer envelope of docs/contract.md §2, checked three ways: its shape (a documented example),
// an intake answer whatever the body sent (the property tests), and one exact error as it went out.
import { expect } from "bun:test";
import type { RawAnswer } from "./raw-http.ts";

/** The two flags an envelope carries: postLead and the lead lookup's, or prePing's. */
export type EnvelopeFlag = "success_bit" | "can_post_phone_bit";

/** The flag is a boolean; the message a text when the flag is true, else a non-empty list of { error: text }. */
export function expectEnvelopeShape(body: any, flag: EnvelopeFlag): void {
  expect(typeof body[flag]).toBe("boolean");
  if (body[flag] && typeof body.message === "string") return;
  expect(Array.isArray(body.message)).toBe(true);
  expect(body.message.length).toBeGreaterThan(0);
  for (const item of body.message) expect(Object.keys(item)).toEqual(["error"]), expect(typeof item.error).toBe("string");
}

/**
 * What intake answers any body with: a status it gives (200, 400, 413, 422), exactly the envelope's
 * keys (and lead_id with a successful postLead), true with 200 and a text, else false with errors.
 */
export function expectIntakeAnswer(answer: { status: number; body: any }, flag: EnvelopeFlag): void {
  expect([200, 400, 413, 422]).toContain(answer.status);
  const keys = answer.status === 200 && flag === "success_bit" ? ["lead_id", "message", flag] : ["message", flag];
  expect(Object.keys(answer.body).sort()).toEqual(keys.sort());
  if (answer.body[flag] === true) {
    expect(answer.status).toBe(200);
    expect(typeof answer.body.message).toBe("string");
  } else {
    expect(answer.body[flag]).toBe(false);
    expectEnvelopeShape(answer.body, flag);
  }
}

/** A raw HTTP answer that is exactly `status` with the JSON envelope of one `error`. */
export function expectErrorEnvelope(answer: RawAnswer, status: number, flag: EnvelopeFlag, error: string): void {
  expect(answer.status).toBe(status);
  expect(answer.headers["content-type"]).toStartWith("application/json");
  expect(JSON.parse(answer.body)).toEqual({ [flag]: false, message: [{ error }] });
}
