// The callback body of docs/contract.md §8, fixed at decision time so every retry sends the same bytes.
import { LEAD_ACCEPTED } from "../contract/texts.ts";

/** A lead's final result (final-results/decide.ts decides it), as its callback message tells it. */
/** `reasons`: at least one, in order; the callback lists each (docs/contract.md §8, §10). */
export type FinalResult = { status: "accepted" } | { status: "rejected"; reasons: readonly string[] };

/**
 * A lead's callback message id (the Standard Webhooks `webhook-id`, the same on every retry): a
 * lead has one callback, so it is the lead's id as 32 hex digits after `msg_`.
 */
export const callbackMessageId = (leadId: string): string => `msg_${leadId.replaceAll("-", "")}`;

export interface CallbackLead {
  id: string;
  phoneE164: string;
  vendorCampaignName: string;
  /** A test lead (docs/contract.md §12 "Test mode"): its callback says `"test": true`; a real one's is unchanged. */
  test?: boolean | number;
}

const TEST_MARK = { test: true } as const;
const REAL = {} as const;

export function callbackPayload(lead: CallbackLead, result: FinalResult, decidedAt: number): string {
  const common = { lead_id: lead.id };
  const tail = {
    phone_number: lead.phoneE164,
    vendor_campaign_name: lead.vendorCampaignName,
    decided_at: new Date(decidedAt).toISOString(),
    ...(lead.test ? TEST_MARK : REAL),
  };
  return JSON.stringify(
    result.status === "accepted"
      ? { ...common, success_bit: true, status: "accepted", message: LEAD_ACCEPTED, ...tail }
      : { ...common, success_bit: false, status: "rejected", message: result.reasons.map((error) => ({ error })), ...tail },
  );
}
