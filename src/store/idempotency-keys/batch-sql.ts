// The idempotency keys' rule as SQL text, for the batched intake (store/batches/pg-intake.ts): the
// same take-over as the per-lead save (pg.ts, built with drizzle there), on a JSON set of keys.

/** A key saved for the same vendor and key is live (not yet expired by `expiredBy`): the save must not take it over. */
export const liveKey = (saved: string, key: string, expiredBy: string) =>
  `${saved}.vendor_id = ${key}."vendorId" AND ${saved}.key = ${key}.key AND ${saved}.created_at > ${expiredBy}`;

/** The save's conflict clause (IdempotencyKeysTable.save): an expired key is replaced, a live one kept. */
export const keyTakeover = (expiredBy: string) => `
  ON CONFLICT (vendor_id, key) DO UPDATE SET request_hash = excluded.request_hash, lead_id = excluded.lead_id, created_at = excluded.created_at
  WHERE idempotency_keys.created_at <= ${expiredBy}`;
