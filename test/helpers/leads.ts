// Test data: valid leads and phone numbers that no other test uses.
import { EXAMPLE_LEAD } from "../../src/intake/lead-schema.ts";

const AREA_CODES = ["201", "212", "305", "312", "415", "512", "617", "646", "702", "713", "718", "805", "917"];
let counter = Math.floor(Math.random() * 1_000_000);

/** A valid NANP number, unique within this test process. */
export function uniquePhone(): string {
  counter++;
  const area = AREA_CODES[counter % AREA_CODES.length];
  const exchange = 200 + (Math.floor(counter / AREA_CODES.length) % 800);
  const line = String(Math.floor(counter / (AREA_CODES.length * 800)) % 10_000).padStart(4, "0");
  return `(${area}) ${exchange}-${line}`;
}

/** A valid lead with a number no other test uses, so services shared by tests take it (lead.ts's fixedLead has fixed values). */
export function validLead(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...EXAMPLE_LEAD, phone_number: uniquePhone(), vendor_campaign_name: "spring", ...overrides };
}
