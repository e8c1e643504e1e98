// The worker's decisions on SQLite, set-based as on PostgreSQL (pg-worker.ts): a claimed batch of
// due leads is read with one statement (the suppression list joined in) and recorded in one write
// of three statements (the leads finished, their callbacks released, the rejected ones' phone claims
// dropped), instead of a read and a write script of their own per lead. The per-lead path cost a
// promise, a group-commit item and seven statements per lead; bench/README.md has the figures.
// SQLite cannot write from a CTE, so the statements after the first take the leads it finished.
//
// The due leads are read, not leased (job.ts readDue): SQLite has one writer, so one process
// decides, and its decision loop runs one pass at a time. A lease was a write of every due lead's
// row answered after an fsync, a large share of the server's CPU (bench/README.md); what it
// guarded against, a second worker deciding the lead meanwhile, is ruled out by
// the status the decision is fenced by: a lead is finished once, whoever reads it.
import type { Database } from "bun:sqlite";
import { BACKGROUND, type GroupCommitter } from "../db/group-commit.ts";
import type { DecisionBatches } from "../final-results/job.ts";
import type { DueLead } from "../store/leads/index.ts";
import { checksOfRow, decisionRow, leadKeysJson, type CheckRow } from "./decision-rows.ts";
import type { WorkerBatches } from "./pg-worker.ts";

/** The leads whose hold ended by ?1, oldest first, ?2 at most: LeadsTable.claimDue without the lease. */
const DUE = `
  SELECT id, vendor_id AS vendorId, phone_e164 AS phoneE164, certificate_url AS certificateUrl, vendor_campaign_name AS vendorCampaignName
  FROM leads WHERE status = 'pending' AND decide_after <= ?1 ORDER BY decide_after LIMIT ?2`;

/** The leads' checks (record.ts checksNow) in one statement; ?1 is leadKeysJson. */
const CHECKS_OF = `
  SELECT l.id, l.operator_decision, l.operator_reason, EXISTS (SELECT 1 FROM suppressions s WHERE s.phone_e164 = l.phone_e164) AS suppressed
  FROM json_each(?1) AS j JOIN leads l ON l.id_key = CAST(j.value ->> '$.key' AS INTEGER) AND l.id = j.value ->> '$.id'`;

/**
 * record.ts recordIfStill for a batch: each lead is finished only if it is still pending and its
 * checks are still those it was decided on (an operator's decision or a suppression committed
 * since the read makes it fall out, to be decided again by the next pass). ?1 is the decisionRow
 * array, ?2 now. Any lease left on a row (by LeadsTable.claimDue) is cleared.
 * `+l.status`: without it the planner walked every pending lead by the status index and searched the
 * batch for each, instead of looking each of the batch's leads up by its key.
 */
const FINISH = `
  UPDATE leads AS l SET status = d.status, decided_at = ?2, rejection_reason = d.reason, locked_until = NULL, claim_token = NULL
  FROM (
    SELECT CAST(value ->> '$.key' AS INTEGER) AS key, value ->> '$.id' AS id, value ->> '$.status' AS status, value ->> '$.reason' AS reason,
           value ->> '$.suppressed' AS suppressed, value ->> '$.operatorDecision' AS operator_decision, value ->> '$.operatorReason' AS operator_reason
    FROM json_each(?1)
  ) AS d
  WHERE l.id_key = d.key AND l.id = d.id AND +l.status = 'pending'
    AND l.operator_decision IS d.operator_decision AND l.operator_reason IS d.operator_reason
    AND EXISTS (SELECT 1 FROM suppressions s WHERE s.phone_e164 = l.phone_e164) = d.suppressed
  RETURNING id`;

/** The finished leads' callbacks released for delivery with their payloads; ?1 the finished decisionRows, ?2 now. */
const RELEASE = `
  UPDATE callbacks AS c SET status = 'pending', payload = r.payload, next_attempt_at = ?2, updated_at = ?2
  FROM (SELECT CAST(value ->> '$.key' AS INTEGER) AS key, value ->> '$.payload' AS payload FROM json_each(?1)) AS r
  WHERE c.lead_key = r.key AND c.status = 'held'`;

/**
 * A rejected lead does not block its number (an accepted one's claim stands: phone-claims/index.ts).
 * ?1: the rejected leads' numbers and ids; a number as a phone_claims key (schema.ts phoneClaimKey).
 */
const DROP = `
  DELETE FROM phone_claims WHERE rowid IN (
    SELECT p.rowid FROM (SELECT CAST(substr(value ->> '$.phone', 2) AS INTEGER) AS phone, value ->> '$.id' AS id FROM json_each(?1)) AS r
    JOIN phone_claims p ON p.phone_number = r.phone AND p.lead_id = r.id
  )`;

/** The worker's batches on SQLite: decisions (attempts are batched by group commit already). */
export function sqliteWorkerBatches(sqlite: Database, commit: GroupCommitter): WorkerBatches {
  const checksOf = sqlite.prepare<CheckRow, [string]>(CHECKS_OF);
  const due = sqlite.prepare<DueLead, [number, number]>(DUE);
  const finish = sqlite.prepare<{ id: string }, [string, number]>(FINISH);
  const release = sqlite.prepare<unknown, [string, number]>(RELEASE);
  const drop = sqlite.prepare<unknown, [string]>(DROP);

  const decisions: DecisionBatches = {
    readDue: async (now, limit) => commit.read(() => due.all(now, limit)),
    async checksOf(leads) {
      const rows = commit.read(() => checksOf.all(leadKeysJson(leads)));
      return new Map(rows.map((row) => [row.id, checksOfRow(row)]));
    },
    record(decided, _token, now) {
      const rows = decided.map(decisionRow);
      return commit.run(() => {
        const finished = new Set(finish.all(JSON.stringify(rows), now).map((row) => row.id));
        const released = rows.filter((row) => finished.has(row.id));
        release.run(JSON.stringify(released), now);
        // Most leads are accepted: the statement runs only for a batch with rejected ones.
        const rejected = released.filter((row) => row.status === "rejected").map(({ phone, id }) => ({ phone, id }));
        if (rejected.length > 0) drop.run(JSON.stringify(rejected));
        return finished;
      }, BACKGROUND);
    },
  };
  return { decisions };
}
