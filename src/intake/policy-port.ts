// What intake asks of the operator's acceptance policy (docs/contract.md §10). The policy (policy/)
// reads intake's lead schema, so intake names here only what it calls; policy-in-force/ answers it
// with the policy in force at the moment of the call.
import type { ValidLead } from "./lead-schema.ts";

export interface IntakePolicy {
  /** postLead's objections (a closed schedule's reason, or every failing intake rule's in document order), or null when none. */
  postLead(vendor: string, lead: ValidLead, at: number): readonly string[] | null;
  /** Which entries refused a lead postLead objected to (asked only then): the refusal log's and the metrics' names. */
  postLeadRefusers?(vendor: string, lead: ValidLead, at: number): readonly RefusedBy[];
  /** prePing's: a closed schedule, or the failing intake rules prePing can judge (phone, vendor, campaign, time). */
  prePing(vendor: string, ping: ValidPing, at: number): readonly string[] | null;
}

/** A prePing's validated fields: the phone in E.164 and the campaign, null when not sent. */
export interface ValidPing {
  phoneE164: string;
  vendorCampaignName: string | null;
}

/** An entry of the operator's document that refused a request; `name` is the entry's own (bounded by the document). */
export interface RefusedBy {
  kind: "rule" | "schedule" | "cap";
  name: string;
}
