// POST /v1/prePing and /v1/postLead (docs/contract.md §4-§6), and their test twins (§12): the vendor first (the auth plugin), then the
// body under the contract's rules, then the intake service.
import { type Context, Elysia, type DocumentDecoration } from "elysia";
import type { AuthenticatedVendor } from "../auth/authenticator.ts";
import type { VendorAuth } from "../http/vendor-auth.ts";
import { readJsonObject } from "../http/body.ts";
import { answer, failure, success, type Reply } from "../http/envelope.ts";
import { note, noted, type RefusalFacts } from "../http/request-note.ts";
import { IDEMPOTENCY_CONFLICT, LEAD_RECEIVED, PHONE_BLOCKED, PHONE_CAN_BE_SENT } from "../contract/texts.ts";
import type { Capped } from "./caps.ts";
import { isTestRequest } from "./test-lead.ts";
import { prePing, submitLead, type IntakeDeps, type PrePingOutcome, type SubmitOutcome } from "./service.ts";

/** A full cap's 422 (docs/contract.md §10): Retry-After says when its window ends. */
const cappedReply = (flag: "can_post_phone_bit" | "success_bit", outcome: Capped): Reply =>
  failure(flag, 422, [...outcome.reasons], { "retry-after": String(outcome.retryAfterSeconds) });

function prePingReply(outcome: PrePingOutcome): Reply {
  const flag = "can_post_phone_bit";
  switch (outcome.kind) {
    case "invalid":
      return failure(flag, 400, outcome.errors);
    case "blocked":
      return failure(flag, 422, [PHONE_BLOCKED]);
    case "refused":
      return failure(flag, 422, [...outcome.reasons]);
    case "capped":
      return cappedReply(flag, outcome);
    case "eligible":
      return success(flag, PHONE_CAN_BE_SENT);
  }
}

function postLeadReply(outcome: SubmitOutcome): Reply {
  const flag = "success_bit";
  switch (outcome.kind) {
    case "invalid":
      return failure(flag, 400, outcome.errors);
    case "blocked":
      return failure(flag, 422, [PHONE_BLOCKED]);
    case "idempotencyConflict":
      return failure(flag, 422, [IDEMPOTENCY_CONFLICT]);
    case "refused":
      return failure(flag, 422, [...outcome.reasons]);
    case "capped":
      return cappedReply(flag, outcome);
    case "accepted": {
      const reply = success(flag, LEAD_RECEIVED, { lead_id: outcome.leadId });
      return outcome.replayed ? { ...reply, headers: { "idempotent-replayed": "true" } } : reply;
    }
  }
}

/** What the refusal log keeps of a postLead that is not accepted (read from the body as sent: a 400's may not validate). */
function refusalFacts(body: Record<string, unknown>, outcome: SubmitOutcome): RefusalFacts | undefined {
  if (outcome.kind === "accepted") return undefined;
  const text = (value: unknown) => (typeof value === "string" ? value : null);
  return {
    campaign: text(body.vendor_campaign_name),
    phone: text(body.phone_number),
    refusedBy: outcome.kind === "refused" || outcome.kind === "capped" ? (outcome.refusedBy ?? []) : [],
  };
}

const intakeOutcome = (outcome: SubmitOutcome) =>
  outcome.kind === "accepted" ? (outcome.replayed ? "replayed" : "accepted") : outcome.kind === "idempotencyConflict" ? "idempotency_conflict" : outcome.kind;

/** A test request's answer says so in a header (docs/contract.md §12): the envelope is the real one. */
const markedTest = (reply: Reply, test: boolean): Reply => (test ? { ...reply, headers: { ...reply.headers, "x-test-lead": "true" } } : reply);

/** The routes' names in the OpenAPI document (docs/operations.ts): the real ones and their /v1/test/ variants (docs/contract.md §12). */
export type IntakeOperation = "prePing" | "postLead" | "testPrePing" | "testPostLead";

/** A route's work once its vendor is known: its Reply, noted on the request. Thrown: the body's 413 or 400 (EnvelopeError). */
export type IntakeHandler = (request: Request, vendor: AuthenticatedVendor) => Promise<Reply>;

const PATHS: Record<IntakeOperation, string> = {
  prePing: "/v1/prePing",
  postLead: "/v1/postLead",
  testPrePing: "/v1/test/prePing",
  testPostLead: "/v1/test/postLead",
};

/** Each route's handler by its path; each route has a /v1/test/ twin: the same handler, every request a test one. */
export function intakeHandlers(deps: IntakeDeps, bodyLimitBytes: number): Map<string, IntakeHandler> {
  const prePingRoute =
    (testRoute: boolean): IntakeHandler =>
    async (request, vendor) => {
      const test = isTestRequest(request, testRoute);
      const body = await readJsonObject(request, bodyLimitBytes);
      const pending = prePing(deps, body.value, vendor.name, test);
      const outcome = pending instanceof Promise ? await pending : pending;
      note(request, { outcome: outcome.kind, test });
      return noted(request, markedTest(prePingReply(outcome), test));
    };
  const postLeadRoute =
    (testRoute: boolean): IntakeHandler =>
    async (request, vendor) => {
      const test = isTestRequest(request, testRoute);
      const body = await readJsonObject(request, bodyLimitBytes);
      const outcome = await submitLead(deps, {
        vendorId: vendor.id,
        vendorName: vendor.name,
        body: body.value,
        rawBody: body.text,
        idempotencyKey: request.headers.get("idempotency-key"),
        test,
      });
      note(request, {
        outcome: intakeOutcome(outcome),
        leadId: outcome.kind === "accepted" ? outcome.leadId : undefined,
        refusal: refusalFacts(body.value, outcome),
        test,
      });
      return noted(request, markedTest(postLeadReply(outcome), test));
    };
  return new Map([
    [PATHS.prePing, prePingRoute(false)],
    [PATHS.postLead, postLeadRoute(false)],
    [PATHS.testPrePing, prePingRoute(true)],
    [PATHS.testPostLead, postLeadRoute(true)],
  ]);
}

// parse: "none": the body is read by readJsonObject, after authentication (see http/body.ts). So
// the body's schema and the answers are declared in `detail` (for the OpenAPI document), not as
// Elysia's `body` and `response` validators: `body` would have Elysia read and check the body
// before the vendor is known, and `response` would replace the documented examples with bare
// schemas (@elysiajs/openapi writes a route's response schemas over its detail's responses).
// `docs`: their OpenAPI operations, given by the app that composes the routes and the docs.
// The server answers these routes' POSTs without Elysia (app.ts `intake`): the same handlers.
export function intakeRoutes(auth: VendorAuth, handlers: Map<string, IntakeHandler>, docs: Record<IntakeOperation, DocumentDecoration>) {
  const route =
    (operation: IntakeOperation) =>
    ({ request, set, vendor }: { request: Request; set: Context["set"]; vendor: AuthenticatedVendor }) =>
      handlers.get(PATHS[operation])!(request, vendor).then((reply) => answer(set, reply));
  const app = new Elysia({ name: "intake" }).use(auth.plugin);
  for (const operation of Object.keys(PATHS) as IntakeOperation[]) app.post(PATHS[operation], route(operation), { parse: "none", detail: docs[operation] });
  return app;
}
