import { Elysia } from "elysia";
import { failure, success, type Reply } from "../http/envelope.ts";
import type { V1Guard } from "../http/v1.ts";
import type { Metrics } from "../metrics/index.ts";
import { IDEMPOTENCY_CONFLICT, LEAD_RECEIVED, PHONE_BLOCKED, PHONE_CAN_BE_SENT } from "../contract/texts.ts";
import { prePing, submitLead, type IntakeDeps, type PrePingOutcome, type SubmitOutcome } from "./service.ts";

function prePingReply(outcome: PrePingOutcome): Reply {
  const flag = "can_post_phone_bit";
  switch (outcome.kind) {
    case "invalid":
      return failure(flag, 400, outcome.errors);
    case "blocked":
      return failure(flag, 422, [PHONE_BLOCKED]);
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
    case "accepted": {
      const reply = success(flag, LEAD_RECEIVED, { lead_id: outcome.leadId });
      return outcome.replayed ? { ...reply, headers: { "idempotent-replayed": "true" } } : reply;
    }
  }
}

// parse: "none" keeps Elysia from reading the body: authentication comes first, and the body rules
// (size, JSON, object) are the contract's, not the framework's.
const intakeOutcome = (outcome: SubmitOutcome) =>
  outcome.kind === "accepted" ? (outcome.replayed ? "replayed" : "accepted") : outcome.kind === "idempotencyConflict" ? "idempotency_conflict" : outcome.kind;

export function intakeRoutes(guard: V1Guard, deps: IntakeDeps, metrics: Metrics) {
  return new Elysia({ name: "intake" })
    .post(
      "/v1/prePing",
      ({ request }) => guard.withBody(request, "can_post_phone_bit", (_vendor, body) => {
        const outcome = prePing(deps, body.value);
        return outcome instanceof Promise ? outcome.then(prePingReply) : prePingReply(outcome);
      }),
      { parse: "none" },
    )
    .post(
      "/v1/postLead",
      ({ request }) =>
        guard.withBody(request, "success_bit", async (vendor, body) => {
          const outcome = await submitLead(deps, {
            vendorId: vendor.id,
            body: body.value,
            rawBody: body.text,
            idempotencyKey: request.headers.get("idempotency-key"),
          });
          metrics.intake.inc({ outcome: intakeOutcome(outcome) });
          return postLeadReply(outcome);
        }),
      { parse: "none" },
    );
}
