// Placeholders are filled per case run; phones are fresh, valid and checked by the service's rule.
import { describe, expect, test } from "bun:test";
import { checkPhoneNumber } from "../../src/intake/phone.ts";
import { freshPhone } from "../../src/replay/phone.ts";
import { fillPlaceholders, PlaceholderError, usesPlaceholder, type CaseValues } from "../../src/replay/placeholders.ts";

const VALUES: CaseValues = {
  phone: "(212) 555-0123",
  phone_e164: "+12125550123",
  phone2: "(212) 555-0124",
  phone2_e164: "+12125550124",
  phone3: "(212) 555-0125",
  phone3_e164: "+12125550125",
  receiver: "http://127.0.0.1:9090/replay/abc/case",
  check_url: "http://127.0.0.1:9090/check/replay/abc/case",
  trustedform_id: "0123456789abcdef0123456789abcdef01234567",
  lead_id: "0193a5c2-7b1e-7c3d-8e4f-0123456789ab",
  unique: "run-1",
  vendor: "vendor-a",
};

describe("fillPlaceholders", () => {
  test("fills every string, nested and inside text; leaves keys, other values and matchers alone", () => {
    const filled = fillPlaceholders(
      {
        path: "/v1/leads/{{lead_id}}",
        body: { phone_number: "{{phone}}", call_back_url: "{{receiver}}/callback", list: ["{{phone_e164}}", 7, null], "{{phone}}": true },
        headers: { "idempotency-key": "key-{{unique}}" },
        auth: { user: "{{vendor}}", password: "x" },
        expect: { lead_id: "{{uuid}}", decided_at: "{{iso-date}}" },
      },
      VALUES,
    );
    expect(filled).toEqual({
      path: "/v1/leads/0193a5c2-7b1e-7c3d-8e4f-0123456789ab",
      body: {
        phone_number: "(212) 555-0123",
        call_back_url: "http://127.0.0.1:9090/replay/abc/case/callback",
        list: ["+12125550123", 7, null],
        "{{phone}}": true,
      },
      headers: { "idempotency-key": "key-run-1" },
      auth: { user: "vendor-a", password: "x" },
      expect: { lead_id: "{{uuid}}", decided_at: "{{iso-date}}" },
    });
  });

  test("a placeholder without a value is an error that says why", () => {
    const { receiver: _r, lead_id: _l, ...bare } = VALUES;
    expect(() => fillPlaceholders({ url: "{{receiver}}/cb" }, bare)).toThrow(new PlaceholderError("{{receiver}} needs --receiver"));
    expect(() => fillPlaceholders("/v1/leads/{{lead_id}}", bare)).toThrow(/before any answer carried a lead_id/);
    expect(() => fillPlaceholders("{{suppressed_phone}}", bare)).toThrow(/needs --suppressed-phone/);
  });

  test("usesPlaceholder finds a placeholder anywhere in a value", () => {
    expect(usesPlaceholder([{ body: { url: "{{receiver}}/x" } }], "receiver")).toBe(true);
    expect(usesPlaceholder([{ body: { url: "http://x" } }], "receiver")).toBe(false);
  });
});

describe("freshPhone", () => {
  test("gives valid US numbers, in display and E.164 form, different each time", () => {
    const phones = Array.from({ length: 200 }, freshPhone);
    for (const phone of phones) {
      expect(phone.display).toMatch(/^\(\d{3}\) \d{3}-\d{4}$/);
      expect(checkPhoneNumber(phone.display)).toEqual({ ok: true, e164: phone.e164 });
      expect(phone.e164).toBe(`+1${phone.display.replace(/\D/g, "")}`);
    }
    expect(new Set(phones.map((p) => p.e164)).size).toBeGreaterThan(195);
  });
});
