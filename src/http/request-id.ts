// The request id (X-Request-Id): the caller's own when it sends a sane one, so a vendor's or a
// proxy's id finds our log line; otherwise one of ours. Sent back on every answer and logged.

export const REQUEST_ID_HEADER = "X-Request-Id";

/** What an incoming id may be: short, and only characters that need no escaping in a log or header. */
export const REQUEST_ID_RULE = { maxLength: 128, pattern: "^[A-Za-z0-9._:+=/-]{1,128}$" } as const;

const SANE_ID = new RegExp(REQUEST_ID_RULE.pattern);

/** A new id: a UUIDv7 in base64url (22 characters, ordered by time). */
export const newRequestId = () => Bun.randomUUIDv7("base64url");

/** The request's own id when sane; else a new one. */
export function requestIdOf(request: Request): string {
  const sent = request.headers.get(REQUEST_ID_HEADER);
  return sent !== null && SANE_ID.test(sent) ? sent : newRequestId();
}
