// A small client for the mock receiver's control API (/_mock, see the README's mock receiver table).
import type { RecordedCallback } from "../mock-receiver/index.ts";
import type { Json } from "./fixture.ts";
import { describeFetchError } from "./request.ts";

export interface ReceiverClient {
  /** PUT /_mock/behaviour for one path. */
  setBehaviour(behaviour: { path: string } & Record<string, Json>): Promise<void>;
  /** DELETE /_mock/behaviour?path=… */
  resetBehaviour(path: string): Promise<void>;
  /** PUT /_mock/secret */
  setSecret(secret: string): Promise<void>;
  /** PUT /_mock/checks: how the mock check service answers (docs/checks.md). */
  setCheckAnswer(answer: Record<string, Json>): Promise<void>;
  /** DELETE /_mock/checks?phone=… */
  resetCheckAnswers(phone: string): Promise<void>;
  /** PUT /_mock/trustedform: how the mock TrustedForm answers for a certificate id (docs/certificates.md). */
  setCertificate(behaviour: Record<string, Json>): Promise<void>;
  /** GET /_mock/callbacks?path=… */
  callbacks(path: string): Promise<RecordedCallback[]>;
}

export function receiverClient(baseUrl: string, timeoutMs: number): ReceiverClient {
  async function call(method: string, path: string, body?: unknown): Promise<unknown> {
    let response: Response;
    try {
      response = await fetch(`${baseUrl}/_mock${path}`, {
        method,
        headers: body === undefined ? {} : { "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      throw new Error(`mock receiver at ${baseUrl}: ${describeFetchError(error, timeoutMs)}`);
    }
    const text = await response.text();
    if (!response.ok) throw new Error(`mock receiver ${method} /_mock${path} answered ${response.status}: ${text.slice(0, 200)}`);
    return JSON.parse(text);
  }
  const query = (path: string) => `?path=${encodeURIComponent(path)}`;
  return {
    setBehaviour: async (behaviour) => void (await call("PUT", "/behaviour", behaviour)),
    resetBehaviour: async (path) => void (await call("DELETE", `/behaviour${query(path)}`)),
    setSecret: async (secret) => void (await call("PUT", "/secret", { secret })),
    setCheckAnswer: async (answer) => void (await call("PUT", "/checks", answer)),
    resetCheckAnswers: async (phone) => void (await call("DELETE", `/checks?phone=${encodeURIComponent(phone)}`)),
    setCertificate: async (behaviour) => void (await call("PUT", "/trustedform", behaviour)),
    callbacks: async (path) => (await call("GET", `/callbacks${query(path)}`)) as RecordedCallback[],
  };
}
