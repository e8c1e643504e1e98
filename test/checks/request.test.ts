// The check request (src/checks/request.ts): its JSON body and its Standard Webhooks signature,
// verified with the reference `standardwebhooks` package as a check service would.
import { expect, test } from "bun:test";
import { Webhook } from "standardwebhooks";
import { checkBody, checkMessageId, signedCheckRequest } from "../../src/checks/index.ts";
import { USER_AGENT } from "../../src/callbacks/signature.ts";
import { check, lead, SECRET } from "./fixtures.ts";

test("the body names the check, vendor and campaign, and sends each field of `send` as stored; no lead_id at intake", () => {
  const body = checkBody(check({ send: ["phone_number", "state", "email", "extra_data"] }), lead());
  expect(body).toEqual({
    check: "scrub",
    vendor: "acme",
    campaign: "Solar-Q4",
    fields: { phone_number: "+12125550123", state: "NY", email: "jane@example.com", extra_data: { source: "web" } },
  });
  expect("lead_id" in body).toBe(false);
});

test("a field the lead does not have is sent as null; a final-stage request carries the lead's id", () => {
  const body = checkBody(check({ send: ["phone_number", "dm_name", "extra_data"] }), lead("+12125550123", { dmName: null, extraData: null }), "lead-1");
  expect(body.fields).toEqual({ phone_number: "+12125550123", dm_name: null, extra_data: null });
  expect(body.lead_id).toBe("lead-1");
});

test("the request is signed with the checks secret as callbacks are: the reference implementation verifies it", () => {
  const now = Date.now();
  const request = signedCheckRequest({ check: check(), facts: lead(), secret: SECRET, now });
  expect(request.headers["content-type"]).toBe("application/json");
  expect(request.headers["user-agent"]).toBe(USER_AGENT);
  expect(request.headers["webhook-id"]).toBe(request.id);
  expect(request.headers["webhook-timestamp"]).toBe(String(Math.floor(now / 1000)));
  expect(new Webhook(SECRET).verify(request.body, request.headers)).toEqual(JSON.parse(request.body));
  expect(() => new Webhook("whsec_c2VjcmV0LW9mLWFub3RoZXItdmVuZG9yLTEyMzQ1Ng==").verify(request.body, request.headers)).toThrow();
});

test("the webhook-id is new for each intake request, and one per lead and check at the final stage (the same on a retry)", () => {
  expect(checkMessageId(check())).not.toBe(checkMessageId(check()));
  const leadId = "0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b";
  expect(checkMessageId(check(), leadId)).toBe(checkMessageId(check(), leadId));
  expect(checkMessageId(check({ name: "dnc" }), leadId)).not.toBe(checkMessageId(check(), leadId));
  expect(checkMessageId(check(), leadId)).toMatch(/^chk_[0-9a-f]{32}_[A-Za-z0-9_-]+$/);
});
