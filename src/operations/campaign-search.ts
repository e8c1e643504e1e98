// The console's campaign search: what the operator typed is found anywhere in a campaign's name,
// in any case ("sol" finds "Solar-Q4"). Decided here, in TypeScript, not in SQL: the distinct names
// come from a walk of the leads_campaign index (one seek per name, campaignNamesQuery), and the
// leads of each matching name are read through the same index, newest first, a page at a time, and
// merged. Every step is indexed, so a search costs the same on a million leads as on a hundred,
// and nothing the operator types is a LIKE pattern: % and _ are letters like any other.
import { leadKey } from "../db/schema.ts";
import { op, type Script } from "../db/script.ts";
import type { Store, Tables } from "../store/index.ts";
import type { LeadFilter, LeadSummary } from "../store/leads/index.ts";

/** Names walked at most per search; deployments have tens or hundreds of campaigns. */
export const CAMPAIGN_NAMES_WALKED = 10_000;
/** Campaigns one search may match: each is one indexed read per page. Past it, type more of the name. */
export const CAMPAIGNS_MATCHED_MAX = 20;

/** The names that contain `typed`, ignoring case. */
export function campaignsMatching(names: readonly string[], typed: string): string[] {
  const needle = typed.toLowerCase();
  return names.filter((name) => name.toLowerCase().includes(needle));
}

export interface CampaignMatch {
  /** The campaigns searched: every match, plus the text itself (an exact name is always found). */
  names: string[];
  /** More than CAMPAIGNS_MATCHED_MAX matched: nothing is listed. */
  tooMany: boolean;
  /** More than CAMPAIGN_NAMES_WALKED names exist: names past them match only when typed exactly. */
  partial: boolean;
}

export async function matchCampaigns(store: Store, typed: string): Promise<CampaignMatch> {
  const names = await store.read((t) => op(t.leads.campaignNames(CAMPAIGN_NAMES_WALKED + 1)));
  const matched = campaignsMatching(names.slice(0, CAMPAIGN_NAMES_WALKED), typed);
  if (!matched.includes(typed)) matched.push(typed);
  return { names: matched, tooMany: matched.length > CAMPAIGNS_MATCHED_MAX, partial: names.length > CAMPAIGN_NAMES_WALKED };
}

/** The leads `filter` selects in any of `campaigns` (all of them when undefined), newest first. */
export async function listLeadsOfCampaigns(store: Store, filter: LeadFilter, campaigns: string[] | undefined): Promise<LeadSummary[]> {
  return store.read((t) => leadsOfCampaigns(t, filter, campaigns));
}

function* leadsOfCampaigns(t: Tables, filter: LeadFilter, campaigns: string[] | undefined): Script<LeadSummary[]> {
  if (campaigns === undefined) return yield* op(t.leads.list(filter));
  const found: LeadSummary[] = [];
  for (const campaign of campaigns) found.push(...(yield* op(t.leads.list({ ...filter, campaign }))));
  const keyed = found.map((lead) => [leadKey(lead.id), lead] as const);
  keyed.sort(([a], [b]) => (a < b ? 1 : a > b ? -1 : 0));
  return keyed.slice(0, filter.limit).map(([, lead]) => lead);
}
