// A browser's side of the console for tests: sign in, keep the session cookie, read a page's CSRF
// token, submit forms; redirects are not followed, so each answer is seen as sent.
import { createOperator } from "../../src/console/operators.ts";
import type { Store } from "../../src/store/index.ts";

export const OPERATOR = { name: "olivia", password: "olivia-password-1" };

export async function addOperator(store: Store, operator = OPERATOR): Promise<void> {
  await createOperator(store, operator.name, "cli:test", operator.password);
}

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

const answerOf = async (response: Response): Promise<Answer> => ({ status: response.status, headers: response.headers, text: await response.text() });

export const getPage = async (url: string, headers: Record<string, string> = {}): Promise<Answer> =>
  answerOf(await fetch(url, { headers, redirect: "manual" }));

export async function postForm(url: string, form: Record<string, string>, headers: Record<string, string> = {}): Promise<Answer> {
  const body = new URLSearchParams(form).toString();
  return answerOf(await fetch(url, { method: "POST", body, headers: { "content-type": "application/x-www-form-urlencoded", ...headers }, redirect: "manual" }));
}

/** The CSRF token of a page's forms. */
export const csrfOf = (page: string): string => /name="csrf" value="([^"]+)"/.exec(page)![1]!;

/** A signed-in operator: its cookie, and the CSRF token its pages carry. */
export interface SignedIn {
  cookie: string;
  csrf: string;
  get(path: string): Promise<Answer>;
  post(path: string, form: Record<string, string>, headers?: Record<string, string>): Promise<Answer>;
  /**
   * A redirect followed as a browser follows it: a GET of its Location with the session's cookie
   * and the cookies the redirect set (a notice's). The page's own Set-Cookie headers are in its answer.
   */
  follow(redirect: Answer): Promise<Answer>;
}

/** The cookies an answer sets, as `name=value` pairs for a Cookie header; deleted ones (Max-Age=0) left out. */
export const cookiesSet = (answer: Answer): string[] =>
  answer.headers
    .getSetCookie()
    .filter((cookie) => !/;\s*max-age=0\b/i.test(cookie))
    .map((cookie) => cookie.split(";")[0]!);

export async function signIn(consoleUrl: string, operator = OPERATOR): Promise<SignedIn> {
  const answer = await postForm(`${consoleUrl}/login`, { name: operator.name, password: operator.password });
  if (answer.status !== 303) throw new Error(`sign-in answered ${answer.status}: ${answer.text}`);
  const cookie = answer.headers.get("set-cookie")!.split(";")[0]!;
  const get = (path: string) => getPage(`${consoleUrl}${path}`, { cookie });
  const csrf = csrfOf((await get("/overview")).text);
  return {
    cookie,
    csrf,
    get,
    post: (path, form, headers = {}) => postForm(`${consoleUrl}${path}`, form, { cookie, ...headers }),
    follow: (redirect) => getPage(`${consoleUrl}${redirect.headers.get("location")}`, { cookie: [cookie, ...cookiesSet(redirect)].join("; ") }),
  };
}
