// CONTRACT §4 phone rules and §5's normalised form (E.164, +1NXXNXXXXXX).
import { describe, expect, test } from "bun:test";
import { checkPhoneNumber } from "../../src/intake/phone.ts";

describe("checkPhoneNumber", () => {
  test.each([
    ["2125551234", "+12125551234"],
    ["(212) 555-1234", "+12125551234"],
    ["212.555.1234", "+12125551234"],
    ["212 555 1234", "+12125551234"],
    ["1 212 555 1234", "+12125551234"],
    ["1-212-555-1234", "+12125551234"],
    ["+1 (212) 555-1234", "+12125551234"],
    ["+12125551234", "+12125551234"],
    ["  2125551234  ", "+12125551234"],
    ["8005551234", "+18005551234"],
  ])("%p is a valid NANP number → %s", (raw, e164) => {
    expect(checkPhoneNumber(raw)).toEqual({ ok: true, e164 });
  });

  test("every accepted number is in the form +1NXXNXXXXXX", () => {
    for (const raw of ["2125551234", "(415) 555-2671", "+1 312 555 0199", "1.646.555.0142"]) {
      const check = checkPhoneNumber(raw);
      expect(check.ok && check.e164).toMatch(/^\+1[2-9]\d{2}[2-9]\d{6}$/);
    }
  });

  test("the digits, space and ( ) - . + are the only valid characters", () => {
    expect(checkPhoneNumber("+1 (212) 555-1234.").ok).toBe(true);
  });

  test.each(["212-555-1234 x5", "212_555_1234", "212/5551234", "212,555,1234", "212\t5551234", "212\n5551234", "２１２５５５１２３４", "٢١٢٥٥٥١٢٣٤", "tel:2125551234", "#2125551234", ""])(
    "%p → characters",
    (raw) => {
      expect(checkPhoneNumber(raw)).toEqual({ ok: false, error: "characters" });
    },
  );

  test.each([
    ["too short", "212555123"],
    ["too long", "21255512345"],
    ["area code starting with 1", "1125551234"],
    ["area code starting with 0", "0125551234"],
    ["exchange starting with 1", "2121551234"],
    ["no digits", "() -."],
    ["a lone plus", "+"],
    ["outside NANP (UK)", "+44 20 7946 0958"],
    ["outside NANP (France)", "+33 1 42 68 53 00"],
    ["two numbers run together", "212 555 1234 212 555 9999"],
  ])("%s (%p) → number", (_what, raw) => {
    expect(checkPhoneNumber(raw)).toEqual({ ok: false, error: "number" });
  });
});
