// The fields a condition or a reason template may name (docs/policy.md "Fields"), and how each is
// read from a lead's facts. Names are resolved once, when the policy is compiled, into a reader.
import { LEAD_FIELDS, type LeadFieldName, type ValidLead } from "../intake/lead-schema.ts";
import type { WEEKDAYS } from "./schema.ts";
import { zonedParts } from "./zoned.ts";

/** What the caller knows about a lead: its stored values, and at the final stage the §11 facts. */
export interface LeadFacts {
  /** The authenticated vendor's name. */
  readonly vendor: string;
  /** The lead's stored values (state upper-case, phone E.164); at prePing only phoneE164 and vendorCampaignName. */
  readonly lead: Readonly<Partial<ValidLead>>;
  /** extra_data as parsed JSON (the body's value, or the stored text parsed); absent when not sent. */
  readonly extraData?: unknown;
  /** certificate.* facts (docs/contract.md §11), final stage only. */
  readonly certificate?: Readonly<Record<string, unknown>>;
  /** check.<name>.* facts: each check's answer, final stage only. */
  readonly checks?: Readonly<Record<string, Readonly<Record<string, unknown>> | undefined>>;
}

/**
 * The facts of a validated or stored lead. extra_data's JSON text is parsed the first time a rule
 * reads it, so a policy that never does costs no parse. A class: one shape, made without a closure.
 */
class FactsOfLead implements LeadFacts {
  /** extra_data parsed, once asked; UNPARSED before. A TypeScript private, not a #field: one plain slot, cheaper to make. */
  private parsedExtraData: unknown = UNPARSED;
  constructor(
    readonly vendor: string,
    readonly lead: Readonly<Partial<ValidLead>>,
    readonly certificate: LeadFacts["certificate"],
    readonly checks: LeadFacts["checks"],
  ) {}

  get extraData(): unknown {
    if (this.parsedExtraData === UNPARSED) this.parsedExtraData = parsedJson(this.lead.extraData);
    return this.parsedExtraData;
  }
}

const UNPARSED = Symbol("unparsed");

function parsedJson(text: unknown): unknown {
  try {
    return typeof text === "string" ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

export const factsOfLead = (vendor: string, lead: Readonly<Partial<ValidLead>>, final: Pick<LeadFacts, "certificate" | "checks"> = {}): LeadFacts =>
  new FactsOfLead(vendor, lead, final.certificate, final.checks);

/** Reads a field's value: trimmed text, or undefined when missing (a missing field is blank). */
export type FieldReader = (facts: LeadFacts, at: number) => string | undefined;

export const CERTIFICATE_FACTS = ["verified", "phone_match", "email_match", "age_seconds", "domain", "page_url"] as const;
export const CHECK_FACTS = ["outcome", "reason"] as const;
const DAY_NAMES: readonly (typeof WEEKDAYS)[number][] = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];

/** A JSON value as text: strings trimmed, numbers and booleans as written, objects and arrays as JSON; null is missing. */
export function textOf(value: unknown): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === "string") return value.trim();
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value);
}

/**
 * extra_data.<key>…: each key steps into an object; on an array, a whole-number key is an index and
 * any other key is looked up in its elements in order (extra_data may be an array of objects).
 */
export function lookUp(value: unknown, keys: readonly string[]): unknown {
  let current = value;
  for (const key of keys) {
    if (Array.isArray(current)) {
      if (/^(0|[1-9][0-9]*)$/.test(key)) current = current[Number(key)];
      else current = current.find((item) => item !== null && typeof item === "object" && !Array.isArray(item) && Object.hasOwn(item, key))?.[key];
    } else if (current !== null && typeof current === "object" && Object.hasOwn(current, key)) current = (current as Record<string, unknown>)[key];
    else return undefined;
  }
  return current;
}

/** Where a field may be read: "prePing" fields are also known at intake and final, "intake" ones at final. */
export type FieldStage = "prePing" | "intake" | "final";

export interface ResolvedField {
  read: FieldReader;
  /** A lead field's key in the lead's values (read is textOf of it): unrolled.ts reads it by name. */
  leadKey?: keyof ValidLead;
  stage: FieldStage;
  /** The campaign: unknown to a prePing sent without vendor_campaign_name. */
  campaign?: true;
}

const leadKey = (name: string): keyof ValidLead | undefined => (Object.hasOwn(LEAD_FIELDS, name) ? LEAD_FIELDS[name as LeadFieldName].key : undefined);

/**
 * Resolved fields by name and time zone: one object per field, so that a rule list's function
 * (unrolled.ts) reads and folds a field once per lead however many conditions name it.
 */
const resolved = new Map<string, ResolvedField>();
/** Field names come from operators' documents; past this many, the memo starts again. */
const RESOLVED_LIMIT = 10_000;

/**
 * The reader of a field name, or a message saying why there is none. `checkNames` are the document's
 * checks, which check.<name>.* must name; `timeZone` is the entry's, for received.*. The same name
 * and zone give the same reader.
 */
export function resolveField(name: string, timeZone: string, checkNames: ReadonlySet<string>): ResolvedField | string {
  const key = `${timeZone}\n${name}`;
  const known = resolved.get(key);
  // A check's fields are valid only while the document has the check: asked each time.
  if (known !== undefined && !name.startsWith("check.")) return known;
  const field = resolveFieldOnce(name, timeZone, checkNames);
  if (typeof field === "string") return field;
  if (known !== undefined) return known;
  // Restarting only costs a field read twice, when two of its conditions' names resolved either side.
  if (resolved.size >= RESOLVED_LIMIT) resolved.clear();
  resolved.set(key, field);
  return field;
}

function resolveFieldOnce(name: string, timeZone: string, checkNames: ReadonlySet<string>): ResolvedField | string {
  const key = leadKey(name);
  if (key !== undefined) {
    const read: FieldReader = (facts) => textOf(facts.lead[key]);
    if (key === "vendorCampaignName") return { stage: "prePing", read, leadKey: key, campaign: true };
    return { stage: key === "phoneE164" ? "prePing" : "intake", read, leadKey: key };
  }
  switch (name) {
    case "vendor":
      return { stage: "prePing", read: (facts) => textOf(facts.vendor) };
    case "campaign":
      return { stage: "prePing", read: (facts) => textOf(facts.lead.vendorCampaignName), campaign: true };
    case "phone.area_code":
      return { stage: "prePing", read: (facts) => facts.lead.phoneE164?.slice(2, 5) || undefined };
    case "received.weekday":
      return { stage: "prePing", read: (_facts, at) => DAY_NAMES[zonedParts(at, timeZone).weekday] };
    case "received.hour":
      return { stage: "prePing", read: (_facts, at) => String(zonedParts(at, timeZone).hour) };
  }
  const [head, ...rest] = name.split(".");
  if (head === "extra_data") {
    if (rest.length === 0 || rest.some((part) => part === "")) return "must name a key: extra_data.<key>[.<key>…]";
    return { stage: "intake", read: (facts) => textOf(lookUp(facts.extraData, rest)) };
  }
  if (head === "certificate") {
    const fact = rest.join(".");
    if (!(CERTIFICATE_FACTS as readonly string[]).includes(fact)) return `must be one of ${CERTIFICATE_FACTS.map((item) => `certificate.${item}`).join(", ")}`;
    return { stage: "final", read: (facts) => textOf(facts.certificate?.[fact]) };
  }
  if (head === "check") {
    const fact = rest.at(-1) ?? "";
    const check = rest.slice(0, -1).join(".");
    if (rest.length < 2 || !(CHECK_FACTS as readonly string[]).includes(fact)) return "must be check.<name>.outcome or check.<name>.reason";
    if (!checkNames.has(check)) return `names no check of the document: ${check}`;
    return { stage: "final", read: (facts) => textOf(facts.checks?.[check]?.[fact]) };
  }
  return `is not a field a rule can read (a lead field such as ${Object.keys(LEAD_FIELDS).slice(0, 3).join(", ")}, extra_data.<key>, phone.area_code, vendor, campaign, received.weekday, received.hour, certificate.*, check.<name>.*)`;
}
