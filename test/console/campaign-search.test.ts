// The Leads page's campaign search against the real server, on either backend: any part of a
// campaign's name in any case finds its leads ("sol" finds "Solar-Q4"), % and _ are plain letters,
// several matching campaigns are listed together newest first and paged, and the CSV export agrees.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { campaignsMatching, CAMPAIGNS_MATCHED_MAX } from "../../src/operations/campaign-search.ts";
import { validLead } from "../helpers/leads.ts";
import { post, startApiTestServer, type ApiTestServer } from "../helpers/server.ts";
import { addOperator, signIn, type SignedIn } from "./console-client.ts";

let server: ApiTestServer;
let operator: SignedIn;
/** Campaign of each lead posted, oldest first. */
const CAMPAIGNS = ["Solar-Q4", "solar-q4", "wind_2026", "wind-2026", "100%-green", "Solar-Q4", "hydro"];

beforeAll(async () => {
  server = await startApiTestServer({ consolePort: 0, holdPeriodMs: 3_600_000 });
  await addOperator(server.store);
  operator = await signIn(server.consoleUrl!);
  for (const campaign of CAMPAIGNS) {
    const answer = await post(`${server.url}/v1/postLead`, validLead({ vendor_campaign_name: campaign }), { authorization: server.auth });
    expect(answer.status).toBe(200);
  }
});
afterAll(() => server.stop());

/** The campaign column of the page's rows, newest first. */
async function campaignsFound(query: string): Promise<string[]> {
  const page = await operator.get(`/leads?${query}`);
  expect(page.status).toBe(200);
  return [...page.text.matchAll(/<td class="mono">\+1\d{10}<\/td>\n<td>([^<]*)<\/td>/g)].map((match) => match[1]!);
}

test("any part of the name, in any case, finds the campaign's leads, newest first", async () => {
  expect(await campaignsFound("campaign=sol")).toEqual(["Solar-Q4", "solar-q4", "Solar-Q4"]);
  expect(await campaignsFound("campaign=Q4")).toEqual(["Solar-Q4", "solar-q4", "Solar-Q4"]);
  expect(await campaignsFound("campaign=SOLAR-Q4")).toEqual(["Solar-Q4", "solar-q4", "Solar-Q4"]);
  expect(await campaignsFound("campaign=hydro")).toEqual(["hydro"]);
  expect(await campaignsFound("campaign=geothermal")).toEqual([]);
});

test("% and _ are letters, not wildcards", async () => {
  expect(await campaignsFound("campaign=wind_")).toEqual(["wind_2026"]);
  expect(await campaignsFound(`campaign=${encodeURIComponent("0%")}`)).toEqual(["100%-green"]);
  expect(await campaignsFound(`campaign=${encodeURIComponent("%")}`)).toEqual(["100%-green"]);
  expect(await campaignsFound("campaign=_")).toEqual(["wind_2026"]);
});

test("leads of several matching campaigns are paged together, newest first, each once, and the export has them all", async () => {
  const posted: string[] = [];
  for (let i = 0; i < 60; i++) {
    const answer = await post(`${server.url}/v1/postLead`, validLead({ vendor_campaign_name: i % 2 === 0 ? "Paging-A" : "paging-b" }), {
      authorization: server.auth,
    });
    posted.unshift(answer.body.lead_id as string);
  }
  const idsOn = (page: string) => [...page.matchAll(/<a href="\/leads\/([0-9a-f-]{36})">/g)].map((match) => match[1]!);
  const first = await operator.get("/leads?campaign=PAGING");
  const older = /<a href="([^"]+)" rel="next">Older<\/a>/.exec(first.text)![1]!.replaceAll("&amp;", "&");
  const second = await operator.get(older);
  expect(second.text).not.toContain('rel="next"');
  expect([...idsOn(first.text), ...idsOn(second.text)]).toEqual(posted);
  expect(idsOn(first.text)).toHaveLength(50);

  const csv = await operator.get("/leads.csv?campaign=SOL");
  expect(csv.status).toBe(200);
  const rows = csv.text.trim().split("\r\n").slice(1);
  expect(rows.map((row) => row.split(",")[6])).toEqual(["Solar-Q4", "solar-q4", "Solar-Q4"]);
});

test("the match is decided in TypeScript: any case, any part; too many matches ask for more of the name", async () => {
  expect(campaignsMatching(["Solar-Q4", "wind", "ÉTÉ-promo"], "été")).toEqual(["ÉTÉ-promo"]);
  expect(campaignsMatching(["Solar-Q4", "wind"], "")).toEqual(["Solar-Q4", "wind"]);
  const many = Array.from({ length: CAMPAIGNS_MATCHED_MAX + 1 }, (_, i) => `promo-${i}`);
  for (const campaign of many)
    expect((await post(`${server.url}/v1/postLead`, validLead({ vendor_campaign_name: campaign }), { authorization: server.auth })).status).toBe(200);
  const page = await operator.get("/leads?campaign=promo");
  expect(page.text).toContain(`More than ${CAMPAIGNS_MATCHED_MAX} campaigns contain &quot;promo&quot;: type more of the name.`);
  expect(await campaignsFound("campaign=promo-2")).toEqual(["promo-20", "promo-2"]);
});
