// The acceptance policy document (docs/contract.md §10, §11; docs/policy.md), once: its structure as
// TypeBox. The checker's messages by JSON path (problems.ts), the Policy type and the API page's
// description derive from it; what a schema cannot say (unique names, time zones, hours, patterns,
// an operator's value) is check.ts's.
import { type Static, Type as t, type TLiteral, type TOptional, type TSchema, type TUnion } from "@sinclair/typebox";

export const OPERATORS = [
  "equals",
  "not_equals",
  "in",
  "not_in",
  "starts_with",
  "contains",
  "blank",
  "not_blank",
  "less_than",
  "greater_than",
  "matches",
] as const;
export type Operator = (typeof OPERATORS)[number];

export const WEEKDAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"] as const;
export type Weekday = (typeof WEEKDAYS)[number];

export const STAGES = ["intake", "final"] as const;
export const PERIODS = ["minute", "hour", "day", "week", "month"] as const;
export type Period = (typeof PERIODS)[number];
export const COUNTS = ["leads", "pings"] as const;
export const EACH = ["vendor", "campaign"] as const;
export const ON_ERROR = ["accept", "reject"] as const;

/** One of `values`, typed as their union (TypeBox types a mapped array of literals as plain strings). */
const oneOf = <T extends string>(values: readonly T[], description: string) =>
  t.Union(
    values.map((value) => t.Literal(value)),
    { description },
  ) as unknown as TUnion<TLiteral<T>[]>;

const name = t.String({ minLength: 1, maxLength: 100, description: "Unique within its list; named in refusals, metrics and the audit log." });
const scope = {
  vendors: t.Optional(t.Array(t.String({ minLength: 1 }), { description: "Vendor names the entry applies to; absent means every vendor." })),
  campaigns: t.Optional(
    t.Array(t.String({ minLength: 1 }), {
      description: "vendor_campaign_name values the entry applies to, compared ignoring case; absent means every campaign.",
    }),
  ),
  enabled: t.Optional(t.Boolean({ description: "false keeps the entry but does not apply it. Default true." })),
};
const timeZone = t.Optional(t.String({ minLength: 1, description: "An IANA time zone, e.g. America/New_York. Default UTC." }));
const reason = (fallback: string) =>
  t.Optional(
    t.String({ minLength: 1, maxLength: 500, description: `The refusal's text; {field} is replaced by the lead's value of field. Default "${fallback}".` }),
  );

const scalar = t.Union([t.String(), t.Number(), t.Boolean()]);

/** A leaf: one field compared with one operator. */
export const Leaf = t.Object(
  {
    field: t.String({
      minLength: 1,
      description:
        "A lead field, extra_data.<key>…, phone.area_code, vendor, campaign, received.weekday, received.hour; at the final stage also certificate.* and check.<name>.*.",
    }),
    op: oneOf(OPERATORS, "The comparison."),
    value: t.Optional(
      t.Union([scalar, t.Array(scalar)], {
        description: "What the field is compared with; a list for in and not_in, a number for less_than and greater_than, none for blank and not_blank.",
        expected: "a text, a number, true or false, or a list of these",
      }),
    ),
  },
  { additionalProperties: false },
);
export type Leaf = Static<typeof Leaf>;

export const Condition = t.Recursive(
  (self) =>
    t.Union([
      Leaf,
      t.Object({ all: t.Array(self, { minItems: 1, description: "Every condition holds." }) }, { additionalProperties: false }),
      t.Object({ any: t.Array(self, { minItems: 1, description: "At least one condition holds." }) }, { additionalProperties: false }),
      t.Object({ not: self }, { additionalProperties: false, description: "The condition does not hold." }),
    ]),
  { $id: "PolicyCondition", description: "A leaf {field, op, value}, or {all: […]}, {any: […]}, {not: …}, nested freely." },
);
export type Condition = Static<typeof Condition>;

export const Rule = t.Object(
  {
    name,
    stage: t.Optional(oneOf(STAGES, "intake (default): judged at postLead, 422. final: judged when the lead is decided, a rejection.")),
    ...scope,
    time_zone: t.Optional(t.String({ minLength: 1, description: "The time zone of received.weekday and received.hour. Default UTC." })),
    require: Condition,
    reason: reason("Rejected by rule: <name>"),
  },
  { additionalProperties: false, description: "A condition every lead in scope must meet." },
);
export type Rule = Static<typeof Rule>;

const hours = t.String({
  minLength: 1,
  description: 'Open hours "HH:MM-HH:MM", several separated by commas; a range whose end is not after its start runs past midnight.',
});

export const Schedule = t.Object(
  {
    name,
    ...scope,
    time_zone: timeZone,
    open: t.Object(Object.fromEntries(WEEKDAYS.map((day) => [day, t.Optional(hours)])) as Record<Weekday, TOptional<typeof hours>>, {
      additionalProperties: false,
      description: "Open hours by weekday (mon…sun); a day absent is closed.",
    }),
    reason: reason("Outside hours of operation: <name>"),
  },
  { additionalProperties: false, description: "When leads in scope are taken." },
);
export type Schedule = Static<typeof Schedule>;

export const Cap = t.Object(
  {
    name,
    ...scope,
    counts: oneOf(COUNTS, "leads: postLeads answered 200; pings: prePings answered 200."),
    max: t.Integer({ minimum: 0, description: "How many per window." }),
    per: oneOf(PERIODS, "The calendar window in time_zone: minute, hour, day, week (from Monday) or month."),
    time_zone: timeZone,
    each: t.Optional(oneOf(EACH, "Count each vendor or each campaign separately; absent counts all in scope together.")),
    reason: reason("Cap reached: <name>"),
  },
  { additionalProperties: false, description: "At most max requests in scope per calendar window." },
);
export type Cap = Static<typeof Cap>;

export const Check = t.Object(
  {
    name,
    stage: t.Optional(oneOf(STAGES, "When the check runs. Default intake.")),
    ...scope,
    url: t.String({ minLength: 1, description: "An http(s) URL the service POSTs the check to." }),
    send: t.Optional(t.Array(t.String({ minLength: 1 }), { description: "Lead fields sent in the request's fields." })),
    timeout_ms: t.Optional(t.Integer({ minimum: 1, maximum: 60000, description: "How long to wait for an answer." })),
    cache: t.Optional(t.String({ pattern: "^[0-9]+[smhd]$", description: 'How long an answer is kept per phone number, e.g. "7d". Default none.' })),
    on_error: t.Optional(oneOf(ON_ERROR, "What an error decides. Default accept.")),
  },
  { additionalProperties: false, description: "An external check (docs/contract.md §11); accepted and validated, not yet run." },
);
export type Check = Static<typeof Check>;

export const PolicyDocument = t.Object(
  {
    rules: t.Optional(t.Array(Rule, { description: "Conditions leads must meet, in order." })),
    schedules: t.Optional(t.Array(Schedule, { description: "Hours of operation." })),
    caps: t.Optional(t.Array(Cap, { description: "Volume limits." })),
    checks: t.Optional(t.Array(Check, { description: "External checks." })),
  },
  { additionalProperties: false, title: "Acceptance policy", description: "The operator's acceptance policy (docs/policy.md)." },
);
/** A document that passed checkPolicyDocument. */
export type Policy = Static<typeof PolicyDocument>;

/** The schemas a recursive reference may name (TypeBox's This). */
export const REFERENCES: ReadonlyMap<string, TSchema> = new Map([["PolicyCondition", Condition]]);
