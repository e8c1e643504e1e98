// The callbacks' statements of the worker's batches (store/batches/): the decided leads' callbacks
// released (CallbacksTable.release, set-based), and on PostgreSQL a turn's attempts recorded
// (CallbacksTable.recordAttempt, set-based). Raw SQL: drizzle builds no UPDATE … FROM over a JSON array.

export const SQLITE = {
  /** The callbacks of ?1 (the finished leads' { key, payload }) released with their payloads; ?2 now. */
  release: `
    UPDATE callbacks AS c SET status = 'pending', payload = r.payload, next_attempt_at = ?2, updated_at = ?2
    FROM (SELECT CAST(value ->> '$.key' AS INTEGER) AS key, value ->> '$.payload' AS payload FROM json_each(?1)) AS r
    WHERE c.lead_key = r.key AND c.status = 'held'`,
};

export const PG = {
  /** The callbacks of the leads of `finished` (key, payload) released; $3 is now. */
  releaseFinished: `
    UPDATE callbacks c SET status = 'pending', payload = f.payload, next_attempt_at = $3, updated_at = $3
    FROM finished f WHERE c.lead_key = f.key AND c.status = 'held'`,
  /**
   * recordAttempt for a batch ($1): every attempt is kept (history), each callback moves on only if
   * its token still holds it. Answers the positions of those that did.
   */
  recordAttempts: `
    WITH a AS (
      SELECT * FROM json_to_recordset($1::text::json)
        AS r(i int, key bigint, "callbackId" text, token text, "startedAt" bigint, "durationMs" int, "statusCode" int, error text, "responseExcerpt" text,
             status text, "nextAt" bigint, "deliveredAt" bigint, now bigint)
    ),
    kept AS (
      INSERT INTO callback_attempts (callback_id, attempt_no, started_at, duration_ms, status_code, error, response_excerpt)
      SELECT a."callbackId", (SELECT count(*) + 1 FROM callback_attempts k WHERE k.callback_id = a."callbackId"), a."startedAt", a."durationMs", a."statusCode", a.error, a."responseExcerpt"
      FROM a
    ),
    moved AS (
      UPDATE callbacks c
      SET status = a.status, next_attempt_at = a."nextAt", delivered_at = a."deliveredAt", last_error = a.error, updated_at = a.now,
          attempt_count = c.attempt_count + 1, locked_until = NULL, claim_token = NULL
      FROM a WHERE c.lead_key = a.key AND c.claim_token = a.token
      RETURNING a.i
    )
    SELECT i FROM moved`,
};
