// A notice for the page an action returns to, shown once. The action's redirect sets a short-lived
// cookie for that page's path alone, naming the page's subject (a lead's id); the page shows the
// notice and deletes the cookie. So a reload, a bookmark, the browser's history or another lead's
// page shows no notice of an action long done, as a `?done=` in the address did. The cookie holds
// a fixed code, never echoed input, and no secret.
import { redirect, type PageContext } from "./page.ts";

const NOTICE_COOKIE = "lead_ingress_notice";
/** Long enough for the browser to follow the redirect, short enough never to meet a later visit. */
const NOTICE_SECONDS = 30;

const noticeCookie = (path: string, value: string, maxAgeSeconds: number) =>
  `${NOTICE_COOKIE}=${value}; Path=${path}; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Strict`;

const cookieValue = (subject: string, code: string) => `${code}:${encodeURIComponent(subject)}`;

/** 303 to `path` (a page of `subject`), which shows the notice `code` once. */
export const redirectWithNotice = (path: string, subject: string, code: string): Response =>
  redirect(path, { "set-cookie": noticeCookie(path, cookieValue(subject, code), NOTICE_SECONDS) });

/**
 * The notice the request carries for this page of `subject` (null if none), and the headers that
 * delete the cookie: send them with the page, so the notice is shown once.
 */
export function takeNotice(
  context: Pick<PageContext, "cookie">,
  path: string,
  subject: string,
  notices: Record<string, string>,
): { notice: string | null; headers: Record<string, string> } {
  const cookie = context.cookie(NOTICE_COOKIE);
  if (cookie === undefined) return { notice: null, headers: {} };
  const [code = "", named] = cookie.split(":", 2);
  const notice = named === encodeURIComponent(subject) && Object.hasOwn(notices, code) ? notices[code]! : null;
  return { notice, headers: { "set-cookie": noticeCookie(path, "", 0) } };
}
