// docs/contract.md §4: postLead and prePing field validation. Texts are asserted exactly.
import { describe, expect, test } from "bun:test";
import { echo } from "../../src/contract/texts.ts";
import { isHttpUrl, type ValidLead } from "../../src/intake/lead-schema.ts";
import { validateLead, validatePrePing } from "../../src/intake/validate.ts";
import { leadWithout, fixedLead, type Body } from "../helpers/lead.ts";

/** The production default: call_back_url may not name localhost or a private address. */
const PUBLIC_ONLY = { allowPrivateCallbacks: false };

function errorsOf(body: Body, rules = PUBLIC_ONLY): string[] {
  const result = validateLead(body, rules);
  return result.ok ? [] : result.errors;
}

function validValue(body: Body, rules = PUBLIC_ONLY): ValidLead {
  const result = validateLead(body, rules);
  if (!result.ok) throw new Error(`expected a valid lead, got ${JSON.stringify(result.errors)}`);
  return result.value;
}

const ELLIPSIS = "…";

// The string fields of docs/interface.md §2.1, in its order.
const REQUIRED_STRING_FIELDS = [
  "phone_number",
  "customer_name",
  "state",
  "city",
  "zip",
  "street",
  "dm_name",
  "utility",
  "mailing_street",
  "mailing_city",
  "mailing_zip",
  "mailing_state",
  "vendor_campaign_name",
  "email",
];
const OPTIONAL_STRING_FIELDS = ["certificate_url", "call_back_url"];
// Fields whose only rule beyond presence is the 255-character limit.
const FREE_TEXT_FIELDS = ["customer_name", "city", "street", "dm_name", "utility", "mailing_street", "mailing_city", "vendor_campaign_name"];

describe("a valid lead", () => {
  test("has no errors and comes back normalised", () => {
    expect(validValue(fixedLead())).toEqual({
      phoneE164: "+12125551234",
      customerName: "Jane Doe",
      state: "NY",
      city: "New York",
      zip: "10001",
      street: "1 Main St",
      certificateUrl: "https://cert.example.com/abc",
      dmName: "Jane Doe",
      utility: "ConEd",
      callBackUrl: "https://vendor.example.com/callback",
      mailingStreet: "1 Main St",
      mailingCity: "New York",
      mailingZip: "10001",
      mailingState: "NY",
      vendorCampaignName: "spring-2026",
      email: "jane@example.com",
      extraData: '{"source":"web"}',
    });
  });

  test("string values are stored trimmed", () => {
    const value = validValue(fixedLead({ customer_name: "  Jane Doe \t", city: "\nNew York ", zip: " 10001 " }));
    expect([value.customerName, value.city, value.zip]).toEqual(["Jane Doe", "New York", "10001"]);
  });

  test("unknown top-level fields are ignored", () => {
    const value = validValue(fixedLead({ favourite_colour: "blue", nested: { a: [1, 2] }, Street: 42, phone: null }));
    expect(value.street).toBe("1 Main St");
  });
});

describe("Missing Field", () => {
  const absentForms: [string, (body: Body, field: string) => void][] = [
    ["missing", (body, field) => delete body[field]],
    ["null", (body, field) => (body[field] = null)],
    ["empty", (body, field) => (body[field] = "")],
    ["blank after trimming", (body, field) => (body[field] = " \t\n\r ")],
  ];
  const cases = REQUIRED_STRING_FIELDS.flatMap((field) => absentForms.map(([form, apply]) => [field, form, apply] as const));

  test.each(cases)("%s %s → Missing Field: <field>", (field, _form, apply) => {
    const body = fixedLead();
    apply(body, field);
    expect(errorsOf(body)).toEqual([`Missing Field: ${field}`]);
  });

  test("an empty body lists every required field, then the extra_data rule", () => {
    expect(errorsOf({})).toEqual([
      ...REQUIRED_STRING_FIELDS.map((f) => `Missing Field: ${f}`),
      "Missing Field: extra_data (required when certificate_url is not provided)",
    ]);
  });
});

describe("Invalid Type (expected string)", () => {
  const wrongValues: [string, unknown][] = [
    ["a number", 2125551234],
    ["zero", 0],
    ["a boolean", true],
    ["false", false],
    ["an object", { value: "x" }],
    ["an array", ["x"]],
    ["an empty array", []],
  ];
  const cases = [...REQUIRED_STRING_FIELDS, ...OPTIONAL_STRING_FIELDS].flatMap((field) => wrongValues.map(([what, value]) => [field, what, value] as const));

  test.each(cases)("%s as %s → Invalid Type (expected string): <field>", (field, _what, value) => {
    expect(errorsOf(fixedLead({ [field]: value }))).toEqual([`Invalid Type (expected string): ${field}`]);
  });

  test("customer_address of the wrong type names customer_address", () => {
    const body = leadWithout("street");
    body.customer_address = 12;
    expect(errorsOf(body)).toEqual(["Invalid Type (expected string): customer_address"]);
  });
});

describe("phone_number", () => {
  test.each([
    ["2125551234", "+12125551234"],
    ["(212) 555-1234", "+12125551234"],
    ["212.555.1234", "+12125551234"],
    ["212-555-1234", "+12125551234"],
    ["+1 212 555 1234", "+12125551234"],
    ["1-212-555-1234", "+12125551234"],
    ["+12125551234", "+12125551234"],
    ["  212 555 1234  ", "+12125551234"],
  ])("%p is accepted as %s", (raw, e164) => {
    expect(validValue(fixedLead({ phone_number: raw })).phoneE164).toBe(e164);
  });

  test.each(["212-555-1234 x12", "212_555_1234", "212/555/1234", "+1 800 FLOWERS", "212\t555\t1234", "２１２５５５１２３４", "212#5551234", "*2125551234"])(
    "%p → Invalid Characters: <value>",
    (raw) => {
      expect(errorsOf(fixedLead({ phone_number: raw }))).toEqual([`Invalid Characters: ${raw}`]);
    },
  );

  test.each(["1234567890", "212-555-123", "212-555-12345", "555-555-5555", "+44 20 7946 0958", "0125551234", "2121551234", "()", "+", "---"])(
    "%p → Invalid Phone Number: <value>",
    (raw) => {
      expect(errorsOf(fixedLead({ phone_number: raw }))).toEqual([`Invalid Phone Number: ${raw}`]);
    },
  );

  test("the offending value is echoed verbatim, surrounding spaces included", () => {
    expect(errorsOf(fixedLead({ phone_number: "  212-555-12a4 " }))).toEqual(["Invalid Characters:   212-555-12a4 "]);
    expect(errorsOf(fixedLead({ phone_number: " 123 " }))).toEqual(["Invalid Phone Number:  123 "]);
  });
});

describe("state and mailing_state", () => {
  test.each(["ny", "Ny", "nY", " ny "])("state %p is case-insensitive and stored upper-case", (raw) => {
    expect(validValue(fixedLead({ state: raw })).state).toBe("NY");
  });

  test.each(["ca", "Dc", "pr", "gu", "vi", "as", "mp", "TX", "WY"])("state %p is a USPS code", (raw) => {
    expect(validValue(fixedLead({ state: raw })).state).toBe(raw.toUpperCase());
  });

  test.each(["AA", "AE", "ap", "XX", "C", "CAL", "New York", "C A", "12", "ZZ"])("state %p → Invalid State Code (2 characters): <value>", (raw) => {
    expect(errorsOf(fixedLead({ state: raw }))).toEqual([`Invalid State Code (2 characters): ${raw}`]);
  });

  // "ı".toUpperCase() is "I" and "ſ".toUpperCase() is "S": these are not USPS codes.
  test.each(["ıa", "ſc", "ıl"])("state %p made of non-ASCII letters is refused", (raw) => {
    expect(errorsOf(fixedLead({ state: raw }))).toEqual([`Invalid State Code (2 characters): ${raw}`]);
  });

  test.each(["AA", "ae", "Ap", "ny", "pr"])("mailing_state %p is accepted and stored upper-case", (raw) => {
    expect(validValue(fixedLead({ mailing_state: raw })).mailingState).toBe(raw.toUpperCase());
  });

  test.each(["XX", "A", "AAA", "Armed Forces", "ıa"])("mailing_state %p → Invalid Mailing State Code: <value>", (raw) => {
    expect(errorsOf(fixedLead({ mailing_state: raw }))).toEqual([`Invalid Mailing State Code: ${raw}`]);
  });

  test("the state is echoed verbatim (not upper-cased, not trimmed)", () => {
    expect(errorsOf(fixedLead({ state: " xx " }))).toEqual(["Invalid State Code (2 characters):  xx "]);
  });
});

describe("zip and mailing_zip", () => {
  test.each(["12345", "12345-6789", "00501", " 10001 "])("%p is accepted", (raw) => {
    const value = validValue(fixedLead({ zip: raw, mailing_zip: raw }));
    expect([value.zip, value.mailingZip]).toEqual([raw.trim(), raw.trim()]);
  });

  const bad = ["1234", "123456", "12345-678", "12345-67890", "12345 6789", "123456789", "12345-", "abcde", "1234a", "١٢٣٤٥"];

  test.each(bad)("zip %p → Invalid ZIP Code: <value>", (raw) => {
    expect(errorsOf(fixedLead({ zip: raw }))).toEqual([`Invalid ZIP Code: ${raw}`]);
  });

  test.each(bad)("mailing_zip %p → Invalid Mailing ZIP Code: <value>", (raw) => {
    expect(errorsOf(fixedLead({ mailing_zip: raw }))).toEqual([`Invalid Mailing ZIP Code: ${raw}`]);
  });
});

describe("email", () => {
  test.each(["a@b.co", "jane.doe+leads@example.com", "o'brien@mail.example.org", "x_y-z@sub-domain.example.io", "USER@EXAMPLE.COM"])(
    "%p is accepted",
    (raw) => {
      expect(validValue(fixedLead({ email: raw })).email).toBe(raw);
    },
  );

  test.each([
    "plainaddress",
    "@example.com",
    "jane@",
    "jane@localhost",
    "jane@@example.com",
    "jane doe@example.com",
    ".jane@example.com",
    "jane.@example.com",
    "ja..ne@example.com",
    "jane@example..com",
    "jane@-example.com",
    "jane@example.com.",
    "jane@exa mple.com",
    `${"a".repeat(65)}@example.com`,
  ])("%p → Invalid Email: <value>", (raw) => {
    expect(errorsOf(fixedLead({ email: raw }))).toEqual([`Invalid Email: ${raw}`]);
  });
});

describe("certificate_url", () => {
  const text = (value: string) => `Certificate URL exceeds 500 characters, or not a valid URL ${value}`;
  const urlOfLength = (n: number) => {
    const prefix = "https://cert.example.com/";
    return prefix + "a".repeat(n - prefix.length);
  };

  test("exactly 500 characters is accepted", () => {
    const url = urlOfLength(500);
    expect(url.length).toBe(500);
    expect(validValue(fixedLead({ certificate_url: url })).certificateUrl).toBe(url);
  });

  test("501 characters is refused, with the value echoed", () => {
    const url = urlOfLength(501);
    expect(errorsOf(fixedLead({ certificate_url: url }))).toEqual([text(url)]);
  });

  test.each(["http://cert.example.com", "HTTPS://CERT.EXAMPLE.COM/X", "https://cert.example.com:8443/a?b=c#d", "http://192.0.2.1/cert"])(
    "%p is accepted",
    (url) => {
      expect(validValue(fixedLead({ certificate_url: url })).certificateUrl).toBe(url);
    },
  );

  test.each([
    "ftp://cert.example.com/c",
    "mailto:a@example.com",
    "javascript:alert(1)",
    "cert.example.com/c",
    "//cert.example.com/c",
    "http://",
    "https:// cert.example.com",
    "https://cert .example.com",
    "http:/cert.example.com",
    "not a url",
    "https://cert.example.com:99999/",
  ])("%p → the certificate URL text with the value", (url) => {
    expect(errorsOf(fixedLead({ certificate_url: url }))).toEqual([text(url)]);
  });

  test("absent (or null, or blank) with extra_data present is fine and stored as null", () => {
    for (const certificate_url of [undefined, null, "  "]) {
      expect(validValue(fixedLead({ certificate_url })).certificateUrl).toBeNull();
    }
  });
});

describe("call_back_url", () => {
  const urlOfLength = (n: number) => {
    const prefix = "https://vendor.example.com/";
    return prefix + "c".repeat(n - prefix.length);
  };

  test.each([
    ["missing", undefined],
    ["null", null],
    ["blank", "   "],
  ])("is optional: %s → no error, stored as null", (_what, value) => {
    const body = fixedLead({ call_back_url: value });
    if (value === undefined) delete body.call_back_url;
    expect(validValue(body).callBackUrl).toBeNull();
  });

  test("exactly 2,048 characters is accepted", () => {
    const url = urlOfLength(2048);
    expect(validValue(fixedLead({ call_back_url: url })).callBackUrl).toBe(url);
  });

  test("2,049 characters → Invalid Callback URL: <value, cut to 600 with …>", () => {
    const url = urlOfLength(2049);
    expect(errorsOf(fixedLead({ call_back_url: url }))).toEqual([`Invalid Callback URL: ${url.slice(0, 600)}${ELLIPSIS}`]);
  });

  test("2,048 characters counted as characters, not UTF-16 units", () => {
    // 1,100 astral characters are 2,200 UTF-16 units but only 1,100 + prefix characters.
    const url = `https://vendor.example.com/${"😀".repeat(1100)}`;
    expect(validValue(fixedLead({ call_back_url: url })).callBackUrl).toBe(url);
  });

  test.each(["ftp://vendor.example.com/cb", "vendor.example.com/cb", "http://", "https://vendor example.com/cb", "mailto:a@example.com", "localhost:8080/cb"])(
    "%p → Invalid Callback URL: <value>",
    (url) => {
      expect(errorsOf(fixedLead({ call_back_url: url }))).toEqual([`Invalid Callback URL: ${url}`]);
    },
  );

  test("http URLs (not only https) are accepted", () => {
    expect(validValue(fixedLead({ call_back_url: "http://vendor.example.com:9999/cb" })).callBackUrl).toBe("http://vendor.example.com:9999/cb");
  });

  const PRIVATE_HOSTS = [
    "http://127.0.0.1/x",
    "http://localhost/x",
    "http://LOCALHOST.:8080/x",
    "http://app.localhost/x",
    "http://169.254.169.254/",
    "http://[::1]/",
    "http://[::ffff:127.0.0.1]/x",
    "http://[fd00:ec2::254]/",
    "http://10.0.0.1/",
    "http://192.168.1.20:8080/cb",
    "http://0x7f000001/",
    "http://2130706433/",
    "http://0177.0.0.1/",
    "http://127.1/",
    "http://0/",
  ];

  test.each(PRIVATE_HOSTS)("%p (localhost or a literal private address) → Invalid Callback URL: <value>", (url) => {
    expect(errorsOf(fixedLead({ call_back_url: url }))).toEqual([`Invalid Callback URL: ${url}`]);
  });

  test.each(PRIVATE_HOSTS)("%p is accepted, as sent, when private callbacks are allowed", (url) => {
    expect(validValue(fixedLead({ call_back_url: url }), { allowPrivateCallbacks: true }).callBackUrl).toBe(url);
  });

  test.each(["https://93.184.216.34/cb", "http://[2606:2800:220:1::]/cb", "https://localhost.example.com/cb", "https://internal.example/cb"])(
    "%p (a public literal, or any name: judged at delivery) is accepted",
    (url) => {
      expect(validValue(fixedLead({ call_back_url: url })).callBackUrl).toBe(url);
    },
  );
});

describe("255-character limit", () => {
  test.each(FREE_TEXT_FIELDS)("%s: exactly 255 characters is accepted", (field) => {
    expect(errorsOf(fixedLead({ [field]: "x".repeat(255) }))).toEqual([]);
  });

  test.each(FREE_TEXT_FIELDS)("%s: 256 characters → Field Too Long (max 255 characters): <field>", (field) => {
    expect(errorsOf(fixedLead({ [field]: "x".repeat(256) }))).toEqual([`Field Too Long (max 255 characters): ${field}`]);
  });

  test("customer_address is held to the same limit under its own name", () => {
    const body = leadWithout("street");
    body.customer_address = "x".repeat(256);
    expect(errorsOf(body)).toEqual(["Field Too Long (max 255 characters): customer_address"]);
  });

  test("characters are counted, not UTF-16 units", () => {
    expect(errorsOf(fixedLead({ customer_name: "😀".repeat(255) }))).toEqual([]);
    expect(errorsOf(fixedLead({ customer_name: "😀".repeat(256) }))).toEqual(["Field Too Long (max 255 characters): customer_name"]);
  });

  test("surrounding whitespace does not count (the value is stored trimmed)", () => {
    expect(validValue(fixedLead({ city: `  ${"x".repeat(255)}  ` })).city).toBe("x".repeat(255));
  });
});

describe("U+0000 in a string field", () => {
  const STRING_FIELDS = [...FREE_TEXT_FIELDS, "certificate_url", "call_back_url"];

  test.each(STRING_FIELDS)("%s → Invalid Characters (U+0000): <field>", (field) => {
    const value = field.endsWith("_url") ? "https://example.com/a\u0000b" : "a\u0000b";
    expect(errorsOf(fixedLead({ [field]: value }))).toEqual([`Invalid Characters (U+0000): ${field}`]);
  });

  test("fields with a format of their own report it instead; the errors keep the field order", () => {
    expect(errorsOf(fixedLead({ phone_number: "212\u00005550123", city: "a\u0000", email: "a\u0000@example.com", vendor_campaign_name: "\u0000" }))).toEqual([
      "Invalid Characters: 212\u00005550123",
      "Invalid Characters (U+0000): city",
      "Invalid Characters (U+0000): vendor_campaign_name",
      "Invalid Email: a\u0000@example.com",
    ]);
  });
});

describe("echoed values longer than 600 characters", () => {
  test("are cut to 600 characters followed by …", () => {
    const raw = "a".repeat(700);
    expect(errorsOf(fixedLead({ phone_number: raw }))).toEqual([`Invalid Characters: ${"a".repeat(600)}${ELLIPSIS}`]);
  });

  test("exactly 600 characters are echoed whole", () => {
    const raw = "1".repeat(600);
    expect(errorsOf(fixedLead({ phone_number: raw }))).toEqual([`Invalid Phone Number: ${raw}`]);
  });

  test("601 characters lose exactly one character", () => {
    const raw = `${"b".repeat(600)}c`;
    expect(errorsOf(fixedLead({ email: raw }))).toEqual([`Invalid Email: ${"b".repeat(600)}${ELLIPSIS}`]);
  });

  test("certificate_url, zip and state texts are cut the same way", () => {
    const long = `https://cert.example.com/${"z".repeat(700)}`;
    expect(errorsOf(fixedLead({ certificate_url: long, zip: "9".repeat(650), state: "S".repeat(601) }))).toEqual([
      `Invalid State Code (2 characters): ${"S".repeat(600)}${ELLIPSIS}`,
      `Invalid ZIP Code: ${"9".repeat(600)}${ELLIPSIS}`,
      `Certificate URL exceeds 500 characters, or not a valid URL ${long.slice(0, 600)}${ELLIPSIS}`,
    ]);
  });

  test("echo() counts characters, so a surrogate pair is never split", () => {
    expect(echo("😀".repeat(601))).toBe(`${"😀".repeat(600)}${ELLIPSIS}`);
    expect(echo("😀".repeat(600))).toBe("😀".repeat(600));
    expect(echo("short")).toBe("short");
  });
});

describe("street and customer_address", () => {
  test("street alone is used", () => {
    expect(validValue(fixedLead({ street: "1 Main St" })).street).toBe("1 Main St");
  });

  test("customer_address alone satisfies the street field", () => {
    const body = leadWithout("street");
    body.customer_address = "2 Side Ave";
    expect(validValue(body).street).toBe("2 Side Ave");
  });

  test("when both are sent, street is used", () => {
    expect(validValue(fixedLead({ street: "1 Main St", customer_address: "2 Side Ave" })).street).toBe("1 Main St");
  });

  test("when both are sent, customer_address is not validated", () => {
    expect(validValue(fixedLead({ street: "1 Main St", customer_address: "x".repeat(300) })).street).toBe("1 Main St");
  });

  test("a blank street with customer_address uses customer_address", () => {
    expect(validValue(fixedLead({ street: "  ", customer_address: "2 Side Ave" })).street).toBe("2 Side Ave");
  });

  test("neither → Missing Field: street", () => {
    expect(errorsOf(leadWithout("street"))).toEqual(["Missing Field: street"]);
    expect(errorsOf(fixedLead({ street: null, customer_address: " " }))).toEqual(["Missing Field: street"]);
  });
});

describe("extra_data", () => {
  const missingText = "Missing Field: extra_data (required when certificate_url is not provided)";
  const invalidText = "Invalid extra_data: must be an object or an array of objects";

  test.each([
    ["missing", undefined],
    ["null", null],
  ])("%s while certificate_url is absent → the special Missing Field text", (_what, value) => {
    const body = leadWithout("certificate_url");
    if (value !== undefined) body.extra_data = value;
    else delete body.extra_data;
    expect(errorsOf(body)).toEqual([missingText]);
  });

  test("missing while certificate_url is blank → the special Missing Field text", () => {
    const body = leadWithout("extra_data");
    body.certificate_url = "   ";
    expect(errorsOf(body)).toEqual([missingText]);
  });

  test("missing while certificate_url is present is fine and stored as null", () => {
    expect(validValue(leadWithout("extra_data")).extraData).toBeNull();
  });

  test.each([
    ["an object", { a: 1, b: [1, 2], c: { d: null } }],
    ["an empty object", {}],
    ["an array of objects", [{ a: 1 }, { b: "two" }]],
    ["an array of one object", [{}]],
  ])("%s is accepted (without certificate_url) and stored as JSON text", (_what, value) => {
    const body = leadWithout("certificate_url");
    body.extra_data = value;
    expect(validValue(body).extraData).toBe(JSON.stringify(value));
  });

  test.each([
    ["a string", "x"],
    ["an empty string", ""],
    ["a number", 42],
    ["a boolean", true],
    ["an array of strings", ["a", "b"]],
    ["an array with one non-object", [{ a: 1 }, 2]],
    ["an array holding null", [{ a: 1 }, null]],
    ["an array of arrays", [[{ a: 1 }]]],
  ])("%s → Invalid extra_data", (_what, value) => {
    expect(errorsOf(fixedLead({ extra_data: value }))).toEqual([invalidText]);
    const withoutCertificate = leadWithout("certificate_url");
    withoutCertificate.extra_data = value;
    expect(errorsOf(withoutCertificate)).toEqual([invalidText]);
  });
});

describe("several failures", () => {
  test("come together, one per field, in the order of docs/interface.md §2.1", () => {
    const body: Body = {
      extra_data: "nope",
      email: "not-an-email",
      vendor_campaign_name: null,
      mailing_state: "QQ",
      mailing_zip: "1",
      mailing_city: "y".repeat(256),
      mailing_street: "   ",
      call_back_url: "ftp://x",
      utility: 7,
      dm_name: "",
      certificate_url: "nope",
      street: "z".repeat(256),
      zip: "abc",
      city: false,
      state: "XX",
      customer_name: undefined,
      phone_number: "call me",
    };
    expect(errorsOf(body)).toEqual([
      "Invalid Characters: call me",
      "Missing Field: customer_name",
      "Invalid State Code (2 characters): XX",
      "Invalid Type (expected string): city",
      "Invalid ZIP Code: abc",
      "Field Too Long (max 255 characters): street",
      "Certificate URL exceeds 500 characters, or not a valid URL nope",
      "Missing Field: dm_name",
      "Invalid Type (expected string): utility",
      "Invalid Callback URL: ftp://x",
      "Missing Field: mailing_street",
      "Field Too Long (max 255 characters): mailing_city",
      "Invalid Mailing ZIP Code: 1",
      "Invalid Mailing State Code: QQ",
      "Missing Field: vendor_campaign_name",
      "Invalid Email: not-an-email",
      "Invalid extra_data: must be an object or an array of objects",
    ]);
  });

  test("the extra_data rule comes last, after the other missing fields", () => {
    expect(errorsOf(leadWithout("phone_number", "certificate_url", "extra_data", "email"))).toEqual([
      "Missing Field: phone_number",
      "Missing Field: email",
      "Missing Field: extra_data (required when certificate_url is not provided)",
    ]);
  });
});

describe("validatePrePing", () => {
  test("a valid number → its E.164 form", () => {
    expect(validatePrePing({ phone_number: "1 (212) 555-1234" })).toEqual({ ok: true, value: { phoneE164: "+12125551234", vendorCampaignName: null } });
  });

  test("only phone_number and vendor_campaign_name are validated; the campaign is optional and stored trimmed", () => {
    expect(validatePrePing({ phone_number: "2125551234", state: "XX", email: 1 })).toEqual({
      ok: true,
      value: { phoneE164: "+12125551234", vendorCampaignName: null },
    });
    expect(validatePrePing({ phone_number: "2125551234", vendor_campaign_name: " solar-q4 " })).toEqual({
      ok: true,
      value: { phoneE164: "+12125551234", vendorCampaignName: "solar-q4" },
    });
  });

  test("vendor_campaign_name is refused with postLead's texts, after the phone's", () => {
    const postLeadErrors = (campaign: unknown) => errorsOf({ ...fixedLead(), vendor_campaign_name: campaign });
    for (const campaign of [42, "x".repeat(256)]) {
      const errors = postLeadErrors(campaign);
      expect(errors).toHaveLength(1);
      expect(validatePrePing({ phone_number: "2125551234", vendor_campaign_name: campaign })).toEqual({ ok: false, errors });
      expect(validatePrePing({ phone_number: "123", vendor_campaign_name: campaign })).toEqual({ ok: false, errors: ["Invalid Phone Number: 123", ...errors] });
    }
  });

  test.each([
    [{}, "Missing Field: phone_number"],
    [{ phone_number: null }, "Missing Field: phone_number"],
    [{ phone_number: "  " }, "Missing Field: phone_number"],
    [{ phone_number: 2125551234 }, "Invalid Type (expected string): phone_number"],
    [{ phone_number: "212-555-CALL" }, "Invalid Characters: 212-555-CALL"],
    [{ phone_number: "123" }, "Invalid Phone Number: 123"],
  ])("%p → the postLead text", (body, error) => {
    expect(validatePrePing(body)).toEqual({ ok: false, errors: [error] });
  });
});

describe("isHttpUrl", () => {
  test.each(["http://a", "https://example.com/x?y#z", "HTTPS://EXAMPLE.COM", "http://[::1]:8080/", "http://user:pw@example.com/"])("%p → true", (url) => {
    expect(isHttpUrl(url)).toBe(true);
  });

  test.each([
    "",
    "ftp://example.com",
    "//example.com",
    "http:/example.com",
    "http://",
    "http:// example.com",
    "http://exa mple.com",
    "http://example.com/ x",
    "example.com",
    "http://x.com:99999",
  ])("%p → false", (url) => {
    expect(isHttpUrl(url)).toBe(false);
  });
});
