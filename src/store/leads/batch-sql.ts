// The leads' statements of the set-based decision (store/batches/): the due leads, their facts, and
// the decided ones finished. A statement fetches facts or writes an outcome; it decides nothing
// (final-results/decide.ts does). Raw SQL: drizzle builds no UPDATE … FROM over a JSON array.
import { leads } from "../../db/schema.ts";
import { leadFieldColumns } from "../rows.ts";
import { listedSql } from "../suppressions/listed.ts";
import type { LeadFields } from "./index.ts";

/** The facts a decision reads (DecisionFacts), as columns of the lead `l`. */
const FACT_COLUMNS = `l.id, l.operator_decision, l.operator_reason, ${listedSql("l.phone_e164")} AS suppressed, l.facts_version`;

/**
 * What final rules read besides (docs/contract.md §10): the vendor's name and the lead's stored
 * fields under their LeadFields keys (the same column names on both databases). Read only while
 * the policy in force has final rules, so a decision without them reads nothing more.
 */
const FIELD_COLUMNS = `v.name AS vendor_name, ${Object.entries(leadFieldColumns(leads))
  .map(([key, column]) => `l.${column.name} AS "${key}"`)
  .join(", ")}`;
const FIELDS_JOIN = "JOIN vendors v ON v.id = l.vendor_id";

/** A row of the facts statements (DecisionFacts as the database answers it); the fields' columns only from `factsWithFieldsOf`. */
export type FactsRow = FactsColumns & Partial<LeadFields> & { vendor_name?: string };

interface FactsColumns {
  id: string;
  operator_decision: "accept" | "reject" | null;
  operator_reason: string | null;
  /** A boolean on PostgreSQL, 0 or 1 on SQLite. */
  suppressed: boolean | number;
  facts_version: number;
}

export const SQLITE = {
  /** The leads whose hold ended by ?1, oldest first, ?2 at most: LeadsTable.claimDue without the lease. */
  due: `
    SELECT id, vendor_id AS vendorId, phone_e164 AS phoneE164, certificate_url AS certificateUrl, vendor_campaign_name AS vendorCampaignName, test
    FROM leads WHERE status = 'pending' AND decide_after <= ?1 ORDER BY decide_after LIMIT ?2`,
  /** The facts of the leads of ?1 (a JSON array of { key, id }). */
  factsOf: `
    SELECT ${FACT_COLUMNS}
    FROM json_each(?1) AS j JOIN leads l ON l.id_key = CAST(j.value ->> '$.key' AS INTEGER) AND l.id = j.value ->> '$.id'`,
  /** factsOf, with what final rules read. */
  factsWithFieldsOf: `
    SELECT ${FACT_COLUMNS}, ${FIELD_COLUMNS}
    FROM json_each(?1) AS j JOIN leads l ON l.id_key = CAST(j.value ->> '$.key' AS INTEGER) AND l.id = j.value ->> '$.id' ${FIELDS_JOIN}`,
  /**
   * Finishes each lead of ?1 (decision rows) still pending at the facts version it was decided on;
   * ?2 is now. Any lease left on a row (by LeadsTable.claimDue) is cleared. `+l.status`: without it
   * the planner walked every pending lead by the status index and searched the batch for each,
   * instead of looking each of the batch's leads up by its key.
   */
  finish: `
    UPDATE leads AS l SET status = d.status, decided_at = ?2, rejection_reason = d.reason, locked_until = NULL, claim_token = NULL
    FROM (
      SELECT CAST(value ->> '$.key' AS INTEGER) AS key, value ->> '$.id' AS id, value ->> '$.status' AS status, value ->> '$.reason' AS reason,
             value ->> '$.factsVersion' AS facts_version
      FROM json_each(?1)
    ) AS d
    WHERE l.id_key = d.key AND l.id = d.id AND +l.status = 'pending' AND l.facts_version = d.facts_version
    RETURNING id`,
};

export const PG = {
  /** The facts of the leads of $1 (a JSON array of { key, id }). */
  factsOf: `
    SELECT ${FACT_COLUMNS}
    FROM json_to_recordset($1::text::json) AS r(key bigint, id text) JOIN leads l ON l.id_key = r.key AND l.id = r.id`,
  /** factsOf, with what final rules read. */
  factsWithFieldsOf: `
    SELECT ${FACT_COLUMNS}, ${FIELD_COLUMNS}
    FROM json_to_recordset($1::text::json) AS r(key bigint, id text) JOIN leads l ON l.id_key = r.key AND l.id = r.id ${FIELDS_JOIN}`,
  /** The decision rows of $1, as the relation `d` the statements below read. */
  decisions: `SELECT * FROM json_to_recordset($1::text::json)
    AS r(key bigint, id text, phone text, status text, reason text, payload text, "factsVersion" int,
          "findingKind" text, "findingName" text, "findingOutcome" text, "findingReason" text)`,
  /**
   * Finishes each lead of `d` that lease token $2 still holds, pending, at the facts version it was
   * decided on; $3 is now. The UPDATE's row lock orders it after an operator's decision or a
   * suppression committing meanwhile (both write the row), whose new version it then sees.
   */
  finish: `
    UPDATE leads l SET status = d.status, decided_at = $3, rejection_reason = d.reason, locked_until = NULL, claim_token = NULL
    FROM d
    WHERE l.id_key = d.key AND l.id = d.id AND l.claim_token = $2 AND l.status = 'pending' AND l.facts_version = d."factsVersion"
    RETURNING d.key, d.id, d.phone, d.status, d.payload`,
};
