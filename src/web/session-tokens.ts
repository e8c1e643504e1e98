// The tokens of the sites' sessions (console, portal): a random token in an HttpOnly, SameSite=Strict
// cookie (Secure under TLS), of which the database keeps only the SHA-256, and a CSRF token per
// session that every form sends back.
import { timingSafeEqual } from "node:crypto";

export const randomToken = () => Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
export const tokenHash = (token: string) => new Bun.CryptoHasher("sha256").update(token).digest("hex");

/** The Set-Cookie value of a session cookie at `path`; a max age of 0 removes the cookie. */
export function sessionCookie(name: string, token: string, maxAgeMs: number, secure: boolean, path = "/"): string {
  return `${name}=${token}; Path=${path}; Max-Age=${Math.floor(maxAgeMs / 1000)}; HttpOnly; SameSite=Strict${secure ? "; Secure" : ""}`;
}

/** Whether the token a form sent is the session's (compared in constant time). */
export function csrfHolds(session: { csrfToken: string }, sent: unknown): boolean {
  if (typeof sent !== "string") return false;
  const [expected, given] = [Buffer.from(session.csrfToken), Buffer.from(sent)];
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** A cookie's value in a Cookie header. */
export function cookieValue(header: string | null, name: string): string | undefined {
  for (const part of header?.split(";") ?? []) {
    const at = part.indexOf("=");
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}
