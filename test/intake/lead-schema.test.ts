// The lead's schema is complete: every field has a rule, the contract's text for it, an example and
// a column in both databases; and the documented schema (TypeBox's own checker, with the formats
// registered) agrees with the validator derived from it.
import { describe, expect, test } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import { getTableColumns } from "drizzle-orm";
import { leads as pgLeads } from "../../src/db/pg/schema.ts";
import { leads as sqliteLeads } from "../../src/db/schema.ts";
import { EXAMPLE_LEAD, LEAD_FIELDS, LeadRequest, RULE_KEYWORDS, type ValidLead } from "../../src/intake/lead-schema.ts";
import { validateLead } from "../../src/intake/validate.ts";
import { LEAD_STATE_COLUMNS, type LeadFields } from "../../src/store/leads/index.ts";
import { fixedLead } from "../helpers/lead.ts";

const FIELDS = Object.entries(LEAD_FIELDS);

// ValidLead (derived from the schema) and LeadFields (derived from the table) are one type.
const sameType: [ValidLead, LeadFields] = [{} as LeadFields, {} as ValidLead];
void sameType;

describe("every field of the lead schema has", () => {
  test.each(FIELDS)("%s: a rule, and the contract's text for each of its rule keywords", (_name, field) => {
    const keywords = RULE_KEYWORDS.filter((keyword) => field.schema[keyword] !== undefined);
    expect(keywords.length).toBeGreaterThan(0);
    expect(Object.keys(field.texts).sort()).toEqual([...keywords].sort());
  });

  test.each(FIELDS)("%s: a description and an example that its own rule accepts", (name, field) => {
    expect(field.schema.description).toBeTruthy();
    expect(field.schema.examples).toHaveLength(1);
    expect(validateLead(fixedLead({ [name]: field.schema.examples[0] }), { allowPrivateCallbacks: false })).toMatchObject({ ok: true });
  });

  test.each(FIELDS)("%s: a column in both databases' leads tables", (_name, field) => {
    expect(Object.keys(getTableColumns(sqliteLeads))).toContain(field.key);
    expect(Object.keys(getTableColumns(pgLeads))).toContain(field.key);
  });
});

test("every lead column that is not the lead's identity or state is a field of the schema (or extra_data)", () => {
  const fieldColumns = [...FIELDS.map(([, field]) => field.key), "extraData"].sort();
  for (const table of [sqliteLeads, pgLeads]) {
    const columns = Object.keys(getTableColumns(table)).filter((column) => !(LEAD_STATE_COLUMNS as readonly string[]).includes(column));
    expect(columns.sort()).toEqual(fieldColumns);
  }
});

test("the example lead is every field's example, and valid", () => {
  expect(Object.keys(EXAMPLE_LEAD)).toEqual(FIELDS.map(([name]) => name));
  expect(validateLead(EXAMPLE_LEAD, { allowPrivateCallbacks: false }).ok).toBe(true);
  expect(Value.Check(LeadRequest, EXAMPLE_LEAD)).toBe(true);
});

describe("the documented schema and the validator agree", () => {
  const LEADS: [string, Record<string, unknown>][] = [
    ["the tests' valid lead", fixedLead()],
    ["no certificate_url, extra_data given", { ...fixedLead(), certificate_url: undefined }],
    ["mailing_state AE", fixedLead({ mailing_state: "ae" })],
    ["ZIP+4", fixedLead({ zip: "10001-1234" })],
    ["a phone with invalid characters", fixedLead({ phone_number: "212-555-01x3" })],
    ["a phone that is no US number", fixedLead({ phone_number: "555-0123" })],
    ["state XX", fixedLead({ state: "XX" })],
    ["state AE (military)", fixedLead({ state: "AE" })],
    ["a four-digit ZIP", fixedLead({ zip: "1234" })],
    ["mailing ZIP 10001-12", fixedLead({ mailing_zip: "10001-12" })],
    ["mailing_state ZZ", fixedLead({ mailing_state: "ZZ" })],
    ["an email without domain", fixedLead({ email: "jane@" })],
    ["an email with two dots", fixedLead({ email: "ja..ne@example.com" })],
    ["a certificate_url that is no URL", fixedLead({ certificate_url: "not a url" })],
    ["a 501-character certificate_url", fixedLead({ certificate_url: `https://cert.example.com/${"a".repeat(476)}` })],
    ["an ftp call_back_url", fixedLead({ call_back_url: "ftp://vendor.example.com/cb" })],
    ["a 256-character customer_name", fixedLead({ customer_name: "x".repeat(256) })],
    ["a number for city", fixedLead({ city: 42 })],
    ["extra_data a string", fixedLead({ extra_data: "x" })],
  ];

  test.each(LEADS)("%s", (_what, lead) => {
    const body = JSON.parse(JSON.stringify(lead));
    expect(Value.Check(LeadRequest, body)).toBe(validateLead(body, { allowPrivateCallbacks: true }).ok);
  });
});
