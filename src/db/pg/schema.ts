// The PostgreSQL schema: the same tables, columns and row types as the SQLite schema (../schema.ts,
// which documents each column; test/db/pg/schema-parity.test.ts checks the row types agree), so
// one domain code reads and writes both. Times are integer milliseconds since the epoch (UTC) in
// bigint columns read as numbers; JSON is kept as text, as on SQLite (Bun SQL's driver stores a
// jsonb value as a JSON string: drizzle-orm issues 4942, 4385). One table is PostgreSQL's alone
// (phone_claims, below). SQLite's rowid keys (leads.id_key, callbacks.lead_key) are ordinary
// bigint primary keys here: PostgreSQL has no rowid, and a B-tree primary key serves the lookups.
import { sql, type SQL } from "drizzle-orm";
import { bigint, bigserial, boolean, index, integer, pgTable, primaryKey, text, type AnyPgColumn } from "drizzle-orm/pg-core";
import { CALLBACK_STATUSES, LEAD_STATUSES } from "../schema.ts";

/** A time in integer ms since the epoch. */
const millis = (name: string) => bigint(name, { mode: "number" });

export const vendors = pgTable("vendors", {
  id: text("id").primaryKey(),
  name: text("name").notNull().unique(),
  passwordHash: text("password_hash").notNull(),
  signingSecret: text("signing_secret").notNull(),
  previousSigningSecret: text("previous_signing_secret"),
  previousSecretUntil: millis("previous_secret_until"),
  enabled: boolean("enabled").notNull().default(true),
  createdAt: millis("created_at").notNull(),
  updatedAt: millis("updated_at").notNull(),
});

/** An E.164 number's digits as a bigint, in SQL: the leads_phone index's key (phoneClaimKey in JS). */
export const phoneKeyOf = (phoneE164: AnyPgColumn): SQL => sql`CAST(${phoneE164} AS bigint)`;

export const leads = pgTable(
  "leads",
  {
    idKey: bigint("id_key", { mode: "bigint" }).primaryKey(),
    id: text("id").notNull(),
    vendorId: text("vendor_id")
      .notNull()
      .references(() => vendors.id),
    phoneE164: text("phone_e164").notNull(),
    customerName: text("customer_name").notNull(),
    state: text("state").notNull(),
    city: text("city").notNull(),
    zip: text("zip").notNull(),
    street: text("street").notNull(),
    certificateUrl: text("certificate_url"),
    dmName: text("dm_name").notNull(),
    utility: text("utility").notNull(),
    callBackUrl: text("call_back_url"),
    mailingStreet: text("mailing_street").notNull(),
    mailingCity: text("mailing_city").notNull(),
    mailingZip: text("mailing_zip").notNull(),
    mailingState: text("mailing_state").notNull(),
    vendorCampaignName: text("vendor_campaign_name").notNull(),
    /** ../schema.ts: PostgreSQL's lower() folds by the database's locale, not as the policy does. */
    campaignFolded: text("campaign_folded"),
    email: text("email").notNull(),
    extraData: text("extra_data"),
    rawRequest: text("raw_request").notNull(),
    /** The answers of the intake checks that let it in (docs/contract.md §11), JSON `{ <check name>: { outcome, reason } }`; null when none ran. Facts for final rules. */
    checkAnswers: text("check_answers"),
    status: text("status", { enum: LEAD_STATUSES }).notNull().default("pending"),
    createdAt: millis("created_at").notNull(),
    decideAfter: millis("decide_after").notNull(),
    decidedAt: millis("decided_at"),
    rejectionReason: text("rejection_reason"),
    operatorDecision: text("operator_decision", { enum: ["accept", "reject"] }),
    operatorReason: text("operator_reason"),
    lockedUntil: millis("locked_until"),
    claimToken: text("claim_token"),
    /** Bumped by every change of what its decision reads (store/leads/index.ts DecisionFacts). */
    factsVersion: integer("facts_version").notNull().default(0),
    /** A test lead (../schema.ts). */
    test: boolean("test").notNull().default(false),
  },
  (t) => [
    index("leads_status_decide_after").on(t.status, t.decideAfter),
    // A vendor's leads newest first (the portal's Leads, the console's search by vendor) as a walk,
    // and its leads since a time (the portal's overview) as a range: the key is the creation time.
    index("leads_vendor_key").on(t.vendorId, t.idKey),
    // The console's searches by phone and campaign (../schema.ts says why and what they cost).
    index("leads_phone").on(phoneKeyOf(t.phoneE164)),
    index("leads_campaign").on(t.vendorCampaignName, t.idKey),
  ],
);

/**
 * PostgreSQL's alone: one row per phone number that blocks new leads, or did: the latest lead
 * accepted for it, at its intake (store/phone-claims/index.ts). A new lead claims the number with
 * one conditional upsert, so concurrent transactions of several instances are resolved by the
 * unique key (exactly one wins). SQLite has one writer at a time: there the number's latest lead
 * is its claim, and this table, a second random B-tree written per lead, is gone (docs/architecture.md).
 */
export const phoneClaims = pgTable("phone_claims", {
  /** The E.164 number's digits as an integer (phoneClaimKey). */
  phoneNumber: bigint("phone_number", { mode: "number" }).primaryKey(),
  leadId: text("lead_id").notNull(),
  claimedAt: millis("claimed_at").notNull(),
});

export const suppressions = pgTable("suppressions", {
  phoneE164: text("phone_e164").primaryKey(),
  reason: text("reason"),
  createdAt: millis("created_at").notNull(),
});

export const idempotencyKeys = pgTable(
  "idempotency_keys",
  {
    vendorId: text("vendor_id").notNull(),
    key: text("key").notNull(),
    requestHash: text("request_hash").notNull(),
    leadId: text("lead_id").notNull(),
    createdAt: millis("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.vendorId, t.key] }), index("idempotency_created").on(t.createdAt)],
);

export const callbacks = pgTable(
  "callbacks",
  {
    id: text("id").notNull(),
    leadKey: bigint("lead_key", { mode: "bigint" }).primaryKey(),
    leadId: text("lead_id").notNull(),
    vendorId: text("vendor_id").notNull(),
    url: text("url").notNull(),
    status: text("status", { enum: CALLBACK_STATUSES }).notNull(),
    payload: text("payload"),
    attemptCount: integer("attempt_count").notNull().default(0),
    attemptsBeforeReplay: integer("attempts_before_replay").notNull().default(0),
    nextAttemptAt: millis("next_attempt_at"),
    lockedUntil: millis("locked_until"),
    claimToken: text("claim_token"),
    lastError: text("last_error"),
    createdAt: millis("created_at").notNull(),
    updatedAt: millis("updated_at").notNull(),
    deliveredAt: millis("delivered_at"),
    discardedAt: millis("discarded_at"),
  },
  (t) => [
    index("callbacks_due").on(t.nextAttemptAt).where(sql`${t.status} = 'pending'`),
    index("callbacks_dead").on(t.updatedAt).where(sql`${t.status} = 'dead'`),
    // A vendor's delivered callbacks newest first (the portal's Callbacks and overview): a callback
    // enters it once, when delivered, never at intake.
    index("callbacks_vendor_delivered").on(t.vendorId, t.leadKey).where(sql`${t.status} = 'delivered'`),
    index("callbacks_dead_waiting").on(t.updatedAt).where(sql`${t.status} = 'dead' AND ${t.discardedAt} IS NULL`),
  ],
);

export const pausedEndpoints = pgTable("paused_endpoints", {
  endpoint: text("endpoint").primaryKey(),
  vendorId: text("vendor_id").notNull(),
  target: text("target").notNull(),
  failures: integer("failures").notNull(),
  lastError: text("last_error"),
  pausedAt: millis("paused_at").notNull(),
  pausedUntil: millis("paused_until").notNull(),
});

export const callbackAttempts = pgTable(
  "callback_attempts",
  {
    // bigserial: SQLite's INTEGER key is 64-bit too, and attempts accumulate over the years.
    id: bigserial("id", { mode: "number" }).primaryKey(),
    callbackId: text("callback_id").notNull(),
    attemptNo: integer("attempt_no").notNull(),
    startedAt: millis("started_at").notNull(),
    durationMs: integer("duration_ms").notNull(),
    statusCode: integer("status_code"),
    error: text("error"),
    responseExcerpt: text("response_excerpt"),
  },
  (t) => [index("callback_attempts_callback").on(t.callbackId)],
);

export const operators = pgTable("operators", {
  id: text("id").primaryKey(),
  name: text("name").notNull().unique(),
  passwordHash: text("password_hash").notNull(),
  enabled: boolean("enabled").notNull().default(true),
  createdAt: millis("created_at").notNull(),
  updatedAt: millis("updated_at").notNull(),
});

export const operatorSessions = pgTable(
  "operator_sessions",
  {
    tokenHash: text("token_hash").primaryKey(),
    operatorId: text("operator_id").notNull(),
    csrfToken: text("csrf_token").notNull(),
    createdAt: millis("created_at").notNull(),
    expiresAt: millis("expires_at").notNull(),
  },
  (t) => [index("operator_sessions_expires").on(t.expiresAt)],
);

export const auditLog = pgTable(
  "audit_log",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    at: millis("at").notNull(),
    actor: text("actor").notNull(),
    action: text("action").notNull(),
    subject: text("subject").notNull(),
    detail: text("detail"),
  },
  (t) => [index("audit_log_at").on(t.at)],
);

export const outcomeCounts = pgTable(
  "outcome_counts",
  {
    bucketMs: integer("bucket_ms").notNull(),
    bucketAt: millis("bucket_at").notNull(),
    vendorId: text("vendor_id").notNull(),
    kind: text("kind").notNull(),
    count: bigint("count", { mode: "number" }).notNull(),
    totalMs: bigint("total_ms", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.bucketMs, t.bucketAt, t.vendorId, t.kind] })],
);

export const policy = pgTable("policy", {
  id: integer("id").primaryKey(),
  version: bigint("version", { mode: "number" }).notNull(),
  document: text("document").notNull(),
  updatedAt: millis("updated_at").notNull(),
  updatedBy: text("updated_by").notNull(),
});
export { refusals } from "./refusals-schema.ts";
export { capUsage } from "./cap-usage-schema.ts";
export { leadFindings } from "./findings-schema.ts";
export { secrets } from "./secrets-schema.ts";
export { portalSessions } from "./portal-schema.ts";
