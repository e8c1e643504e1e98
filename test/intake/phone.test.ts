// docs/contract.md §4 phone rules and §5's normalised form (E.164, +1NXXNXXXXXX).
import { describe, expect, spyOn, test } from "bun:test";
import fc from "fast-check";
import * as libphonenumber from "libphonenumber-js/min";
import { parsePhoneNumberFromString } from "libphonenumber-js/min";
import { checkPhoneNumber, type PhoneCheck } from "../../src/intake/phone.ts";

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

  test.each([
    "212-555-1234 x5",
    "212_555_1234",
    "212/5551234",
    "212,555,1234",
    "212\t5551234",
    "212\n5551234",
    "２１２５５５１２３４",
    "٢١٢٥٥٥١٢٣٤",
    "tel:2125551234",
    "#2125551234",
    "",
  ])("%p → characters", (raw) => {
    expect(checkPhoneNumber(raw)).toEqual({ ok: false, error: "characters" });
  });

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

describe("checkPhoneNumber's fast path", () => {
  // The definition the fast path must keep: libphonenumber's full parse, as docs/contract.md §4 reads.
  function fullParse(value: string): PhoneCheck {
    if (!/^[0-9 ().+-]+$/.test(value)) return { ok: false, error: "characters" };
    const parsed = parsePhoneNumberFromString(value, "US");
    return parsed && parsed.countryCallingCode === "1" && parsed.isValid() ? { ok: true, e164: parsed.number } : { ok: false, error: "number" };
  }

  const digits = (n: number) => fc.stringMatching(new RegExp(`^[0-9]{${n}}$`));
  // Real area codes of the US, Canada, Puerto Rico, the Caribbean and toll-free, and any three digits.
  const areaCode = fc.oneof(fc.constantFrom("212", "415", "800", "416", "604", "787", "939", "876", "242", "671", "340"), digits(3));
  const separator = fc.constantFrom("", " ", "-", ".");
  const commonForm = fc
    .record({
      prefix: fc.constantFrom("", "1", "+1", "1 ", "+1 ", "1-", "+1-", "1.", "+1."),
      area: areaCode,
      parens: fc.boolean(),
      sep1: separator,
      exchange: digits(3),
      sep2: separator,
      line: digits(4),
    })
    .map(({ prefix, area, parens, sep1, exchange, sep2, line }) => `${prefix}${parens ? `(${area})` : area}${sep1}${exchange}${sep2}${line}`);

  test("gives the full parse's answer for every number in the common form", () => {
    fc.assert(
      fc.property(commonForm, (value) => expect(checkPhoneNumber(value)).toEqual(fullParse(value))),
      { numRuns: 20_000 },
    );
  });

  test("gives the full parse's answer for any string of the allowed characters", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9 ().+-]{0,20}$/), (value) => expect(checkPhoneNumber(value)).toEqual(fullParse(value))),
      { numRuns: 5_000 },
    );
  });

  test("agrees with the full parse for every area code and exchange digit pattern", () => {
    // Every three-digit area code with exchanges across the range, against the full parse: the
    // fast path's expression is built from the metadata's US patterns.
    for (let area = 0; area < 1000; area++) {
      for (const exchange of ["011", "199", "200", "311", "555", "911", "958", "976", "999"]) {
        const value = `${String(area).padStart(3, "0")}${exchange}0123`;
        expect([value, checkPhoneNumber(value)]).toEqual([value, fullParse(value)]);
      }
    }
  });

  test("a valid US number in the common form is decided without the full parse", () => {
    // The fast path fails safe (anything it refuses goes to the full parse), so only this shows
    // that it still accepts what it should.
    const fullParses = spyOn(libphonenumber, "parsePhoneNumberFromString");
    try {
      for (const value of ["(212) 555-0147", "+1 800 555 0199", "415.555.0123"]) expect(checkPhoneNumber(value).ok).toBe(true);
      expect(fullParses).not.toHaveBeenCalled();
      expect(checkPhoneNumber("(787) 234-5678").ok).toBe(true);
      expect(fullParses).toHaveBeenCalledTimes(1);
    } finally {
      fullParses.mockRestore();
    }
  });

  test("numbers of other NANP countries, which the US plan refuses, still pass through the full parse", () => {
    expect(checkPhoneNumber("(787) 234-5678")).toEqual({ ok: true, e164: "+17872345678" });
    expect(checkPhoneNumber("416-555-0199")).toEqual(fullParse("416-555-0199"));
  });
});
