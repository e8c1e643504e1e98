// The findings' statement of the set-based decision (store/batches/): the finding a decision records
// with its lead (FindingsTable.settleUnasked, set-based): inserted unless the lead has one of its
// key, so evidence stored during the hold is never overwritten. Raw SQL, as the decision's other
// statements (leads/, callbacks/ batch-sql.ts).

const COLUMNS = "lead_id, kind, name, outcome, reason, detail, raw, attempts, first_at, checked_at, next_at";

export const SQLITE = {
  /** The findings of ?1 (the finished leads' decision rows, those with a `findingKind`) settled unasked at ?2. */
  settleFinished: `
    INSERT INTO lead_findings (${COLUMNS})
    SELECT value ->> '$.id', value ->> '$.findingKind', value ->> '$.findingName', value ->> '$.findingOutcome', value ->> '$.findingReason',
           NULL, NULL, 0, ?2, ?2, ?2
    FROM json_each(?1) WHERE value ->> '$.findingKind' IS NOT NULL
    ON CONFLICT DO NOTHING`,
};

export const PG = {
  /** The findings of the leads of `finished` whose decision row `d` has one, settled unasked at $3. */
  settleFinished: `
    INSERT INTO lead_findings (${COLUMNS})
    SELECT d.id, d."findingKind", d."findingName", d."findingOutcome", d."findingReason", NULL, NULL, 0, $3, $3, $3
    FROM finished f JOIN d ON d.key = f.key AND d.id = f.id WHERE d."findingKind" IS NOT NULL
    ON CONFLICT DO NOTHING`,
};
