import { expect, test } from "bun:test";
import { FIELD_TEXTS } from "../../src/contract/texts.ts";
import { LEAD_FIELDS } from "../../src/intake/lead-schema.ts";
import { validateLead } from "../../src/intake/validate.ts";
import { loggedReason } from "../../src/log/reason.ts";

test("a reason names the failed fields and rules, and cuts out every value a vendor sent", () => {
  // Every field sent a value no rule with a format accepts: each that echoes its value does so here.
  const secret = "secret-value-7<x>";
  const body = Object.fromEntries(Object.keys(LEAD_FIELDS).map((name) => [name, secret]));
  const validation = validateLead({ ...body, extra_data: 5 }, { allowPrivateCallbacks: false });
  if (validation.ok) throw new Error("expected field errors");
  expect(validation.errors.join()).toContain(secret);
  const reason = loggedReason(validation.errors);
  expect(reason).not.toContain("secret-value");
  expect(reason).toContain(FIELD_TEXTS.invalidEmail("…"));
  expect(reason).toContain(FIELD_TEXTS.invalidExtraData);
  expect(reason.split("; ")).toHaveLength(validation.errors.length);
});

test("texts that only name a field are kept whole", () => {
  expect(loggedReason([FIELD_TEXTS.missing("email"), FIELD_TEXTS.wrongType("zip"), FIELD_TEXTS.tooLong("x", "city")])).toBe(
    "Missing Field: email; Invalid Type (expected string): zip; Field Too Long (max 255 characters): city",
  );
});
