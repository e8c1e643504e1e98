// Portal sessions and one-time sign-in links (docs/portal.md). A session is a random token in an
// HttpOnly, SameSite=Strict cookie scoped to /portal (Secure under TLS); a link is a random token in
// a URL an operator hands the vendor. The database keeps the SHA-256 of either (portal_sessions), so
// every instance sharing it knows them. A link is deleted as it is used: single use, also when two
// browsers race with it.
import { op, type Script } from "../db/script.ts";
import { auditEntry } from "../store/audit/index.ts";
import type { Store, Tables } from "../store/index.ts";
import type { PortalSession, SessionVendor } from "../store/portal-sessions/index.ts";
import { cookieValue, randomToken, sessionCookie, tokenHash } from "../web/session-tokens.ts";
import { findVendorByName, VendorError } from "../auth/vendors.ts";
import type { Config } from "../config/index.ts";

export const PORTAL_COOKIE = "lead_ingress_portal";
export const PORTAL_PATH = "/portal";

/** A request's live portal session. */
export interface PortalSignedIn extends SessionVendor {
  tokenHash: string;
}

/** Who the audit log says acted in the portal: the vendor itself. */
export const portalActor = (vendorName: string) => `vendor:${vendorName}`;

/** How the vendor signed in: its API password, or a link an operator made. */
export type SignInWay = "password" | "link";

/** Starts a session for a vendor who just signed in; answers the cookie's token. */
export async function openPortalSession(store: Store, vendor: { id: string; name: string }, way: SignInWay, lifetimeMs: number, now: number): Promise<string> {
  const token = randomToken();
  const session: PortalSession = {
    tokenHash: tokenHash(token),
    vendorId: vendor.id,
    kind: "session",
    csrfToken: randomToken(),
    createdAt: now,
    expiresAt: now + lifetimeMs,
  };
  await store.write(function* (t) {
    // Sign-ins are rare: each sweeps the expired rows, so the table holds only live ones.
    yield* op(t.portalSessions.purgeExpired(now));
    yield* op(t.portalSessions.insert(session));
    yield* op(t.audit.append(auditEntry({ actor: portalActor(vendor.name), action: "portal.sign-in", subject: vendor.name, detail: `by ${way}` }, now)));
  });
  return token;
}

/** The request's session if its cookie names a live one (not expired, vendor enabled); else null. */
export async function currentPortalSession(store: Store, request: Request, now: number): Promise<PortalSignedIn | null> {
  const token = cookieValue(request.headers.get("cookie"), PORTAL_COOKIE);
  if (!token) return null;
  const hash = tokenHash(token);
  const live = await store.read((t) => op(t.portalSessions.live(hash, now)));
  return live && { ...live, tokenHash: hash };
}

export async function closePortalSession(store: Store, session: PortalSignedIn, now: number): Promise<void> {
  await store.write(function* (t) {
    yield* op(t.portalSessions.delete(session.tokenHash));
    yield* op(t.audit.append(auditEntry({ actor: portalActor(session.vendorName), action: "portal.sign-out", subject: session.vendorName }, now)));
  });
}

/** The Set-Cookie value of a portal session; a max age of 0 removes the cookie. */
export const portalCookie = (token: string, maxAgeMs: number, secure: boolean) => sessionCookie(PORTAL_COOKIE, token, maxAgeMs, secure, PORTAL_PATH);

export interface SignInLink {
  /** The path and query of the link: `/portal/link?token=…`, after the API's public address. */
  path: string;
  expiresAt: number;
}

/** A one-time sign-in link for an enabled vendor, valid for `lifetimeMs`; audited as made by `actor`. */
export async function createSignInLink(store: Store, vendorName: string, actor: string, lifetimeMs: number, now = Date.now()): Promise<SignInLink> {
  const vendor = await findVendorByName(store, vendorName);
  if (!vendor) throw new VendorError(`No such vendor: ${vendorName}`);
  if (!vendor.enabled) throw new VendorError(`Vendor ${vendorName} is disabled: it cannot sign in.`);
  const token = randomToken();
  const expiresAt = now + lifetimeMs;
  const link: PortalSession = { tokenHash: tokenHash(token), vendorId: vendor.id, kind: "link", csrfToken: "", createdAt: now, expiresAt };
  const detail = `valid until ${new Date(expiresAt).toISOString()}`;
  await store.write(function* (t) {
    yield* op(t.portalSessions.insert(link));
    yield* op(t.audit.append(auditEntry({ actor, action: "portal.link", subject: vendor.name, detail }, now)));
  });
  return { path: `${PORTAL_PATH}/link?token=${token}`, expiresAt };
}

/** Uses a sign-in link: its vendor (if enabled), and the link is gone; null when it is unknown, used, expired or its vendor disabled. */
export async function redeemSignInLink(store: Store, token: string, now: number): Promise<{ id: string; name: string } | null> {
  const hash = tokenHash(token);
  return store.write((t) => takeLink(t, hash, now));
}

function* takeLink(t: Tables, hash: string, now: number): Script<{ id: string; name: string } | null> {
  const vendorId = yield* op(t.portalSessions.takeLink(hash, now));
  if (vendorId === null) return null;
  const vendor = (yield* op(t.vendors.list())).find((candidate) => candidate.id === vendorId);
  return vendor?.enabled ? { id: vendor.id, name: vendor.name } : null;
}

/**
 * Where vendors reach the API, the start of a sign-in link: --public-url, else the API listener's
 * address as it listens (`listening`, when known), else as configured.
 */
export function portalOrigin(config: Pick<Config, "publicUrl" | "host" | "port" | "tlsCertFile">, listening?: string): string {
  if (config.publicUrl) return config.publicUrl.replace(/\/$/, "");
  if (listening) return listening;
  const host = config.host === "0.0.0.0" || config.host === "::" ? "127.0.0.1" : config.host;
  return `${config.tlsCertFile ? "https" : "http"}://${host.includes(":") ? `[${host}]` : host}:${config.port}`;
}
