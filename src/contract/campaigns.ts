// How `vendor_campaign_name` values compare (docs/contract.md §10, an entry's `campaigns`): folded
// by JavaScript, the policy's scopes (policy/entries.ts) and a lead's stored fold alike
// (leads.campaign_folded, store/rows.ts). A leaf module, as texts.ts: the store may import it, and
// no database's lower() stands in for it (SQLite's folds ASCII alone, PostgreSQL's by its locale).

/** A campaign as scopes compare it: trimmed, lower-cased by JavaScript (Unicode's case mapping). */
export const foldCampaign = (campaign: string): string => campaign.trim().toLowerCase();
