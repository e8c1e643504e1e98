// A browser's side of the vendor portal for tests: sign in with API credentials or a link, keep the
// session cookie, read a page's CSRF token, submit forms; redirects are not followed.
import { createVendor } from "../../src/auth/vendors.ts";
import type { Config } from "../../src/config/index.ts";
import { csrfOf, getPage, postForm, type Answer } from "../console/console-client.ts";
import { basicAuth, startApiTestServer, untilAuthenticates, type ApiTestServer } from "./server.ts";

export interface PortalSession {
  cookie: string;
  csrf: string;
  get(path: string): Promise<Answer>;
  post(path: string, form: Record<string, string>): Promise<Answer>;
}

/** The session a sign-in answer (303 with Set-Cookie) opened. */
export async function sessionFrom(url: string, answer: Answer): Promise<PortalSession> {
  if (answer.status !== 303) throw new Error(`portal sign-in answered ${answer.status}: ${answer.text}`);
  const cookie = answer.headers.get("set-cookie")!.split(";")[0]!;
  const get = (path: string) => getPage(`${url}${path}`, { cookie });
  const csrf = csrfOf((await get("/portal/overview")).text);
  return { cookie, csrf, get, post: (path, form) => postForm(`${url}${path}`, { csrf, ...form }, { cookie }) };
}

export async function portalSignIn(url: string, vendor: { name: string; password: string }): Promise<PortalSession> {
  return sessionFrom(url, await postForm(`${url}/portal/login`, { name: vendor.name, password: vendor.password }));
}

/** A server for the portal's tests: decisions and callback retries in milliseconds, private callbacks allowed. */
export const startPortalTestServer = (overrides: Partial<Config> = {}): Promise<ApiTestServer> =>
  startApiTestServer({
    holdPeriodMs: 50,
    workerPollIntervalMs: 20,
    callbackRetrySchedule: [10],
    callbackTimeoutMs: 500,
    allowPrivateCallbacks: true,
    ...overrides,
  });

/** A vendor the server lets in; answers its signing secret. */
export async function addPortalVendor(server: ApiTestServer, vendor: { name: string; password: string }): Promise<string> {
  const created = await createVendor(server.store, vendor.name, vendor.password);
  await untilAuthenticates(server, basicAuth(vendor.name, vendor.password));
  return created.vendor.signingSecret;
}
