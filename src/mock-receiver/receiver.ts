// The mock vendor callback receiver (issue 3, item 6): records every callback, checks its signature,
// and answers as told, globally or per path. Used in-process by tests and from the CLI by people.
import { sendAnswer } from "./answer.ts";
import { createBehaviourTable, isControlPath, parseBehaviour, type Behaviour } from "./behaviour.ts";
import { type CheckPlay, createCheckTable, isCheckPath, parseCheckPlay } from "./checks.ts";
import { handleControl, type ControlTarget } from "./control.ts";
import { createRecorder, type RecordedCallback, type WaitOptions } from "./recorder.ts";
import { signatureVerifier, type SignatureCheck } from "./signature.ts";
import type { CertificateBehaviour } from "./trustedform-answer.ts";
import { certificatePath, createCertificateTable, parseCertificateBehaviour, type CertificateRequest } from "./trustedform.ts";

export interface MockReceiverOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  /** A loopback address or "localhost"; default 127.0.0.1. */
  host?: string;
  /** The vendor's "whsec_…" signing secret; without it signatures are not checked. */
  secret?: string;
  /** The `checks` signing secret, for check requests (under /check); without it they are checked with `secret`. */
  checkSecret?: string;
  /** The oldest records are dropped beyond this many; default 100,000. */
  maxRecorded?: number;
  /** Called for every recorded callback, on arrival (the CLI logs it). */
  onCallback?: (callback: RecordedCallback) => void;
}

export interface MockReceiver {
  url: URL;
  /** Everything received (optionally only one path's), oldest first. */
  received(path?: string): RecordedCallback[];
  /** Forgets what was received and restarts every path's attempt count. */
  clear(): void;
  /** Like PUT /_mock/behaviour: without `path` it sets the global default. Throws BehaviourError. */
  setBehaviour(behaviour: Behaviour & { path?: string }): void;
  /** Like DELETE /_mock/behaviour: one path's behaviour, or all of them. */
  resetBehaviour(path?: string): void;
  /** Throws SecretError on a malformed secret; undefined stops checking signatures. */
  setSecret(secret: string | undefined): void;
  /** Like PUT /_mock/trustedform: how the TrustedForm endpoint answers for one certificate id (or, without `token`, by default). Throws BehaviourError. */
  setCertificate(behaviour: CertificateBehaviour & { token?: string }): void;
  /** What the TrustedForm endpoint was asked, oldest first (the key redacted). */
  certificateRequests(): CertificateRequest[];
  /** Like PUT /_mock/checks: how check requests for `phone` (none: every number) are answered. Throws BehaviourError. */
  setCheckAnswer(answer: CheckPlay & { phone?: string; check?: string }): void;
  /** Like DELETE /_mock/checks: one number's check answers, or all of them. */
  resetCheckAnswers(phone?: string): void;
  /** Like PUT /_mock/check-secret; undefined checks check requests with the vendor's secret again. */
  setCheckSecret(secret: string | undefined): void;
  /** Resolves once at least `count` callbacks (to `options.path`, if given) have arrived. */
  waitFor(count: number, options?: WaitOptions): Promise<RecordedCallback[]>;
  /** Drops open connections (hanging and delayed requests included) and stops listening. */
  stop(): Promise<void>;
}

export class LoopbackError extends Error {}

export function startMockReceiver(options: MockReceiverOptions = {}): MockReceiver {
  const host = options.host ?? "127.0.0.1";
  // It answers whoever asks and prints what it is sent: never expose it beyond this machine.
  if (!isLoopbackHost(host)) throw new LoopbackError(`the mock receiver listens on loopback addresses only, not ${host}`);
  const recorder = createRecorder(options.maxRecorded ?? 100_000);
  const behaviours = createBehaviourTable();
  const certificates = createCertificateTable();
  const checks = createCheckTable();
  const stopping = new AbortController();
  type Verify = (headers: Record<string, string>, body: string) => SignatureCheck;
  let verify: Verify | undefined;
  let verifyCheck: Verify | undefined;
  const control: ControlTarget = {
    recorder,
    behaviours,
    certificates,
    checks,
    setSecret: (secret) => {
      verify = secret === undefined ? undefined : signatureVerifier(secret);
    },
    setCheckSecret: (secret) => {
      verifyCheck = secret === undefined ? undefined : signatureVerifier(secret);
    },
  };
  control.setSecret(options.secret);
  control.setCheckSecret(options.checkSecret);

  const server = Bun.serve({
    hostname: host,
    port: options.port ?? 0,
    async fetch(request) {
      const url = new URL(request.url);
      if (isControlPath(url.pathname)) return handleControl(request, url, control);
      // It plays TrustedForm's certificate API under /trustedform; those requests are not callbacks.
      const certificate = certificatePath(url.pathname);
      if (certificate === "") return Response.json({ outcome: "error", reason: "POST /trustedform/<certificate id>" }, { status: 404 });
      if (certificate !== null) return sendAnswer(await certificates.answer(request, certificate), [request.signal, stopping.signal]);
      const body = await request.text();
      const headers = Object.fromEntries(request.headers);
      const json = parseJson(body);
      // A check request is answered by its phone number; anything else by the path's behaviour.
      const isCheck = request.method === "POST" && isCheckPath(url.pathname);
      const answer = isCheck ? checks.next(json) : behaviours.next(url.pathname);
      const verifier = isCheck ? (verifyCheck ?? verify) : verify;
      const recorded = recorder.add({
        method: request.method,
        path: url.pathname,
        query: url.search,
        headers,
        body,
        json,
        receivedAt: new Date().toISOString(),
        signature: verifier ? verifier(headers, body) : null,
        answer,
      });
      options.onCallback?.(recorded);
      return sendAnswer(answer, [request.signal, stopping.signal]);
    },
    error(error) {
      return Response.json({ error: error.message }, { status: 500 });
    },
  });

  const url = new URL(`http://${host.includes(":") ? `[${host}]` : host}:${server.port}`);
  let stopped: Promise<void> | undefined;
  return {
    url,
    received: (path) => recorder.list(path),
    clear: () => void recorder.clear(),
    setBehaviour: (input) => {
      const { path, behaviour } = parseBehaviour(input);
      behaviours.set(path, behaviour);
    },
    resetBehaviour: (path) => behaviours.reset(path),
    setSecret: (secret) => control.setSecret(secret),
    setCertificate: (input) => {
      const { token, behaviour } = parseCertificateBehaviour(input);
      certificates.set(token, behaviour);
    },
    certificateRequests: () => certificates.requests(),
    setCheckAnswer: (input) => {
      const { phone, check, play } = parseCheckPlay(input);
      checks.set(phone, check, play);
    },
    resetCheckAnswers: (phone) => checks.reset(phone),
    setCheckSecret: (secret) => control.setCheckSecret(secret),
    waitFor: (count, waitOptions) => recorder.waitFor(count, waitOptions),
    stop() {
      stopped ??= (async () => {
        stopping.abort(); // ends every delayed or hanging answer and clears its timer
        recorder.close();
        await server.stop(true);
      })();
      return stopped;
    },
  };
}

export function isLoopbackHost(host: string): boolean {
  return host === "localhost" || host === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

function parseJson(text: string): unknown {
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
