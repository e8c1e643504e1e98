// USPS codes for state (states, DC, territories) and mailing_state (also military AA, AE, AP).
import { describe, expect, test } from "bun:test";
import { MAILING_STATE_CODES, STATE_CODES } from "../../src/intake/us-states.ts";

const FIFTY_STATES =
  "AL AK AZ AR CA CO CT DE FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY".split(
    " ",
  );
const TERRITORIES = ["DC", "AS", "GU", "MP", "PR", "VI"];
const MILITARY = ["AA", "AE", "AP"];

describe("STATE_CODES", () => {
  test("has all 50 states", () => {
    expect(FIFTY_STATES).toHaveLength(50);
    for (const code of FIFTY_STATES) expect(STATE_CODES.has(code)).toBe(true);
  });

  test.each(TERRITORIES)("has %s", (code) => {
    expect(STATE_CODES.has(code)).toBe(true);
  });

  test.each(MILITARY)("does not have the military code %s", (code) => {
    expect(STATE_CODES.has(code)).toBe(false);
  });

  test.each(["XX", "UK", "ON", "QC", "US", "", "ca"])("does not have %p", (code) => {
    expect(STATE_CODES.has(code)).toBe(false);
  });

  test("holds only 2-letter upper-case codes", () => {
    for (const code of STATE_CODES) expect(code).toMatch(/^[A-Z]{2}$/);
  });
});

describe("MAILING_STATE_CODES", () => {
  test("is STATE_CODES plus AA, AE and AP", () => {
    expect([...MAILING_STATE_CODES].sort()).toEqual([...STATE_CODES, ...MILITARY].sort());
  });
});
