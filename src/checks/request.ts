// The request of an external check (docs/contract.md §11, docs/checks.md): the JSON body
// { check, vendor, campaign, lead_id (final stage only), fields } and its headers, signed as
// callbacks are (Standard Webhooks, src/callbacks/signature.ts) with the `checks` signing secret,
// so a check service verifies it with any Standard Webhooks library.
import { randomUUID } from "node:crypto";
import { callbackHeaders } from "../callbacks/signature.ts";
import { LEAD_FIELDS, type LeadFieldName } from "../intake/lead-schema.ts";
import type { LeadFacts } from "../policy/index.ts";
import type { CompiledCheck } from "./entry.ts";

export interface CheckBody {
  check: string;
  vendor: string;
  campaign: string | null;
  /** The lead's id: at the final stage only (at intake the lead has none yet). */
  lead_id?: string;
  /** Each field named in the check's `send`, as stored (phone E.164, state upper-case); null when the lead has none. */
  fields: Record<string, unknown>;
}

export interface SignedRequest {
  /** The webhook-id: the same on a retry of one check of one lead, so the service can drop duplicates. */
  id: string;
  body: string;
  headers: Record<string, string>;
}

/** The value of one `send` entry: a postLead field by its name, or extra_data as parsed JSON. */
function fieldValue(facts: LeadFacts, name: string): unknown {
  if (name === "extra_data") return facts.extraData ?? null;
  if (!Object.hasOwn(LEAD_FIELDS, name)) return null; // the policy's checker refuses such names
  return facts.lead[LEAD_FIELDS[name as LeadFieldName].key] ?? null;
}

export function checkBody(check: CompiledCheck, facts: LeadFacts, leadId?: string): CheckBody {
  const fields: Record<string, unknown> = {};
  for (const name of check.send) fields[name] = fieldValue(facts, name);
  const body: CheckBody = { check: check.name, vendor: facts.vendor, campaign: facts.lead.vendorCampaignName ?? null, fields };
  if (leadId !== undefined) body.lead_id = leadId;
  return body;
}

/**
 * A check's webhook-id: for a lead (final stage) one per lead and check, the same on every retry,
 * as a callback's is; at intake, where there is no lead yet, a new one per request.
 */
export function checkMessageId(check: Pick<CompiledCheck, "name">, leadId?: string): string {
  if (leadId === undefined) return `chk_${randomUUID().replaceAll("-", "")}`;
  return `chk_${leadId.replaceAll("-", "")}_${Buffer.from(check.name).toString("base64url")}`;
}

/** The body as sent and its headers (content type, user agent, webhook-id, -timestamp, -signature). */
export function signedCheckRequest(input: { check: CompiledCheck; facts: LeadFacts; leadId?: string; secret: string; now: number }): SignedRequest {
  return signCheckBody(checkMessageId(input.check, input.leadId), JSON.stringify(checkBody(input.check, input.facts, input.leadId)), input.secret, input.now);
}

/** A body already written (intake's, written on intake's thread and signed on the checks' thread, thread.ts) with its headers. */
export function signCheckBody(id: string, body: string, secret: string, now: number): SignedRequest {
  return { id, body, headers: callbackHeaders({ id, timestamp: Math.floor(now / 1000), body, secret }) };
}
