// "Is the number suppressed", as SQL: the one text every statement that asks it embeds (the phone
// claim, prePing's batch, the batched intake, the decision's facts). Standard SQL, so both
// dialects take the same text; `phone` is an expression giving an E.164 text.
export const listedSql = (phone: string): string => `EXISTS (SELECT 1 FROM suppressions s WHERE s.phone_e164 = ${phone})`;
