// A postLead body that passes every rule of docs/contract.md §4: the lead schema's example lead with one
// fixed phone number ((212) 555-1234, +12125551234) so unit tests can assert exact values, and
// extra_data. End-to-end tests use leads.ts (unique numbers).
import { EXAMPLE_LEAD } from "../../src/intake/lead-schema.ts";

export type Body = Record<string, unknown>;

/** A valid lead whose every value is fixed, for exact assertions; leads.ts's validLead has a fresh number each time. */
export function fixedLead(overrides: Body = {}): Body {
  return { ...EXAMPLE_LEAD, phone_number: "(212) 555-1234", extra_data: { source: "web" }, ...overrides };
}

/** fixedLead() without the named fields. */
export function leadWithout(...fields: string[]): Body {
  const body = fixedLead();
  for (const field of fields) delete body[field];
  return body;
}
