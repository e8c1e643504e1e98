// The portal's isolation (docs/contract.md §12): signed in as one vendor, every page, form and
// export tried with the other vendor's lead ids, webhook-ids, phone numbers, campaigns and refusal
// texts shows nothing of it and changes nothing of it (another's lead or callback is 404, as the
// API's lookup answers). Both ways round. On SQLite, or PostgreSQL with LEAD_INGRESS_TEST_BACKEND=postgres.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { op } from "../../src/db/script.ts";
import { startMockReceiver, type MockReceiver } from "../../src/mock-receiver/index.ts";
import { postForm } from "../console/console-client.ts";
import { postLead } from "../helpers/api.ts";
import { uniquePhone, validLead } from "../helpers/leads.ts";
import { installPolicy } from "../helpers/policy.ts";
import { addPortalVendor, portalSignIn, startPortalTestServer, type PortalSession } from "../helpers/portal-client.ts";
import { basicAuth, type ApiTestServer } from "../helpers/server.ts";
import { waitUntil } from "../helpers/wait.ts";

interface Side {
  name: string;
  password: string;
  campaign: string;
  /** A refusal reason only this vendor's rule gives. */
  reason: string;
  leadIds: string[];
  webhookIds: string[];
  phones: string[];
  requestIds: string[];
  session: PortalSession;
}

let server: ApiTestServer;
let receiver: MockReceiver;
const sides: Record<"alpha" | "bravo", Side> = {} as never;

const side = (name: "alpha" | "bravo"): Side => ({
  name,
  password: `${name}-password-1`,
  campaign: `${name}-campaign`,
  reason: `Only ${name} is refused so`,
  leadIds: [],
  webhookIds: [],
  phones: [],
  requestIds: [],
  session: undefined as never,
});

const callbackOf = async (leadId: string) =>
  (await server.store.read((t) => op(t.callbacks.detailOf(leadId))))?.callback as { id: string; status: string; attempt_count: number };

beforeAll(async () => {
  server = await startPortalTestServer();
  receiver = startMockReceiver({});
  receiver.setBehaviour({ path: "/dead", status: 500 });
  sides.alpha = side("alpha");
  sides.bravo = side("bravo");
  for (const s of Object.values(sides)) await addPortalVendor(server, s);
  await installPolicy(server.store, [server], basicAuth("alpha", "alpha-password-1"), {
    rules: Object.values(sides).map((s) => ({
      name: `${s.name}-rule`,
      vendors: [s.name],
      require: { field: "customer_name", op: "not_equals", value: "Refuse Me" },
      reason: s.reason,
    })),
    caps: [
      { name: "per-vendor", counts: "leads", max: 1000, per: "day", each: "vendor" },
      { name: "per-campaign", counts: "leads", max: 1000, per: "day", each: "campaign" },
    ],
  });
  for (const s of Object.values(sides)) {
    const auth = basicAuth(s.name, s.password);
    for (const path of ["/dead", "/ok"]) {
      const phone = uniquePhone();
      const answer = await postLead(
        server,
        auth,
        validLead({ phone_number: phone, vendor_campaign_name: s.campaign, call_back_url: `${receiver.url.origin}${path}` }),
      );
      expect(answer.status).toBe(200);
      s.leadIds.push(answer.body.lead_id);
      s.phones.push(phone);
    }
    const refused = await postLead(server, auth, validLead({ customer_name: "Refuse Me", vendor_campaign_name: s.campaign }));
    expect(refused.status).toBe(422);
    s.requestIds.push(refused.headers.get("x-request-id")!);
  }
  for (const s of Object.values(sides)) {
    await waitUntil(async () => (await callbackOf(s.leadIds[0]!))?.status === "dead");
    await waitUntil(async () => (await callbackOf(s.leadIds[1]!))?.status === "delivered");
    for (const id of s.leadIds) s.webhookIds.push((await callbackOf(id)).id);
    s.session = await portalSignIn(server.url, s);
    // The portal's thread follows the policy in force on its own (installPolicy waits for intake's).
    await waitUntil(async () => !(await s.session.get("/portal/caps")).text.includes("No cap applies to you"));
  }
  await waitUntil(async () => (await server.rows("SELECT count(*) AS n FROM refusals"))[0]!.n === 2, 5_000, 50);
});
afterAll(async () => {
  await server.stop();
  await receiver.stop();
});

/** Every text of `other` that would show it leaked; its phone numbers in each spelling the pages use. */
const markersOf = (other: Side): string[] => [
  other.name,
  other.campaign,
  other.reason,
  ...other.leadIds,
  ...other.webhookIds,
  ...other.requestIds,
  ...other.phones.map((phone) => `+1${phone.replace(/\D/g, "").slice(-10)}`),
];

for (const [me, other] of [
  ["alpha", "bravo"],
  ["bravo", "alpha"],
] as const) {
  describe(`signed in as ${me}, nothing of ${other}`, () => {
    const mine = () => sides[me];
    const theirs = () => sides[other];

    test("no page or export shows the other vendor's data, whatever the search names", async () => {
      const t = theirs();
      const paths = [
        "/portal/overview",
        "/portal/leads",
        `/portal/leads?vendor=${t.name}`,
        `/portal/leads?campaign=${t.campaign}`,
        `/portal/leads?lead=${t.leadIds[0]}`,
        ...t.phones.flatMap((phone) => [`/portal/leads?phone=${encodeURIComponent(phone)}`, `/portal/leads.csv?phone=${encodeURIComponent(phone)}`]),
        `/portal/leads.csv?vendor=${t.name}`,
        `/portal/leads?older=${t.leadIds[1]}`,
        "/portal/refusals",
        `/portal/refusals?vendor=${t.name}`,
        `/portal/refusals?reason=${encodeURIComponent(t.reason)}`,
        "/portal/callbacks",
        `/portal/callbacks/resend-failed?since=${new Date().toISOString().slice(0, 10)}`,
        "/portal/caps",
        "/portal/integration",
      ];
      for (const path of paths) {
        const page = await mine().session.get(path);
        expect([200, 400]).toContain(page.status);
        // The search form shows back what was typed; the rest of the page is what was found.
        const found = page.text.replace(/<form class="filters"[\s\S]*?<\/form>/g, "");
        for (const marker of markersOf(t)) expect({ path, leaked: found.includes(marker) ? marker : null }).toEqual({ path, leaked: null });
      }
      // Its own data is there: the searches work, they just do not reach the other vendor.
      expect((await mine().session.get("/portal/leads")).text).toContain(mine().leadIds[0]!);
      expect((await mine().session.get("/portal/refusals")).text).toContain(mine().reason);
      const caps = (await mine().session.get("/portal/caps")).text;
      expect(caps).toContain(`<span class="mono">${mine().name}</span>: 2 / 1000`);
      expect(caps).toContain(`<span class="mono">${mine().campaign}</span>: 2 / 1000`);
    });

    test("the other vendor's lead, by its id or its webhook-id, is not found", async () => {
      for (const id of [...theirs().leadIds, ...theirs().webhookIds]) {
        const page = await mine().session.get(`/portal/leads/${encodeURIComponent(id)}`);
        expect(page.status).toBe(404);
        for (const marker of markersOf(theirs())) expect(page.text).not.toContain(marker);
      }
    });

    test("resending the other vendor's callback, by lead id or webhook-id, is 404 and changes nothing", async () => {
      const before = await Promise.all(theirs().leadIds.map(callbackOf));
      for (const lead of [...theirs().leadIds, ...theirs().webhookIds]) {
        const answer = await mine().session.post("/portal/callbacks/resend", { lead });
        expect(answer.status).toBe(404);
      }
      expect(await Promise.all(theirs().leadIds.map(callbackOf))).toEqual(before);
    });

    test("resending every failed callback since a day resends only its own", async () => {
      const dead = theirs().leadIds[0]!;
      const before = await callbackOf(dead);
      expect(before.status).toBe("dead");
      const answer = await mine().session.post("/portal/callbacks/resend-failed", { since: new Date(Date.now() - 86_400_000).toISOString().slice(0, 10) });
      expect(answer.status).toBe(303);
      await waitUntil(async () => (await callbackOf(mine().leadIds[0]!)).status === "dead");
      expect(await callbackOf(dead)).toEqual(before);
    });

    test("a session cookie of one vendor with the other's CSRF token is refused", async () => {
      const answer = await postForm(
        `${server.url}/portal/callbacks/resend`,
        { csrf: theirs().session.csrf, lead: mine().leadIds[0]! },
        { cookie: mine().session.cookie },
      );
      expect(answer.status).toBe(403);
    });
  });
}
