// A hostile lead cannot stall the service through its nesting (issue 26): intake refuses a body
// nested deeper than 32 levels with a 400 on every route that reads one, at any depth the body
// limit lets in; and a lead stored before that limit, 32,000 levels deep, is shown on the console
// within a bound while the API keeps answering. On SQLite, or PostgreSQL with
// LEAD_INGRESS_TEST_BACKEND=postgres.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { bodyTooDeep } from "../../src/contract/texts.ts";
import { MAX_BODY_NESTING } from "../../src/http/json-nesting.ts";
import { addOperator, signIn, type SignedIn } from "../console/console-client.ts";
import { postLead, prePing } from "../helpers/api.ts";
import { validLead } from "../helpers/leads.ts";
import { nestedArrays, nestedJson } from "../helpers/nested-json.ts";
import { startApiTestServer, type ApiTestServer } from "../helpers/server.ts";

const TOO_DEEP = bodyTooDeep(MAX_BODY_NESTING);
/** The console's page of the deep lead may not be larger than this (its raw request's view is 128 Ki characters). */
const PAGE_BOUND = 512 * 1024;

let server: ApiTestServer;
let operator: SignedIn;

beforeAll(async () => {
  server = await startApiTestServer({ bodyLimitBytes: 4 * 1024 * 1024, consolePort: 0, holdPeriodMs: 3_600_000 });
  await addOperator(server.store);
  operator = await signIn(server.consoleUrl!);
});
afterAll(() => server.stop());

const submit = (body: unknown) => postLead(server, server.auth, body);

/** A valid lead, as text, whose extra_data is `extraData` (JSON text). */
const leadWithExtraData = (extraData: string) => JSON.stringify(validLead({ extra_data: "EXTRA" })).replace('"EXTRA"', extraData);

describe("intake", () => {
  test("a lead nesting 32 levels is accepted; 33 levels is a 400 in the envelope", async () => {
    // The body is level 1, extra_data's object level 2: 31 levels of extra_data make 32.
    expect((await submit(leadWithExtraData(nestedJson(31)))).status).toBe(200);
    const refused = await submit(leadWithExtraData(nestedJson(32)));
    expect([refused.status, refused.body]).toEqual([400, { success_bit: false, message: [{ error: TOO_DEEP }] }]);
  });

  test("100,000 levels under a 4 MiB body limit: 400, not a 500, on both routes that read a body", async () => {
    const deep = leadWithExtraData(nestedArrays(100_000));
    const lead = await submit(deep);
    expect([lead.status, lead.body]).toEqual([400, { success_bit: false, message: [{ error: TOO_DEEP }] }]);
    const ping = await prePing(server, server.auth, `{"phone_number":"(212) 555-0123","x":${nestedArrays(100_000)}}`);
    expect([ping.status, ping.body]).toEqual([400, { can_post_phone_bit: false, message: [{ error: TOO_DEEP }] }]);
  });
});

describe("a lead stored 32,000 levels deep, before the limit", () => {
  test("its console page is bounded in size, with a note of what it leaves out, while postLead keeps answering 200", async () => {
    const accepted = await submit(validLead());
    const leadId: string = accepted.body.lead_id;
    // Stored as intake stored such leads before the limit: past intake, straight into the database.
    const extraData = nestedJson(32_000);
    const rawRequest = leadWithExtraData(extraData);
    await server.rows("UPDATE leads SET raw_request = $1, extra_data = $2 WHERE id = $3", rawRequest, extraData, leadId);

    const page = operator.get(`/leads/${leadId}`);
    const leads = Array.from({ length: 20 }, () => submit(validLead()));
    const answers = await Promise.all(leads);
    expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 200));

    const shown = await page;
    expect(shown.status).toBe(200);
    expect(shown.text.length).toBeLessThan(PAGE_BOUND);
    // The raw request, indented up to 32 levels and cut, then the note; extra_data cut in the fields.
    expect(shown.text).toMatch(/<pre class="mono">\{\n {2}&quot;phone_number&quot;: [\s\S]*… truncated, [\d,]+ more bytes not shown<\/pre>/);
    expect(shown.text).toMatch(
      /<th class="mono">extra_data<\/th><td class="mono">\{&quot;level1&quot;:\[[^<]*\n… truncated, [\d,]+ more bytes not shown<\/td>/,
    );
  });
});
