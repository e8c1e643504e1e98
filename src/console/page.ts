// The frame of every console page, and the responses the console sends.
import type { Logger } from "../log/index.ts";
import type { Store } from "../store/index.ts";
import type { ImportOptions, ImportResult } from "../suppression/import.ts";
import { consoleActor } from "./audit.ts";
import { html, Html } from "./html.ts";

/** The operator a page is shown to, and the token its forms must carry back (CSRF). */
export interface Viewer {
  operatorName: string;
  csrfToken: string;
}

/** What a signed-in request's handler gets: the store, who asks, the URL, the form of a POST, the time. */
export interface PageContext {
  store: Store;
  /** After a change to vendors: this instance's authentication sees it at once. */
  vendorsChanged: () => Promise<void>;
  viewer: Viewer;
  url: URL;
  /** A POST's form fields (its CSRF token already checked); empty on a GET. */
  form: URLSearchParams;
  /** A multipart POST's file (the suppression import's upload); null otherwise. */
  upload: File | null;
  /** Imports a suppression CSV on a database connection of its own, as `suppress import` does, audited as `subject` by `actor`. */
  importSuppressions: (file: Blob, subject: string, actor: string, options: ImportOptions) => Promise<ImportResult>;
  now: number;
  /** How long a rotated signing secret's old one still signs (config.signingSecretOverlapMs). */
  signingSecretOverlapMs: number;
  log: Logger;
  /** The value of a cookie the request carries. */
  cookie: (name: string) => string | undefined;
  /** Vendors' portal sign-in links: the address they start with, and how long one is valid. */
  portalLinks: { origin: string; lifetimeMs: number };
}

/** Who the audit log says made a change: the viewer. The operations record it with the change. */
export const actorOf = (context: PageContext): string => consoleActor(context.viewer.operatorName);

/**
 * On every console response. Scripts, styles, images and fonts only from the console itself, no
 * inline script or style (a lead field that slipped into markup could not run), no framing, forms
 * only to the console, no Referer leaving with a lead's id in it. (Not `no-referrer`: under it
 * Chromium sends `Origin: null` with the console's own forms, which the origin check refuses.)
 */
export const SECURITY_HEADERS: Record<string, string> = {
  "content-security-policy": "default-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "same-origin",
};

/** A site's frame (the console's, the portal's): its name, sections, stylesheet and sign-out form. */
export interface SiteFrame {
  brand: string;
  sections: { path: string; title: string }[];
  stylesheet: string;
  signOut: string;
  /** Where its icon is (the browser asks /favicon.ico, outside the portal, without one). */
  icon?: string;
}

/** Who a page is shown to, by any site: a name, and the CSRF token of the session. */
export interface Signed {
  name: string;
  csrfToken: string;
}

const SECTIONS = [
  { path: "/overview", title: "Overview" },
  { path: "/leads", title: "Leads" },
  { path: "/callbacks", title: "Callbacks" },
  { path: "/vendors", title: "Vendors" },
  { path: "/suppression", title: "Suppression" },
  { path: "/policy", title: "Policy" },
  { path: "/refusals", title: "Refusals" },
  { path: "/audit", title: "Audit log" },
];

const CONSOLE_FRAME: SiteFrame = { brand: "Lead Ingress", sections: SECTIONS, stylesheet: "/assets/console.css", signOut: "/logout" };

/** The hidden field that carries the session's CSRF token in a form. */
export const csrfField = (viewer: Pick<Viewer, "csrfToken">): Html => html`<input type="hidden" name="csrf" value="${viewer.csrfToken}">`;

/** `refreshSeconds`: the browser reloads the page that often (a meta refresh: no script). */
export function layout(title: string, viewer: Viewer | null, content: Html, refreshSeconds?: number): Html {
  return framedPage(CONSOLE_FRAME, title, viewer && { name: viewer.operatorName, csrfToken: viewer.csrfToken }, content, refreshSeconds);
}

/** A page of a site in its frame; without `signed`, no sections (the sign-in page). */
export function framedPage(frame: SiteFrame, title: string, signed: Signed | null, content: Html, refreshSeconds?: number): Html {
  const navigation = signed
    ? html`<nav>${frame.sections.map((section) => html`<a href="${section.path}"${section.title === title ? html` class="current"` : ""}>${section.title}</a>`)}</nav>
<span>${signed.name}</span>
<form method="post" action="${frame.signOut}">${csrfField(signed)}<button type="submit">Sign out</button></form>`
    : html`<nav></nav>`;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · ${frame.brand}</title>
${refreshSeconds ? html`<meta http-equiv="refresh" content="${refreshSeconds}">` : ""}
<link rel="stylesheet" href="${frame.stylesheet}">
${frame.icon ? html`<link rel="icon" href="${frame.icon}">` : ""}
</head>
<body>
<header><span class="brand">${frame.brand}</span>${navigation}</header>
<main>${content}</main>
</body>
</html>`;
}

/** The frame of a page whose content is streamed as it is made: the markup before the content and after it. */
export function layoutAround(title: string, viewer: Viewer): [before: string, after: string] {
  const slot = "<!--content-->";
  const [before, after] = layout(title, viewer, new Html(slot)).text.split(slot);
  return [before!, after!];
}

export function htmlResponse(body: Html, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(body.text, { status, headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store", ...headers } });
}

/** 303: the browser follows with a GET, so reloading the next page never repeats a change. */
export const redirect = (location: string, headers: Record<string, string> = {}): Response =>
  new Response(null, { status: 303, headers: { location, ...headers } });

/** A time as the console shows it: UTC to the second. */
export const timeText = (ms: number | null): string =>
  ms === null
    ? "—"
    : new Date(ms)
        .toISOString()
        .replace("T", " ")
        .replace(/\.\d{3}Z$/, " UTC");

/** A problem or a notice above a page's content. */
export const problemBox = (text: string | null): Html => (text ? html`<p class="problem" role="alert">${text}</p>` : html``);
export const noticeBox = (text: string | null): Html => (text ? html`<p class="notice" role="status">${text}</p>` : html``);

/** A callback's status as the console shows it: a discarded dead one says when it was discarded. */
export const callbackStatusText = (callback: { status: string; discarded_at?: unknown }): Html =>
  html`${callback.status}${callback.discarded_at == null ? "" : html` <span class="muted">(discarded ${timeText(Number(callback.discarded_at))})</span>`}`;

/** The notice a finished change left for the page it returned to (`?done=CODE`): fixed texts, never echoed input. */
export const noticeFor = (url: URL, notices: Record<string, string>): string | null => notices[url.searchParams.get("done") ?? ""] ?? null;

/** A form of one button (and hidden fields) that POSTs a change with the viewer's CSRF token. */
export function actionButton(viewer: Pick<Viewer, "csrfToken">, action: string, label: string, fields: Record<string, string> = {}, secondary = false): Html {
  return html`<form method="post" action="${action}" class="inline">${csrfField(viewer)}${Object.entries(fields).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}<button type="submit"${secondary ? html` class="secondary"` : ""}>${label}</button></form>`;
}
