// Request bodies of the scenarios. The accept-path body is a template: the load process puts a
// fresh phone number in place of PHONE_SLOT for every request (see load.mjs).

import { EXAMPLE_LEAD } from "../src/intake/lead-schema.ts";
import { CALLBACK_SLOT } from "./workload.mjs";

export const PHONE_SLOT = "{{PHONE}}";

/** A full valid lead (docs/interface.md §2.1); only phone_number changes between requests. */
export function validLead(phone: string): Record<string, string> {
  return { ...EXAMPLE_LEAD, phone_number: phone, vendor_campaign_name: "bench" };
}

export const validLeadTemplate = JSON.stringify(validLead(PHONE_SLOT));

/** Where callbacks go when no receiver runs (the example lead's vendor): nothing calls them in `bun run bench`. */
export const exampleCallbackBase = new URL(EXAMPLE_LEAD.call_back_url).origin;

/** The realistic workload's lead (workload.mjs): its phone and its callback URL vary. */
export const workloadLeadTemplate = JSON.stringify({ ...validLead(PHONE_SLOT), call_back_url: CALLBACK_SLOT });

/** prePing in the realistic workload: a new number every time. */
export const prePingTemplate = JSON.stringify({ phone_number: PHONE_SLOT });

/** Six failing fields, so the 400 path does the full validation and builds a multi-error answer. */
export const invalidLead = JSON.stringify({
  ...validLead("(212) 555-01x3"),
  state: "New York",
  zip: "1000",
  certificate_url: "not a url",
  mailing_state: "ZZ",
  email: "jane-at-example.com",
});

/** prePing's number is toll-free, which phones.mjs never generates, so it is never claimed. */
export const prePingBody = JSON.stringify({ phone_number: "(800) 555-0142" });

export const noopBody = JSON.stringify({ ping: "pong", n: 1 });

export { basicAuthorization as basicAuth } from "../src/auth/basic.ts";
