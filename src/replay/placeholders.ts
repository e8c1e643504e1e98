// Placeholders: values a case cannot know in advance ("{{phone}}", "{{lead_id}}", …), filled in
// while the case runs. Matchers ("{{uuid}}", …) are a different thing: see match.ts.
/** The values of one case run. A replay draws a fresh phone and unique token for every case. */
export interface CaseValues {
  /** A valid US number, written "(212) 555-0123". */
  phone: string;
  /** The same number in E.164, "+12125550123": how the service stores and reports it. */
  phone_e164: string;
  /** A second and a third fresh number, for cases that need several leads (a cap filling up). */
  phone2: string;
  phone2_e164: string;
  phone3: string;
  phone3_e164: string;
  /** The mock receiver's base URL plus this case's own path prefix; unset without --receiver. */
  receiver?: string;
  /** The mock check service's URL for this case (`<receiver>/check/<prefix>`: the mock answers check requests under /check); unset without --receiver. */
  check_url?: string;
  /** A fresh TrustedForm certificate id (40 hex digits), for a certificate_url and the mock's answer for it. */
  trustedform_id: string;
  /** The lead_id of the latest answer that had one; unset until then. */
  lead_id?: string;
  /** A random token, fresh per case run (for Idempotency-Key). */
  unique: string;
  /** The vendor name the replay authenticates as (--user), for "right name, wrong password". */
  vendor: string;
  /** A number the operator put on the suppression list (--suppressed-phone); unset without it. */
  suppressed_phone?: string;
}

export const PLACEHOLDERS = [
  "phone",
  "phone_e164",
  "phone2",
  "phone2_e164",
  "phone3",
  "phone3_e164",
  "receiver",
  "check_url",
  "trustedform_id",
  "lead_id",
  "unique",
  "vendor",
  "suppressed_phone",
] as const;
export type PlaceholderName = (typeof PLACEHOLDERS)[number];

const TOKEN = new RegExp(`\\{\\{(${PLACEHOLDERS.join("|")})\\}\\}`, "g");

export class PlaceholderError extends Error {}

/** Values of the right shape, to check a case's policy when it loads as it will be when it runs. */
export const SAMPLE_VALUES: CaseValues = {
  phone: "(212) 555-0123",
  phone_e164: "+12125550123",
  phone2: "(212) 555-0124",
  phone2_e164: "+12125550124",
  phone3: "(212) 555-0125",
  phone3_e164: "+12125550125",
  receiver: "http://127.0.0.1:9090/replay/run/case",
  check_url: "http://127.0.0.1:9090/check/replay/run/case",
  trustedform_id: "0".repeat(40),
  lead_id: "00000000-0000-7000-8000-000000000000",
  unique: "run-case",
  vendor: "vendor",
  suppressed_phone: "+12125550126",
};

const WHY_MISSING: Record<string, string> = {
  receiver: "{{receiver}} needs --receiver",
  check_url: "{{check_url}} needs --receiver",
  lead_id: "{{lead_id}} is used before any answer carried a lead_id",
  suppressed_phone: "{{suppressed_phone}} needs --suppressed-phone",
};

/** Replaces every placeholder in every string of `value` (keys are left alone). */
export function fillPlaceholders<T>(value: T, values: CaseValues): T {
  if (typeof value === "string") return fillText(value, values) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => fillPlaceholders(item, values)) as T;
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, fillPlaceholders(item, values)])) as T;
  }
  return value;
}

export function fillText(text: string, values: CaseValues): string {
  return text.replace(TOKEN, (_token, name: PlaceholderName) => {
    const filled = values[name];
    if (filled === undefined) throw new PlaceholderError(WHY_MISSING[name] ?? `{{${name}}} has no value`);
    return filled;
  });
}

/** Does any string in `value` use the placeholder? (Decides whether a case needs a receiver.) */
export function usesPlaceholder(value: unknown, name: PlaceholderName): boolean {
  return JSON.stringify(value ?? null).includes(`{{${name}}}`);
}
