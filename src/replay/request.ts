// Turns a fixture request (placeholders already filled) into an HTTP request, and reads the answer.
import type { Auth, FixtureRequest } from "./fixture.ts";
import { basicAuthorization } from "../auth/basic.ts";

export interface Credentials {
  user: string;
  password: string;
}

export interface Target {
  /** The service's base URL, without a trailing slash. */
  url: string;
  vendor: Credentials;
  otherVendor?: Credentials;
  timeoutMs: number;
}

export interface Answer {
  status: number;
  headers: Headers;
  /** The parsed JSON body, or undefined when it is not JSON (bodyText then says what came). */
  body: unknown;
  bodyText: string;
}

function authorization(auth: Auth, target: Target): string | null {
  if (auth === "none") return null;
  if (auth === "vendor") return basicAuthorization(target.vendor.user, target.vendor.password);
  if (auth === "other-vendor") {
    if (!target.otherVendor) throw new Error("auth other-vendor needs --other-user and --other-password");
    return basicAuthorization(target.otherVendor.user, target.otherVendor.password);
  }
  if (typeof auth === "string") return auth.slice("raw:".length);
  return basicAuthorization(auth.user, auth.password);
}

/** A JSON object of exactly `bytes` bytes: valid JSON, so only its size can be refused. */
export function paddedBody(bytes: number): string {
  const open = '{"padding":"';
  const close = '"}';
  return `${open}${"x".repeat(Math.max(0, bytes - open.length - close.length))}${close}`;
}

function bodyText(request: FixtureRequest): string | undefined {
  if (request.bodyBytes !== undefined) {
    // Trailing spaces do not change what the text means as JSON, only its size.
    return request.raw === undefined
      ? paddedBody(request.bodyBytes)
      : request.raw + " ".repeat(Math.max(0, request.bodyBytes - Buffer.byteLength(request.raw)));
  }
  if (request.raw !== undefined) return request.raw;
  if (request.body !== undefined) return JSON.stringify(request.body);
  return undefined;
}

export function buildRequest(request: FixtureRequest, target: Target): { url: string; init: RequestInit } {
  const headers = new Headers();
  const auth = authorization(request.auth ?? "vendor", target);
  if (auth !== null) headers.set("authorization", auth);
  const text = bodyText(request);
  if (text !== undefined) headers.set("content-type", "application/json");
  for (const [name, value] of Object.entries(request.headers ?? {})) {
    if (value === null) headers.delete(name);
    else headers.set(name, value);
  }
  // A string body would get "text/plain" from fetch; bytes go out with no Content-Type at all.
  const body = text === undefined ? undefined : headers.has("content-type") ? text : new TextEncoder().encode(text);
  return { url: `${target.url}${request.path}`, init: { method: request.method, headers, body } };
}

/** Sends one request; bounded by the target's timeout. */
export async function send(request: FixtureRequest, target: Target): Promise<Answer> {
  const { url, init } = buildRequest(request, target);
  let response: Response;
  try {
    response = await fetch(url, { ...init, redirect: "manual", signal: AbortSignal.timeout(target.timeoutMs) });
  } catch (error) {
    throw new Error(`${request.method} ${url}: ${describeFetchError(error, target.timeoutMs)}`);
  }
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: parseJson(text), bodyText: text };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Says "no answer within 30000 ms" for a timeout, else the network error's own message. */
export function describeFetchError(error: unknown, timeoutMs: number): string {
  const name = (error as { name?: string } | null)?.name;
  return name === "TimeoutError" || name === "AbortError" ? `no answer within ${timeoutMs} ms` : (error as Error).message;
}
