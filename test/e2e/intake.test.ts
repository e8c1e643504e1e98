// postLead, prePing and the lead lookup over HTTP against the real server (docs/contract.md §4–§7), on
// SQLite, or on PostgreSQL with LEAD_INGRESS_TEST_BACKEND=postgres.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createVendor } from "../../src/auth/vendors.ts";
import { addSuppression } from "../../src/suppression/index.ts";
import { postLead, prePing } from "../helpers/api.ts";
import { uniquePhone, validLead } from "../helpers/leads.ts";
import { op } from "../../src/db/script.ts";
import { basicAuth, get, post, startApiTestServer, untilAuthenticates, VENDOR, type ApiTestServer } from "../helpers/server.ts";

let server: ApiTestServer;
let auth: Record<string, string>;

beforeAll(async () => {
  server = await startApiTestServer();
  auth = { authorization: server.auth };
});
afterAll(() => server.stop());

const leadRow = async (id: string) => (await server.store.read((t) => op(t.leads.detail(id)))) as Record<string, any> | null;
const leadCount = async () => (await server.store.read((t) => op(t.leads.list({ vendorName: VENDOR.name, limit: 1_000_000 })))).length;
const callbackRows = async (leadId: string) => {
  const detail = await server.store.read((t) => op(t.callbacks.detailOf(leadId)));
  return detail ? [detail.callback as Record<string, any>] : [];
};

describe("call_back_url to localhost or a literal private address (private callbacks not allowed)", () => {
  test.each(["http://127.0.0.1/x", "http://localhost/x", "http://169.254.169.254/", "http://[::1]/", "http://10.0.0.1/", "http://0x7f000001/"])(
    "%p → 400 Invalid Callback URL, nothing stored",
    async (url) => {
      const phone = uniquePhone();
      const answer = await postLead(server, server.auth, validLead({ phone_number: phone, call_back_url: url }));
      expect(answer).toMatchObject({ status: 400, body: { success_bit: false, message: [{ error: `Invalid Callback URL: ${url}` }] } });
      expect((await prePing(server, server.auth, { phone_number: phone })).status).toBe(200);
    },
  );
});

describe("postLead acceptance", () => {
  test("a valid lead gets 200 with the contract's message and a lead_id", async () => {
    const answer = await postLead(server, server.auth, validLead());
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      success_bit: true,
      message: "Lead received; the final result will be sent to the callback URL.",
      lead_id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
    });
  });

  test("after a 200 the lead row and its callback queue row both exist", async () => {
    const phone = uniquePhone();
    const answer = await postLead(server, server.auth, validLead({ phone_number: phone }));
    const lead = await leadRow(answer.body.lead_id);
    expect(lead).toMatchObject({ status: "pending", call_back_url: "https://vendor.example.com/callback" });
    expect(await callbackRows(answer.body.lead_id)).toEqual([
      expect.objectContaining({ status: "held", url: "https://vendor.example.com/callback", vendor_id: lead!.vendor_id }),
    ]);
  });

  test("the stored lead has normalised fields and the raw request, unknown fields included", async () => {
    const body = validLead({ phone_number: "1-212-555-0199", state: "ny", mailing_state: "ae", surprise: { kept: true } });
    const answer = await postLead(server, server.auth, body);
    const lead = (await leadRow(answer.body.lead_id))!;
    expect(lead).toMatchObject({ phone_e164: "+12125550199", state: "NY", mailing_state: "AE" });
    expect(JSON.parse(lead.raw_request)).toEqual(body);
  });

  test("a body sent as curl -d does (application/x-www-form-urlencoded) is read as JSON", async () => {
    const answer = await post(`${server.url}/v1/postLead`, JSON.stringify(validLead()), {
      ...auth,
      "content-type": "application/x-www-form-urlencoded",
    });
    expect(answer.status).toBe(200);
  });

  test("a body with no Content-Type at all is read as JSON", async () => {
    const response = await fetch(`${server.url}/v1/prePing`, {
      method: "POST",
      headers: auth,
      body: new Blob([JSON.stringify({ phone_number: uniquePhone() })]),
    });
    expect(response.status).toBe(200);
  });

  test("customer_address is accepted in place of street; street wins when both are sent", async () => {
    const { street: _street, ...withoutStreet } = validLead();
    const viaAlias = await postLead(server, server.auth, { ...withoutStreet, customer_address: "9 Alias Rd" });
    expect(viaAlias.status).toBe(200);
    expect((await leadRow(viaAlias.body.lead_id))!.street).toBe("9 Alias Rd");
    const both = await postLead(server, server.auth, validLead({ street: "1 Street Ave", customer_address: "9 Alias Rd" }));
    expect((await leadRow(both.body.lead_id))!.street).toBe("1 Street Ave");
  });

  test("call_back_url is optional: the lead is stored with no callback row", async () => {
    const { call_back_url: _url, ...withoutCallback } = validLead();
    const answer = await postLead(server, server.auth, withoutCallback);
    expect(answer.status).toBe(200);
    expect((await leadRow(answer.body.lead_id))!.call_back_url).toBeNull();
    expect(await callbackRows(answer.body.lead_id)).toEqual([]);
  });

  test("extra_data stands in for a missing certificate_url", async () => {
    const { certificate_url: _c, ...withoutCertificate } = validLead();
    const answer = await postLead(server, server.auth, { ...withoutCertificate, extra_data: [{ source: "web" }] });
    expect(answer.status).toBe(200);
    expect(JSON.parse((await leadRow(answer.body.lead_id))!.extra_data)).toEqual([{ source: "web" }]);
  });
});

describe("postLead validation over HTTP", () => {
  test("all failed validations come together, in field order, with values echoed", async () => {
    const answer = await postLead(server, server.auth, validLead({ phone_number: "212-555-01x3", state: "XX", zip: 10001, email: "nope" }));
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({
      success_bit: false,
      message: [
        { error: "Invalid Characters: 212-555-01x3" },
        { error: "Invalid State Code (2 characters): XX" },
        { error: "Invalid Type (expected string): zip" },
        { error: "Invalid Email: nope" },
      ],
    });
  });

  test("neither certificate_url nor extra_data → the extra_data error", async () => {
    const { certificate_url: _c, ...withoutCertificate } = validLead();
    const answer = await postLead(server, server.auth, withoutCertificate);
    expect(answer.status).toBe(400);
    expect(answer.body.message).toEqual([{ error: "Missing Field: extra_data (required when certificate_url is not provided)" }]);
  });

  test("a bad Idempotency-Key is a validation error", async () => {
    const answer = await postLead(server, server.auth, validLead(), { "idempotency-key": "x".repeat(256) });
    expect(answer.status).toBe(400);
    expect(answer.body.message).toEqual([{ error: "Invalid Idempotency-Key: must be 1-255 visible ASCII characters" }]);
  });
});

describe("phone eligibility (422), shared by prePing and postLead", () => {
  const BLOCKED = { error: "Phone number can not be sent to postLead at this time." };

  test("prePing 200 means an immediate postLead with that number is not 422; afterwards both say 422", async () => {
    const phone = uniquePhone();
    const ping = await prePing(server, server.auth, { phone_number: phone });
    expect(ping).toMatchObject({ status: 200, body: { can_post_phone_bit: true, message: "Phone number can be sent to postLead." } });
    expect((await postLead(server, server.auth, validLead({ phone_number: phone }))).status).toBe(200);
    expect(await prePing(server, server.auth, { phone_number: phone })).toMatchObject({ status: 422, body: { can_post_phone_bit: false, message: [BLOCKED] } });
    expect(await postLead(server, server.auth, validLead({ phone_number: phone, customer_name: "Someone Else" }))).toMatchObject({
      status: 422,
      body: { success_bit: false, message: [BLOCKED] },
    });
  });

  test("another spelling of the same number is the same number", async () => {
    const phone = "(646) 555-0142";
    expect((await postLead(server, server.auth, validLead({ phone_number: phone }))).status).toBe(200);
    expect((await postLead(server, server.auth, validLead({ phone_number: "+1 646.555.0142", customer_name: "Someone Else" }))).status).toBe(422);
  });

  test("a suppressed number gets 422 from both endpoints", async () => {
    const phone = uniquePhone();
    await addSuppression(server.store, phone, "asked not to be called", "test");
    expect((await prePing(server, server.auth, { phone_number: phone })).status).toBe(422);
    expect((await postLead(server, server.auth, validLead({ phone_number: phone }))).status).toBe(422);
  });

  test("a failed validation is answered before eligibility", async () => {
    const phone = uniquePhone();
    await addSuppression(server.store, phone, null, "test");
    const answer = await postLead(server, server.auth, validLead({ phone_number: phone, email: "" }));
    expect(answer).toMatchObject({ status: 400, body: { message: [{ error: "Missing Field: email" }] } });
  });

  test("prePing validates only phone_number, with the postLead texts", async () => {
    expect(await prePing(server, server.auth, {})).toMatchObject({
      status: 400,
      body: { can_post_phone_bit: false, message: [{ error: "Missing Field: phone_number" }] },
    });
    expect((await prePing(server, server.auth, { phone_number: "12345" })).body.message).toEqual([{ error: "Invalid Phone Number: 12345" }]);
    expect((await prePing(server, server.auth, { phone_number: uniquePhone(), state: "nonsense" })).status).toBe(200);
  });
});

describe("Idempotency-Key", () => {
  test("a retry returns the first answer with the same lead_id and stores one lead", async () => {
    const body = validLead();
    const before = await leadCount();
    const first = await postLead(server, server.auth, body, { "idempotency-key": "retry-1" });
    const again = await postLead(server, server.auth, body, { "idempotency-key": "retry-1" });
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await leadCount()).toBe(before + 1);
  });

  test("the same key with a different body is 422", async () => {
    await postLead(server, server.auth, validLead(), { "idempotency-key": "retry-2" });
    const answer = await postLead(server, server.auth, validLead(), { "idempotency-key": "retry-2" });
    expect(answer).toMatchObject({
      status: 422,
      body: { success_bit: false, message: [{ error: "Idempotency-Key was already used with a different request body" }] },
    });
  });

  test("keys belong to a vendor: another vendor's same key is a new request", async () => {
    await createVendor(server.store, "vendor-key-b", "password-key-b");
    await untilAuthenticates(server, basicAuth("vendor-key-b", "password-key-b"));
    const body = validLead();
    const mine = await postLead(server, server.auth, body, { "idempotency-key": "shared-key" });
    const theirs = await post(
      `${server.url}/v1/postLead`,
      { ...body, phone_number: uniquePhone() },
      {
        authorization: basicAuth("vendor-key-b", "password-key-b"),
        "idempotency-key": "shared-key",
      },
    );
    expect(theirs.status).toBe(200);
    expect(theirs.body.lead_id).not.toBe(mine.body.lead_id);
  });
});

describe("GET /v1/leads/{lead_id}", () => {
  test("returns the vendor's own lead as pending", async () => {
    const accepted = await postLead(server, server.auth, validLead());
    const answer = await get(`${server.url}/v1/leads/${accepted.body.lead_id}`, auth);
    expect(answer).toMatchObject({
      status: 200,
      body: { success_bit: true, status: "pending", lead_id: accepted.body.lead_id, message: expect.any(String) },
    });
  });

  test("another vendor's lead and an unknown id are both 404", async () => {
    await createVendor(server.store, "vendor-lookup-b", "password-lookup-b");
    await untilAuthenticates(server, basicAuth("vendor-lookup-b", "password-lookup-b"));
    const accepted = await postLead(server, server.auth, validLead());
    const other = await get(`${server.url}/v1/leads/${accepted.body.lead_id}`, { authorization: basicAuth("vendor-lookup-b", "password-lookup-b") });
    const unknown = await get(`${server.url}/v1/leads/00000000-0000-0000-0000-000000000000`, auth);
    for (const answer of [other, unknown]) {
      expect(answer).toEqual({ status: 404, headers: expect.anything(), body: { success_bit: false, message: [{ error: "Lead not found" }] } });
    }
  });
});
