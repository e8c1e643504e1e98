// The portal's Caps and schedules: the enabled caps and schedules of the policy in force whose scope
// names the vendor (or no vendor), with each cap's use now. Of a cap counted per vendor only the
// vendor's own bucket is shown, of one per campaign only the buckets of the vendor's own campaigns
// (those of its leads this week): another vendor's names never appear. A cap counted together shows
// its total, the one figure that says how near it is to full for this vendor too.
import { capReached, outsideHours } from "../contract/texts.ts";
import { capUse, type CapUse } from "../operations/cap-use.ts";
import { listLeads } from "../operations/leads.ts";
import { foldCampaign, type Policy } from "../policy/index.ts";
import { html, type Html } from "../console/html.ts";
import { timeText } from "../console/page.ts";
import { startOfUtcWeek } from "./overview-page.ts";
import { portalPage, type PortalContext } from "./page.ts";

type Entry = { name: string; vendors?: string[]; campaigns?: string[]; enabled?: boolean };
/** Leads read to learn the vendor's campaigns of the week. */
const LEADS_READ = 1_000;

const appliesTo = (vendorName: string) => (entry: Entry) => entry.enabled !== false && (entry.vendors === undefined || entry.vendors.includes(vendorName));

export async function capsPage(context: PortalContext): Promise<Response> {
  const { store, viewer, now } = context;
  const compiled = context.policy?.current();
  const document: Policy = compiled?.document ?? {};
  const applies = appliesTo(viewer.vendorName);
  const caps = (document.caps ?? []).filter(applies);
  const schedules = (document.schedules ?? []).filter(applies);
  const [uses, recent] = await Promise.all([
    compiled && caps.length > 0 ? capUse(store, compiled, now) : [],
    // Its campaigns matter only to a cap counted per campaign; reading its leads for none slows every view.
    caps.some((cap) => cap.each === "campaign") ? listLeads(store, { vendorName: viewer.vendorName, createdFrom: startOfUtcWeek(now), limit: LEADS_READ }) : [],
  ]);
  const ownCampaigns = new Set(recent.map((lead) => foldCampaign(lead.vendor_campaign_name)));
  const visible = (cap: (typeof caps)[number], use: CapUse) =>
    use.cap === cap.name && (cap.each === undefined || (cap.each === "vendor" ? use.bucket === viewer.vendorName : ownCampaigns.has(use.bucket)));
  const content = html`<h1>Caps and schedules</h1>
<p class="muted">The operator's limits that apply to your requests now. A request past a full cap or outside a schedule's hours gets 422 with the reason shown.</p>
<h2>Caps</h2>
${caps.length === 0 ? html`<p class="muted">No cap applies to you.</p>` : capTable(caps, (cap) => uses.filter((use) => visible(cap, use)))}
<h2>Schedules</h2>
${schedules.length === 0 ? html`<p class="muted">No schedule applies to you.</p>` : scheduleTable(schedules)}`;
  return portalPage("Caps and schedules", viewer, content);
}

type Cap = NonNullable<Policy["caps"]>[number];

function capTable(caps: Cap[], usesOf: (cap: Cap) => CapUse[]): Html {
  const rows = caps.map((cap) => {
    const uses = usesOf(cap);
    const scope = html`${cap.campaigns ? html`campaigns ${cap.campaigns.join(", ")}` : "all your campaigns"}${cap.each ? html`, counted per ${cap.each}` : ""}`;
    const use =
      uses.length === 0
        ? html`0 / ${String(cap.max)}`
        : uses.map(
            (bucket) =>
              html`<div>${bucket.bucket === "" ? "" : html`<span class="mono">${bucket.bucket}</span>: `}${String(bucket.used)} / ${String(bucket.max)} (until ${timeText(bucket.windowEnd)})</div>`,
          );
    return html`<tr><td class="mono">${cap.name}</td><td>${cap.counts} per ${cap.per} (${cap.time_zone ?? "UTC"})</td><td>${scope}</td><td>${use}</td><td>${cap.reason ?? capReached(cap.name)}</td></tr>`;
  });
  return html`<table id="caps"><thead><tr><th>Cap</th><th>Counts</th><th>Scope</th><th>Used now</th><th>Reason given</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function scheduleTable(schedules: NonNullable<Policy["schedules"]>): Html {
  const rows = schedules.map(
    (schedule) =>
      html`<tr><td class="mono">${schedule.name}</td><td>${schedule.campaigns ? schedule.campaigns.join(", ") : "all your campaigns"}</td><td>${schedule.time_zone ?? "UTC"}</td><td>${Object.entries(schedule.open).map(([day, hours]) => html`<div>${day} ${String(hours)}</div>`)}</td><td>${schedule.reason ?? outsideHours(schedule.name)}</td></tr>`,
  );
  return html`<table id="schedules"><thead><tr><th>Schedule</th><th>Campaigns</th><th>Time zone</th><th>Open</th><th>Reason given</th></tr></thead><tbody>${rows}</tbody></table>`;
}
