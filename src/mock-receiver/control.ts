// The mock receiver's control API under /_mock: what was received, how to answer, which secret to
// check signatures with. JSON in, JSON out; requests here are never recorded.
import { BehaviourError, CONTROL_PREFIX, parseBehaviour, type BehaviourTable } from "./behaviour.ts";
import { type CheckTable, parseCheckPlay } from "./checks.ts";
import type { Recorder } from "./recorder.ts";
import { SecretError } from "./signature.ts";
import { parseCertificateBehaviour, type CertificateTable } from "./trustedform.ts";

export interface ControlTarget {
  recorder: Recorder;
  behaviours: BehaviourTable;
  certificates: CertificateTable;
  /** What check requests (under /check) are answered, per phone number. */
  checks: CheckTable;
  /** Throws SecretError on a malformed secret; undefined forgets it. */
  setSecret(secret: string | undefined): void;
  /** The secret check requests are verified with (the checks signing secret); undefined: the one above. */
  setCheckSecret(secret: string | undefined): void;
}

type Handler = (request: Request, url: URL, target: ControlTarget) => Promise<Response> | Response;

const ROUTES: Record<string, Record<string, Handler>> = {
  "/callbacks": {
    GET: (_request, url, { recorder }) => json(200, recorder.list(url.searchParams.get("path") ?? undefined)),
    DELETE: (_request, _url, { recorder }) => json(200, { cleared: recorder.clear() }),
  },
  "/behaviour": {
    GET: (_request, _url, { behaviours }) => json(200, behaviours.describe()),
    PUT: setBehaviour,
    POST: setBehaviour,
    DELETE: (_request, url, { behaviours }) => {
      const path = url.searchParams.get("path") ?? undefined;
      behaviours.reset(path);
      return json(200, { reset: path ?? "all" });
    },
  },
  "/trustedform": {
    GET: (_request, _url, { certificates }) => json(200, { ...certificates.describe(), requests: certificates.requests() }),
    PUT: setCertificate,
    POST: setCertificate,
    DELETE: (_request, _url, { certificates }) => {
      certificates.reset();
      return json(200, { reset: "all" });
    },
  },
  "/secret": {
    PUT: (request, _url, target) => setSecret(request, (secret) => target.setSecret(secret)),
    POST: (request, _url, target) => setSecret(request, (secret) => target.setSecret(secret)),
    DELETE: (_request, _url, target) => {
      target.setSecret(undefined);
      return json(200, { secret: "cleared" });
    },
  },
  "/checks": {
    GET: (_request, _url, { checks }) => json(200, checks.describe()),
    PUT: setCheckAnswer,
    POST: setCheckAnswer,
    DELETE: (_request, url, { checks }) => {
      const phone = url.searchParams.get("phone") ?? undefined;
      checks.reset(phone);
      return json(200, { reset: phone ?? "all" });
    },
  },
  "/check-secret": {
    PUT: (request, _url, target) => setSecret(request, (secret) => target.setCheckSecret(secret)),
    POST: (request, _url, target) => setSecret(request, (secret) => target.setCheckSecret(secret)),
    DELETE: (_request, _url, target) => {
      target.setCheckSecret(undefined);
      return json(200, { secret: "cleared" });
    },
  },
};

export async function handleControl(request: Request, url: URL, target: ControlTarget): Promise<Response> {
  const name = url.pathname.slice(CONTROL_PREFIX.length);
  const route = Object.hasOwn(ROUTES, name) ? ROUTES[name] : undefined;
  if (!route)
    return json(404, {
      error: `no such control route; try ${Object.keys(ROUTES)
        .map((r) => CONTROL_PREFIX + r)
        .join(", ")}`,
    });
  const handler = Object.hasOwn(route, request.method) ? route[request.method] : undefined;
  if (!handler) return json(405, { error: `use ${Object.keys(route).join(", ")}` }, { allow: Object.keys(route).join(", ") });
  try {
    return await handler(request, url, target);
  } catch (error) {
    if (error instanceof BehaviourError || error instanceof SecretError || error instanceof SyntaxError) return json(400, { error: error.message });
    throw error;
  }
}

async function setBehaviour(request: Request, _url: URL, { behaviours }: ControlTarget): Promise<Response> {
  const { path, behaviour } = parseBehaviour(await request.json());
  behaviours.set(path, behaviour);
  return json(200, { path: path ?? null, behaviour });
}

async function setCertificate(request: Request, _url: URL, { certificates }: ControlTarget): Promise<Response> {
  const { token, behaviour } = parseCertificateBehaviour(await request.json());
  certificates.set(token, behaviour);
  return json(200, { token: token ?? null, behaviour });
}

async function setCheckAnswer(request: Request, _url: URL, { checks }: ControlTarget): Promise<Response> {
  const { phone, check, play } = parseCheckPlay(await request.json());
  checks.set(phone, check, play);
  return json(200, { phone: phone ?? null, check: check ?? null, answer: play });
}

async function setSecret(request: Request, set: (secret: string | undefined) => void): Promise<Response> {
  const body: unknown = await request.json();
  const secret = typeof body === "object" && body !== null ? (body as Record<string, unknown>).secret : undefined;
  if (secret !== null && typeof secret !== "string") throw new SecretError('send {"secret": "whsec_..."} (or {"secret": null} to forget it)');
  set(secret ?? undefined);
  return json(200, { secret: secret === null ? "cleared" : "set" });
}

function json(status: number, value: unknown, headers: Record<string, string> = {}): Response {
  return Response.json(value, { status, headers });
}
