// Fresh phone numbers for replays: each case run gets its own, so a replay can be repeated against
// the same instance without running into the duplicate window (docs/contract.md §5).
import { checkPhoneNumber } from "../intake/phone.ts";

// Area codes in service in large US cities: numbers drawn from them are valid NANP numbers.
const AREA_CODES = ["201", "212", "305", "312", "415", "512", "617", "646", "702", "713", "718", "805", "917"];
const MAX_TRIES = 100;

export interface FreshPhone {
  /** "(212) 555-0123" */
  display: string;
  /** "+12125550123" */
  e164: string;
}

function randomBelow(n: number): number {
  return crypto.getRandomValues(new Uint32Array(1))[0]! % n;
}

/** A random valid US number, checked with the service's own rule; bounded retries. */
export function freshPhone(): FreshPhone {
  for (let i = 0; i < MAX_TRIES; i++) {
    const area = AREA_CODES[randomBelow(AREA_CODES.length)]!;
    const exchange = 200 + randomBelow(800);
    // N11 codes (411, 911, …) are service codes and 555 is mostly fictional: never subscriber numbers.
    if (exchange % 100 === 11 || exchange === 555) continue;
    const line = String(randomBelow(10_000)).padStart(4, "0");
    const display = `(${area}) ${exchange}-${line}`;
    const check = checkPhoneNumber(display);
    if (check.ok) return { display, e164: check.e164 };
  }
  throw new Error(`no valid phone number in ${MAX_TRIES} tries: check AREA_CODES`);
}
