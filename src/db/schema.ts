// The database schema. Times are integer milliseconds since the epoch (UTC).
import { sql, type SQL } from "drizzle-orm";
import { customType, sqliteTable, text, integer, index, primaryKey, type AnySQLiteColumn } from "drizzle-orm/sqlite-core";

/** A 64-bit INTEGER column held as a bigint: a lead's key does not fit a JS number. */
const int64 = customType<{ data: bigint; driverData: bigint }>({ dataType: () => "integer" });

/** Times are stored in columns named *_at, *_after or *_until (how operators' views find them). */
export const TIME_COLUMN = /_(at|after|until)$/;

export const vendors = sqliteTable("vendors", {
  id: text("id").primaryKey(),
  /** The Basic-auth username. */
  name: text("name").notNull().unique(),
  /** Argon2id hash from Bun.password; the password itself is never stored. */
  passwordHash: text("password_hash").notNull(),
  /** Standard Webhooks secret (`whsec_<base64>`) used to sign this vendor's callbacks. */
  signingSecret: text("signing_secret").notNull(),
  /**
   * The secret a rotation replaced, which still signs beside the new one until previous_secret_until
   * (callbacks/signing-secrets.ts); both null when no rotation is or was overlapping.
   */
  previousSigningSecret: text("previous_signing_secret"),
  previousSecretUntil: integer("previous_secret_until"),
  enabled: integer("enabled", { mode: "boolean" }).notNull().default(true),
  createdAt: integer("created_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
});

export const LEAD_STATUSES = ["pending", "accepted", "rejected"] as const;
export type LeadStatus = (typeof LEAD_STATUSES)[number];

/**
 * An E.164 number's digits as an integer, in SQL: the leads_phone index's key (phoneClaimKey in
 * JS; the cast reads past the leading +). No comma in it: drizzle-kit splits SQLite index
 * expressions at commas.
 */
export const phoneKeyOf = (phoneE164: AnySQLiteColumn): SQL => sql`CAST(${phoneE164} AS INTEGER)`;

export const leads = sqliteTable(
  "leads",
  {
    /**
     * The rowid: the first 64 bits of the lead's UUIDv7 id (leadKey), so a lead is found by its id
     * without an index of text ids. Such an index, with the callback queue's, cost every accepted
     * lead two more B-trees whose last leaf SQLite rebalances on almost every commit (only rowid
     * tables have a quick path for appends). Without them intake took more leads per second for
     * less CPU (bench/README.md, "Behind the code").
     */
    idKey: int64("id_key").primaryKey(),
    /** The lead_id vendors see. Always compared too: a key alone could match another UUID. */
    id: text("id").notNull(),
    vendorId: text("vendor_id")
      .notNull()
      .references(() => vendors.id),
    /** E.164 form, `+1NXXNXXXXXX`; the key for eligibility. */
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
    /**
     * vendor_campaign_name folded as the policy's scopes are (contract/campaigns.ts), written at
     * intake: the final checks' scope filter compares it exactly (store/findings/sql.ts), where
     * SQLite's lower() folds ASCII alone. Every lead stored since has it; of the leads stored before
     * it existed, those then pending have SQL's lower() (drizzle/0023), the decided ones none.
     */
    campaignFolded: text("campaign_folded"),
    email: text("email").notNull(),
    /** extra_data as JSON text, when sent. */
    extraData: text("extra_data"),
    /** The request body exactly as received, unknown fields included. */
    rawRequest: text("raw_request").notNull(),
    /** The answers of the intake checks that let it in (docs/contract.md §11), JSON `{ <check name>: { outcome, reason } }`; null when none ran. Facts for final rules. */
    checkAnswers: text("check_answers"),
    status: text("status", { enum: LEAD_STATUSES }).notNull().default("pending"),
    createdAt: integer("created_at").notNull(),
    /** End of the hold period: the worker decides the final result after this. */
    decideAfter: integer("decide_after").notNull(),
    decidedAt: integer("decided_at"),
    /** Why a lead was rejected after posting (the callback's error text). */
    rejectionReason: text("rejection_reason"),
    /** An operator's decision recorded during the hold. */
    operatorDecision: text("operator_decision", { enum: ["accept", "reject"] }),
    operatorReason: text("operator_reason"),
    /** Decision lease, so a worker whose lease expired cannot overwrite newer state. */
    lockedUntil: integer("locked_until"),
    claimToken: text("claim_token"),
    /** Bumped by every change of what its decision reads (store/leads/index.ts DecisionFacts). */
    factsVersion: integer("facts_version").notNull().default(0),
    /** A test lead (docs/contract.md §12 "Test mode"): it claimed no number, took no cap slot, and business counts leave it out. */
    test: integer("test", { mode: "boolean" }).notNull().default(false),
  },
  (t) => [
    index("leads_status_decide_after").on(t.status, t.decideAfter),
    // A vendor's leads newest first (the portal's Leads, the console's search by vendor) as a walk,
    // and its leads since a time (the portal's overview) as a range: the key is the creation time.
    index("leads_vendor_key").on(t.vendorId, t.idKey),
    // The console's searches (store/leads/search.ts), each a scan of every lead without its index
    // (hundreds of ms against a few: bench/README.md, "Behind the code"). By phone: every lead with
    // the number, rejected ones too, keyed by the number as an integer, smaller than its text; on
    // SQLite it is also the duplicate rule's (the number's latest lead is its claim:
    // store/phone-claims/sqlite.ts). Each index is one more B-tree written per accepted lead.
    index("leads_phone").on(phoneKeyOf(t.phoneE164)),
    index("leads_campaign").on(t.vendorCampaignName, t.idKey),
  ],
);

/**
 * An E.164 number's digits as an integer (+12125550123 → 12125550123): the leads_phone index's key
 * here, and PostgreSQL's `phone_claims` key (db/pg/schema.ts).
 */
export const phoneClaimKey = (phoneE164: string): number => Number(phoneE164.slice(1));

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The key of a lead (`leads.id_key`, `callbacks.lead_key`) for its id: the UUIDv7's first 64 bits,
 * its millisecond timestamp and the 12-bit counter Bun.randomUUIDv7 keeps within a millisecond, as
 * a signed integer. Unique for the ids one process generates at the current time, and growing
 * with them, so new leads are appended (ids made for a given past time, as the benchmark's seeding
 * does, are unique only one millisecond apart). Anything not shaped like a UUID gets 0, which no
 * stored lead has; a lookup compares the id too, since a key alone could also match another UUID.
 */
export function leadKey(id: string): bigint {
  if (!UUID.test(id)) return 0n;
  return BigInt.asIntN(64, BigInt(`0x${id.slice(0, 8)}${id.slice(9, 13)}${id.slice(14, 18)}`));
}

/** The millisecond a lead's UUIDv7 id was made, at its intake (the id's first 48 bits). */
export const leadCreatedAt = (id: string): number => Number(leadKey(id) >> 16n);

/** The operator-managed do-not-contact list. */
export const suppressions = sqliteTable("suppressions", {
  phoneE164: text("phone_e164").primaryKey(),
  reason: text("reason"),
  createdAt: integer("created_at").notNull(),
});

export const idempotencyKeys = sqliteTable(
  "idempotency_keys",
  {
    vendorId: text("vendor_id").notNull(),
    key: text("key").notNull(),
    /** SHA-256 of the request body, to tell a retry from a different request. */
    requestHash: text("request_hash").notNull(),
    leadId: text("lead_id").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.vendorId, t.key] }), index("idempotency_created").on(t.createdAt)],
);

export const CALLBACK_STATUSES = ["held", "pending", "delivered", "dead"] as const;
export type CallbackStatus = (typeof CALLBACK_STATUSES)[number];

/**
 * The callback queue. A row is written with its lead (status `held`) and becomes `pending`
 * when the final result is decided; the worker delivers it to `delivered` or `dead`.
 * Keyed by its lead's key (one callback per lead), and only `pending` rows are in the due index:
 * an accepted lead's row touches one B-tree, the table itself. Finding a callback by its `id`
 * scans, which only the operator CLI does, outside any write transaction.
 */
export const callbacks = sqliteTable(
  "callbacks",
  {
    /** Also the Standard Webhooks `webhook-id`, identical on every retry. */
    id: text("id").notNull(),
    /** leadKey(leadId): the lead's own key, so the row is found by its lead like the lead itself. */
    leadKey: int64("lead_key").primaryKey(),
    leadId: text("lead_id").notNull(),
    vendorId: text("vendor_id").notNull(),
    url: text("url").notNull(),
    status: text("status", { enum: CALLBACK_STATUSES }).notNull(),
    /** The JSON body, fixed at decision time so every retry sends the same bytes. */
    payload: text("payload"),
    /** Every attempt made, replays included. */
    attemptCount: integer("attempt_count").notNull().default(0),
    /** attempt_count when an operator last replayed it: the retry schedule counts from here. */
    attemptsBeforeReplay: integer("attempts_before_replay").notNull().default(0),
    nextAttemptAt: integer("next_attempt_at"),
    lockedUntil: integer("locked_until"),
    claimToken: text("claim_token"),
    lastError: text("last_error"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    deliveredAt: integer("delivered_at"),
    /** When an operator discarded (acknowledged) this dead callback: no longer waiting for them. A replay clears it. */
    discardedAt: integer("discarded_at"),
  },
  (t) => [
    index("callbacks_due").on(t.nextAttemptAt).where(sql`${t.status} = 'pending'`),
    // For the operator's replay of dead callbacks; only dead rows enter it, never intake's.
    index("callbacks_dead").on(t.updatedAt).where(sql`${t.status} = 'dead'`),
    // A vendor's delivered callbacks newest first (the portal's Callbacks and overview): a callback
    // enters it once, when delivered, never at intake.
    index("callbacks_vendor_delivered").on(t.vendorId, t.leadKey).where(sql`${t.status} = 'delivered'`),
    // The dead ones still waiting for an operator: what /metrics counts at every scrape.
    index("callbacks_dead_waiting").on(t.updatedAt).where(sql`${t.status} = 'dead' AND ${t.discardedAt} IS NULL`),
  ],
);

/**
 * Callback endpoints whose circuit is open (callbacks/endpoints.ts), for the CLI and console, which
 * do not share the worker's memory: upserted when a circuit opens, deleted when it closes; never per delivery.
 */
export const pausedEndpoints = sqliteTable("paused_endpoints", {
  /** The circuit's key: vendor id, origin and path pattern (endpointOf). */
  endpoint: text("endpoint").primaryKey(),
  vendorId: text("vendor_id").notNull(),
  target: text("target").notNull(),
  /** Failed attempts in a row (of different callbacks) that opened it. */
  failures: integer("failures").notNull(),
  lastError: text("last_error"),
  pausedAt: integer("paused_at").notNull(),
  /** No attempt to it before this time; then one probe. */
  pausedUntil: integer("paused_until").notNull(),
});

export const callbackAttempts = sqliteTable(
  "callback_attempts",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    callbackId: text("callback_id").notNull(),
    attemptNo: integer("attempt_no").notNull(),
    startedAt: integer("started_at").notNull(),
    durationMs: integer("duration_ms").notNull(),
    statusCode: integer("status_code"),
    error: text("error"),
    /** The first 1 KiB of the receiver's answer. */
    responseExcerpt: text("response_excerpt"),
  },
  (t) => [index("callback_attempts_callback").on(t.callbackId)],
);

/**
 * Pre-aggregated counts for the console's Overview and Vendors pages: how many answers, decisions
 * and callback attempts of each kind a vendor had in a time bucket, and their summed milliseconds
 * (intake to decision, attempt duration). Each instance adds its own counts every few seconds in
 * one upsert (src/stats/tally.ts), so a chart reads a bounded number of rows whatever the volume
 * of leads. `bucket_ms` is the resolution (1 min, 15 min, 1 h): every count is added at each.
 */
export const outcomeCounts = sqliteTable(
  "outcome_counts",
  {
    bucketMs: integer("bucket_ms").notNull(),
    /** The bucket's first millisecond. */
    bucketAt: integer("bucket_at").notNull(),
    /** Empty where no vendor is known (a 401) or none is kept (callback attempts). */
    vendorId: text("vendor_id").notNull(),
    kind: text("kind").notNull(),
    count: integer("count").notNull(),
    totalMs: integer("total_ms").notNull(),
  },
  (t) => [primaryKey({ columns: [t.bucketMs, t.bucketAt, t.vendorId, t.kind] })],
);

export { auditLog, operatorSessions, operators } from "./console-schema.ts";
export { policy } from "./policy-schema.ts";
export { refusals } from "./refusals-schema.ts";
export { capUsage } from "./cap-usage-schema.ts";
export { leadFindings } from "./findings-schema.ts";
export { secrets } from "./secrets-schema.ts";
export { portalSessions } from "./portal-schema.ts";
