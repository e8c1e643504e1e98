// Console sessions: a random token in an HttpOnly, SameSite=Strict cookie (Secure under TLS); the
// database keeps its SHA-256, the operator, a CSRF token for its forms, and when it expires. In the
// database, so every instance sharing it knows every session, and signing out ends it everywhere.
import { op, type Script } from "../db/script.ts";
import type { Store, Tables } from "../store/index.ts";
import type { OperatorSession, SessionOperator } from "../store/operator-sessions/index.ts";
import type { Operator } from "../store/operators/index.ts";
import { cookieValue, randomToken, sessionCookie as cookieOf, tokenHash } from "../web/session-tokens.ts";
import { auditEntry, consoleActor } from "./audit.ts";

export { cookieValue, csrfHolds } from "../web/session-tokens.ts";

export const SESSION_COOKIE = "lead_ingress_console";

/** A request's live session. */
export interface ConsoleSession extends SessionOperator {
  tokenHash: string;
}

/** Starts a session for an operator who just signed in; answers the cookie's token. */
export async function openSession(store: Store, operator: Operator, lifetimeMs: number, now: number): Promise<string> {
  const token = randomToken();
  const session: OperatorSession = {
    tokenHash: tokenHash(token),
    operatorId: operator.id,
    csrfToken: randomToken(),
    createdAt: now,
    expiresAt: now + lifetimeMs,
  };
  await store.write((t) => signIn(t, session, operator.name, now));
  return token;
}

function* signIn(t: Tables, session: OperatorSession, operatorName: string, now: number): Script<void> {
  // Sign-ins are rare: each sweeps the expired sessions, so the table holds only live ones.
  yield* op(t.operatorSessions.purgeExpired(now));
  yield* op(t.operatorSessions.insert(session));
  yield* op(t.audit.append(auditEntry({ actor: consoleActor(operatorName), action: "console.sign-in", subject: operatorName }, now)));
}

/** The request's session if its cookie names a live one (not expired, operator enabled); else null. */
export async function currentSession(store: Store, request: Request, now: number): Promise<ConsoleSession | null> {
  const token = cookieValue(request.headers.get("cookie"), SESSION_COOKIE);
  if (!token) return null;
  const hash = tokenHash(token);
  const live = await store.read((t) => op(t.operatorSessions.live(hash, now)));
  return live && { ...live, tokenHash: hash };
}

export async function closeSession(store: Store, session: ConsoleSession, now: number): Promise<void> {
  await store.write((t) => signOut(t, session, now));
}

function* signOut(t: Tables, session: ConsoleSession, now: number): Script<void> {
  yield* op(t.operatorSessions.delete(session.tokenHash));
  yield* op(t.audit.append(auditEntry({ actor: consoleActor(session.operatorName), action: "console.sign-out", subject: session.operatorName }, now)));
}

/** The Set-Cookie value of a session; a max age of 0 removes the cookie. */
export const sessionCookie = (token: string, maxAgeMs: number, secure: boolean): string => cookieOf(SESSION_COOKIE, token, maxAgeMs, secure);
