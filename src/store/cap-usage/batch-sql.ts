// The cap counters' set-based statement fragments (PostgreSQL's batched intake,
// store/batches/pg-intake.ts): the slots of many requests taken together, `used + n` per counter
// while that stays within the max, the rule of the per-request `take` (pg.ts) for n requests. The
// row stays locked until the statement commits, so another instance's batch or request waits, then
// sees the sum. Counters are taken in intake/caps.ts counterOrder (byte order of name and bucket,
// then window), as every writer takes them, so that two transactions never wait on each other.
import type { CapCounter } from "./index.ts";

/** The columns of a slot record (one request's counter) in json_to_recordset's definition list. */
export const SLOT_COLUMNS = `name text, bucket text, "windowStart" bigint, "windowEnd" bigint, max int`;

/** A counter as a slot record's columns (the caller adds its request's own, e.g. its lead's id). */
export const slotRecord = ({ name, bucket, windowStart, windowEnd, max }: CapCounter) => ({ name, bucket, windowStart, windowEnd, max });

/**
 * The CTEs `wanted` (each counter of `slots`, aliased `s`, with its number of slots) and `taken`
 * (the counters that had room for all of theirs, updated). A counter without room is left as it was.
 */
export const slotsTaken = (slots: string) => `wanted AS (
    SELECT s.name, s.bucket, s."windowStart", max(s."windowEnd") AS "windowEnd", min(s.max) AS max, count(*)::int AS n
    FROM ${slots} GROUP BY 1, 2, 3
  ),
  taken AS (
    INSERT INTO cap_usage (cap_name, bucket, window_start, window_end, used)
    SELECT name, bucket, "windowStart", "windowEnd", n FROM wanted WHERE n <= max
    ORDER BY name COLLATE "C", bucket COLLATE "C", "windowStart"
    ON CONFLICT (cap_name, bucket, window_start) DO UPDATE SET used = cap_usage.used + excluded.used
    WHERE cap_usage.used + excluded.used
      <= (SELECT w.max FROM wanted w WHERE w.name = excluded.cap_name AND w.bucket = excluded.bucket AND w."windowStart" = excluded.window_start)
    RETURNING 1
  )`;

const CAPS_SHORT = "a cap has fewer free slots than the requests of the batch in its scope";

/**
 * A condition true when every wanted counter was taken, else failing the statement (so nothing of
 * it stays) with CAPS_SHORT: a failing cast is plain SQL's only way to raise an error. It names a
 * row (`rowText`, a text expression): a constant cast would be folded, and so raised, at planning.
 */
export const everySlotTaken = (rowText: string) =>
  `CASE WHEN (SELECT count(*) FROM taken) = (SELECT count(*) FROM wanted) THEN true ELSE (${rowText} || ': ${CAPS_SHORT}')::boolean END`;

/** Whether a statement failed for CAPS_SHORT (the driver's error names the text the cast could not read). */
export const isCapsShort = (error: unknown): boolean => error instanceof Error && error.message.includes(CAPS_SHORT);
