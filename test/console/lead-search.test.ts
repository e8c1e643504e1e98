// The console's lead search on both backends: every filter (phone, id prefix in any spelling,
// vendor, status, date range) and keyset pages that walk every lead once, newest first.
import { beforeEach, expect, test } from "bun:test";
import { EXAMPLE_LEAD } from "../../src/intake/lead-schema.ts";
import type { LeadFilter } from "../../src/store/leads/index.ts";
import { idPrefixRange } from "../../src/store/leads/search.ts";
import { describeOnBothBackends } from "../helpers/store-backends.ts";
import { leadFields, vendorRow } from "../helpers/tables.ts";

const DAY = 86_400_000;
const START = Date.UTC(2026, 0, 1);

test("an id prefix is hexadecimal digits in any case, with dashes anywhere or none", () => {
  expect(idPrefixRange("0193A5C2-7B")?.canonical).toBe("0193a5c2-7b");
  expect(idPrefixRange("0193a5c27b")?.canonical).toBe("0193a5c2-7b");
  expect(idPrefixRange("x0193")).toBeNull();
  expect(idPrefixRange("")).toBeNull();
});

describeOnBothBackends("lead search", (backend) => {
  /** Leads one day apart, oldest first: [id, vendor, phone, status]. */
  let ids: string[];

  beforeEach(async () => {
    const t = backend.tables;
    await t.vendors.insert(vendorRow("vendor-a"));
    await t.vendors.insert(vendorRow("vendor-b"));
    ids = [];
    const phones = ["+12125550101", "+12125550102", "+12125550101", "+12125550103", "+12125550104"];
    for (const [i, phone] of phones.entries()) {
      const createdAt = START + i * DAY;
      const id = Bun.randomUUIDv7("hex", createdAt);
      await t.leads.insertPending(leadFields(phone), {
        id,
        vendorId: i % 2 === 0 ? "vendor-a" : "vendor-b",
        rawRequest: "{}",
        createdAt,
        decideAfter: createdAt,
      });
      ids.push(id);
    }
    // The second lead is rejected, with its reason.
    await t.leads.claimDue(START + DAY, 1, 1_000, "token");
    await t.leads.finish(ids[0]!, "token", "rejected", "Phone number is on the suppression list.", START + DAY);
  });

  const found = async (filter: Partial<LeadFilter>) => (await backend.tables.leads.list({ limit: 100, ...filter })).map((lead) => ids.indexOf(lead.id));

  test("each filter alone, newest first; the rejection reason is in the list", async () => {
    expect(await found({})).toEqual([4, 3, 2, 1, 0]);
    expect(await found({ phoneE164: "+12125550101" })).toEqual([2, 0]);
    expect(await found({ vendorName: "vendor-b" })).toEqual([3, 1]);
    expect(await found({ status: "rejected" })).toEqual([0]);
    expect(await found({ campaign: EXAMPLE_LEAD.vendor_campaign_name })).toEqual([4, 3, 2, 1, 0]);
    expect(await found({ campaign: "Autumn" })).toEqual([]);
    expect(await found({ createdFrom: START + DAY, createdBefore: START + 3 * DAY })).toEqual([2, 1]);
    expect(await found({ idPrefix: ids[3]!.slice(0, 13).toUpperCase() })).toContain(3);
    expect(await found({ idPrefix: ids[3]!.replaceAll("-", "") })).toEqual([3]);
    expect(await found({ idPrefix: "not hex" })).toEqual([]);
    const [rejected] = await backend.tables.leads.list({ status: "rejected", limit: 1 });
    expect(rejected).toMatchObject({ status: "rejected", rejection_reason: "Phone number is on the suppression list." });
  });

  test("filters combine", async () => {
    expect(await found({ phoneE164: "+12125550101", vendorName: "vendor-a", createdFrom: START + DAY })).toEqual([2]);
    expect(await found({ phoneE164: "+12125550101", status: "pending" })).toEqual([2]);
  });

  test("keyset pages of two walk every lead once, newest first", async () => {
    const walked: number[] = [];
    let olderThan: string | undefined;
    for (let page = 0; page < 5; page++) {
      const leads = await backend.tables.leads.list({ limit: 2, olderThan });
      walked.push(...leads.map((lead) => ids.indexOf(lead.id)));
      if (leads.length < 2) break;
      olderThan = leads.at(-1)!.id;
    }
    expect(walked).toEqual([4, 3, 2, 1, 0]);
  });

  test("campaign names: each distinct name once, in order, at most the limit asked", async () => {
    // Every lead above is the example's campaign; add two more, one of them twice.
    for (const [i, campaign] of ["Solar-Q4", "autumn", "Solar-Q4"].entries()) {
      const createdAt = START + (10 + i) * DAY;
      const fields = { ...leadFields(`+1212555020${i}`), vendorCampaignName: campaign };
      await backend.tables.leads.insertPending(fields, {
        id: Bun.randomUUIDv7("hex", createdAt),
        vendorId: "vendor-a",
        rawRequest: "{}",
        createdAt,
        decideAfter: createdAt,
      });
    }
    const every = [EXAMPLE_LEAD.vendor_campaign_name, "Solar-Q4", "autumn"].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    expect(await backend.tables.leads.campaignNames(10)).toEqual(every);
    expect(await backend.tables.leads.campaignNames(2)).toEqual(every.slice(0, 2));
  });

  test("tally counts a window's leads by vendor and status, with the time their decisions took", async () => {
    const tally = async (since: number) =>
      (await backend.tables.leads.tally(since)).sort((a, b) => `${a.vendor}${a.status}`.localeCompare(`${b.vendor}${b.status}`));
    expect(await tally(START)).toEqual([
      { vendor: "vendor-a", status: "pending", leads: 2, decisionMsTotal: 0 },
      { vendor: "vendor-a", status: "rejected", leads: 1, decisionMsTotal: DAY },
      { vendor: "vendor-b", status: "pending", leads: 2, decisionMsTotal: 0 },
    ]);
    expect(await tally(START + 3 * DAY)).toEqual([
      { vendor: "vendor-a", status: "pending", leads: 1, decisionMsTotal: 0 },
      { vendor: "vendor-b", status: "pending", leads: 1, decisionMsTotal: 0 },
    ]);
  });

  test("tally of one vendor counts its leads alone (the portal's overview)", async () => {
    expect(await backend.tables.leads.tally(START + 3 * DAY, "vendor-b")).toEqual([{ vendor: "vendor-b", status: "pending", leads: 1, decisionMsTotal: 0 }]);
    expect(await backend.tables.leads.tally(START, "no-such-vendor")).toEqual([]);
  });
});
