// The operator's console: its own listener (--console-host, --console-port), never the vendors'.
// Every route but the sign-in page and the stylesheet needs a live session; every change (POST)
// also needs the session's CSRF token and, when the browser names one, the console's own origin.
import type { Config } from "../config/index.ts";
import { createClientAddress, type PeerAddress } from "../http/client-address.ts";
import type { Logger } from "../log/index.ts";
import type { Store } from "../store/index.ts";
import { withOwnConnection } from "../store/own-connection.ts";
import { importSuppressionFile } from "../suppression/import.ts";
import { portalOrigin } from "../portal-access/sessions.ts";
import { consoleAsset } from "./assets.ts";
import { guarded } from "./guarded.ts";
import { auditPage } from "./audit-page.ts";
import { refusalsPage } from "./refusals-page.ts";
import { callbacksPage, discardOne, replayConfirmation, replaySelection } from "./callbacks-page.ts";
import { html } from "./html.ts";
import { leadAction, leadPage } from "./lead-page.ts";
import { leadsCsv, leadsPage } from "./leads-page.ts";
import { overviewJson, overviewPage } from "./overview-page.ts";
import { policyEntryEnabled, policyPage, policySave } from "./policy-page.ts";
import { htmlResponse, layout, problemBox, redirect, type PageContext } from "./page.ts";
import { createSignIn, signInPage } from "./sign-in.ts";
import { cookieValue, csrfHolds, currentSession } from "./sessions.ts";
import { formOf, routed, sameOrigin, type Route } from "../web/forms.ts";
import { CONSOLE_CSS } from "./style.ts";
import { suppressionCsv } from "./suppression-list.ts";
import { suppressionAction, suppressionImport, suppressionPage } from "./suppression-page.ts";
import { vendorConfirmation } from "./vendor-confirmation.ts";
import { vendorAction, vendorsPage } from "./vendors-page.ts";

export interface ConsoleDeps {
  config: Config;
  store: Store;
  /** Vendors were changed here: this instance's authentication sees it now (others within their reload). */
  vendorsChanged: () => Promise<void>;
  log: Logger;
  clock?: () => number;
  /** The socket's peer, for throttling failed sign-ins per client. */
  peerAddress?: PeerAddress;
  /** The API listener's address, where vendors' portal links point unless --public-url says otherwise. */
  apiOrigin?: string;
}

/** The one multipart form: a suppression CSV. A million numbers with reasons are about 30 MB. */
const UPLOAD_PATH = "/suppression/import";
const UPLOAD_LIMIT_BYTES = 64 * 1024 * 1024;

const ROUTES: Route<PageContext>[] = [
  ["GET", /^\/$/, async () => redirect("/overview")],
  ["GET", /^\/overview$/, overviewPage],
  ["GET", /^\/overview\.json$/, overviewJson],
  ["GET", /^\/leads$/, leadsPage],
  ["GET", /^\/leads\.csv$/, leadsCsv],
  ["GET", /^\/leads\/([^/]+)$/, (context, leadId) => leadPage(context, leadId!)],
  ["POST", /^\/leads\/([^/]+)\/(decide|retry|replay)$/, (context, leadId, action) => leadAction(context, leadId!, action!)],
  ["GET", /^\/callbacks$/, callbacksPage],
  ["GET", /^\/callbacks\/replay$/, replayConfirmation],
  ["POST", /^\/callbacks\/replay$/, replaySelection],
  ["POST", /^\/callbacks\/discard$/, discardOne],
  ["GET", /^\/vendors$/, (context) => vendorsPage(context)],
  ["POST", /^\/vendors\/add$/, (context) => vendorAction(context, context.form.get("name")?.trim() ?? "", "add")],
  ["GET", /^\/vendors\/([^/]+)\/(disable|rotate-password|rotate-secret)$/, (context, name, action) => vendorConfirmation(context, name!, action!)],
  [
    "POST",
    /^\/vendors\/([^/]+)\/(disable|enable|rotate-password|rotate-secret|portal-link)$/,
    (context, name, action) => vendorAction(context, name!, action!),
  ],
  ["GET", /^\/suppression$/, (context) => suppressionPage(context)],
  ["GET", /^\/suppression\.csv$/, suppressionCsv],
  ["POST", /^\/suppression\/(add|remove)$/, (context, action) => suppressionAction(context, action as "add" | "remove")],
  ["POST", /^\/suppression\/import$/, suppressionImport],
  ["GET", /^\/policy$/, policyPage],
  ["POST", /^\/policy$/, policySave],
  ["POST", /^\/policy\/entries$/, policyEntryEnabled],
  ["GET", /^\/audit$/, auditPage],
  ["GET", /^\/refusals$/, refusalsPage],
];

const refused = (status: number, text: string) => htmlResponse(layout("Refused", null, problemBox(text)), status);

/** The console's request handler: (request) → response, with the security headers on every answer. */
export function createConsole(deps: ConsoleDeps): (request: Request) => Promise<Response> {
  const { store, log } = deps;
  const clock = deps.clock ?? Date.now;
  const signIn = createSignIn({
    store,
    clock,
    clientAddress: createClientAddress(deps.config.trustedProxies, deps.peerAddress ?? (() => undefined)),
    sessionLifetimeMs: deps.config.consoleSessionLifetimeMs,
    secure: deps.config.tlsCertFile !== undefined,
  });

  const importSuppressions: PageContext["importSuppressions"] = (file, subject, actor, options) =>
    withOwnConnection(deps.config.databasePath, (database) => importSuppressionFile(database, file, subject, actor, options));

  async function answer(request: Request, url: URL): Promise<Response> {
    const { pathname: path } = url;
    const method = request.method === "HEAD" ? "GET" : request.method;
    if (method !== "GET" && method !== "POST") return refused(405, "Method not allowed.");
    if (path === "/assets/console.css")
      return new Response(CONSOLE_CSS, { headers: { "content-type": "text/css; charset=utf-8", "cache-control": "no-cache" } });
    const asset = method === "GET" ? consoleAsset(path, request) : null;
    if (asset) return asset;
    // Browsers ask for it on their own; no icon, and no 404 in the browser's console.
    if (path === "/favicon.ico") return new Response(null, { status: 204 });
    if (method === "POST" && !sameOrigin(request, url)) return refused(403, "This form came from another site.");
    const isUpload = method === "POST" && path === UPLOAD_PATH;
    const form = method === "POST" && !isUpload ? await formOf(request) : null;
    if (method === "POST" && !isUpload && !form) return refused(400, "Not a form of the console.");
    if (path === "/login") return form ? signIn.attempt(request, form) : signInPage();

    const session = await currentSession(store, request, clock());
    if (!session) return method === "GET" ? redirect("/login") : refused(403, "Sign in first.");
    // An upload's body is read only for a signed-in operator.
    const upload = isUpload ? await uploadOf(request) : null;
    if (isUpload && !upload) return refused(400, "Not a file upload of the console.");
    const fields = upload?.form ?? form;
    if (fields && !csrfHolds(session, fields.get("csrf"))) return refused(403, "This form has expired: reload the page and try again.");
    if (method === "POST" && path === "/logout") return signIn.signOut(session);
    const viewer = { operatorName: session.operatorName, csrfToken: session.csrfToken };
    const context: PageContext = {
      store,
      vendorsChanged: deps.vendorsChanged,
      viewer,
      url,
      form: fields ?? new URLSearchParams(),
      upload: upload?.file ?? null,
      importSuppressions,
      now: clock(),
      signingSecretOverlapMs: deps.config.signingSecretOverlapMs,
      log,
      cookie: (name) => cookieValue(request.headers.get("cookie"), name),
      portalLinks: { origin: portalOrigin(deps.config, deps.apiOrigin), lifetimeMs: deps.config.portalLinkLifetimeMs },
    };
    return (
      routed(ROUTES, method, path, context) ?? htmlResponse(layout("Not found", context.viewer, html`<h1>Not found</h1><p><a href="/leads">Leads</a></p>`), 404)
    );
  }

  return guarded(answer, refused, log, "console_error");
}

/** A multipart form's text fields, and its file (the first one, if any); null when it is no such form or too large. */
async function uploadOf(request: Request): Promise<{ form: URLSearchParams; file: File | null } | null> {
  const type = request.headers.get("content-type") ?? "";
  const length = Number(request.headers.get("content-length") ?? "0");
  if (!type.startsWith("multipart/form-data") || length > UPLOAD_LIMIT_BYTES) return null;
  const data = await request.formData().catch(() => null);
  if (!data) return null;
  const form = new URLSearchParams();
  let file: File | null = null;
  for (const [name, value] of data) {
    if (typeof value === "string") form.append(name, value);
    else file ??= value;
  }
  return { form, file };
}

export interface ConsoleListener {
  url: URL;
  stop(): Promise<void>;
}

/** Starts the console's listener when --console-port is set; null when it is not. */
export function startConsole(deps: Omit<ConsoleDeps, "peerAddress">): ConsoleListener | null {
  const { config } = deps;
  if (config.consolePort === undefined) return null;
  let server: Bun.Server<unknown> | undefined;
  const handle = createConsole({ ...deps, peerAddress: (request) => server?.requestIP(request)?.address });
  server = Bun.serve({
    hostname: config.consoleHost,
    port: config.consolePort,
    maxRequestBodySize: UPLOAD_LIMIT_BYTES,
    tls: config.tlsCertFile && config.tlsKeyFile ? { cert: Bun.file(config.tlsCertFile), key: Bun.file(config.tlsKeyFile) } : undefined,
    fetch: handle,
  });
  const host = config.consoleHost.includes(":") ? `[${config.consoleHost}]` : config.consoleHost;
  const url = new URL(`${config.tlsCertFile ? "https" : "http"}://${host}:${server.port}`);
  return { url, stop: () => server.stop(true) };
}
