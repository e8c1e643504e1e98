// GET /v1/leads/{lead_id}: a vendor reads its own lead's status (docs/contract.md §7).
import { reasonsOf } from "../contract/rejection-reasons.ts";
import { Elysia, t, type DocumentDecoration } from "elysia";
import type { VendorAuth } from "../http/vendor-auth.ts";
import { answer, failure, success, type Reply } from "../http/envelope.ts";
import { noted } from "../http/request-note.ts";
import { op } from "../db/script.ts";
import type { Store } from "../store/index.ts";
import type { LeadState } from "../store/leads/index.ts";
// The lookup says exactly what the callback said.
import { LEAD_ACCEPTED, LEAD_NOT_FOUND, LEAD_PENDING, LEAD_REJECTED } from "../contract/texts.ts";

/**
 * Another vendor's lead answers exactly like a missing one: ids reveal nothing. At once on SQLite
 * (its reads answer synchronously), a promise on PostgreSQL.
 */
export function leadStatusReply(store: Store, vendorId: string, leadId: string): Reply | Promise<Reply> {
  const lead = store.read((t) => op(t.leads.stateFor(leadId, vendorId)));
  return lead instanceof Promise ? lead.then(replyFor) : replyFor(lead);
}

function replyFor(lead: LeadState | undefined): Reply {
  if (!lead) return failure("success_bit", 404, [LEAD_NOT_FOUND]);
  const extra = { lead_id: lead.id, status: lead.status };
  switch (lead.status) {
    case "pending":
      return success("success_bit", LEAD_PENDING, extra);
    case "accepted":
      return success("success_bit", LEAD_ACCEPTED, extra);
    case "rejected": {
      const reply = failure("success_bit", 200, lead.rejectionReason === null ? [LEAD_REJECTED] : reasonsOf(lead.rejectionReason));
      return { ...reply, body: { ...reply.body, ...extra } };
    }
  }
}

/** Any string: an id that is not a lead's is the ordinary 404, not a validation error. */
const params = t.Object({ lead_id: t.String({ description: "The lead_id from postLead's answer." }) });

/** `detail`: its OpenAPI operation, given by the app that composes the routes and the docs. */
export function leadRoutes(auth: VendorAuth, store: Store, detail: DocumentDecoration) {
  return new Elysia({ name: "leads" })
    .use(auth.plugin)
    .get(
      "/v1/leads/:lead_id",
      async ({ params, request, set, vendor }) => answer(set, noted(request, await leadStatusReply(store, vendor.id, params.lead_id))),
      { params, detail },
    );
}
