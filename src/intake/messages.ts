// The fixed texts of intake answers (CONTRACT §5, §6).
export const PHONE_BLOCKED = "Phone number can not be sent to postLead at this time.";
export const PHONE_CAN_BE_SENT = "Phone number can be sent to postLead.";
export const LEAD_RECEIVED = "Lead received; the final result will be sent to the callback URL.";
export const IDEMPOTENCY_CONFLICT = "Idempotency-Key was already used with a different request body";
