// What a request's answer was about, noted by the code that knows it (the vendor by authentication,
// the lead and the outcome by the routes, the failure's texts by the error handler) and read once,
// when the server answers (server.ts respond()): its log line and its metrics come from the note.
// Keyed by the Request the app handles; a request handled without the server (app.handle in tests)
// has no note, and noting on it does nothing.
import { loggedReason } from "../log/reason.ts";
import type { Reply } from "./envelope.ts";

/** Why credentials were refused: 401, 429 for too many failed ones, 429 over the vendor's rate limit. */
export const AUTH_REFUSALS = ["unauthorized", "too_many_failures", "rate_limited"] as const;
export type AuthRefusal = (typeof AUTH_REFUSALS)[number];
/** The vendor of a refusal whose credentials name no known vendor: never the name a stranger sent. */
export const UNKNOWN_VENDOR = "unknown";

export interface RequestNote {
  /** The vendor the credentials name: only a known vendor's name, else "unknown" (a metrics label). */
  vendor?: string;
  /** The known vendor's id, for the console's counts (stats/tally.ts). */
  vendorId?: string;
  leadId?: string;
  /** What became of it, as a metrics label: postLead's and prePing's outcomes, an authentication refusal. */
  outcome?: string;
  /** Why it failed: the contract's error texts, without the values they echo (log/reason.ts). */
  reason?: string;
  /** The failure's error texts as answered, for the refusal log (refusals/), which cuts the values out. */
  errors?: readonly string[];
  /** A test request (docs/contract.md §12 "Test mode"): counted apart from the business's traffic (metrics/ routeLabel). */
  test?: boolean;
  /** What postLead's route read of a refused lead, for the refusal log and the metrics. */
  refusal?: RefusalFacts;
}

/** A refused postLead's campaign and phone as sent (texts, else null), and the policy entries that refused it. */
export interface RefusalFacts {
  campaign: string | null;
  /** Unmasked: kept in memory only until the refusal log masks it. */
  phone: string | null;
  refusedBy: readonly { kind: "rule" | "schedule" | "cap" | "check"; name: string }[];
}

const notes = new WeakMap<Request, RequestNote>();

/** From now on, what is noted on `request` goes to `note`, which its server reads once it is answered. */
export function openNote(request: Request, note: RequestNote): void {
  notes.set(request, note);
}

export function note(request: Request, fields: RequestNote): void {
  const open = notes.get(request);
  if (open) Object.assign(open, fields);
}

/** `reply`, its failure's texts noted as the request's reason (a rejected lead's too, answered 200). */
export function noted(request: Request, reply: Reply): Reply {
  const { message } = reply.body;
  if (Array.isArray(message)) {
    const errors = message.map((item: { error: string }) => item.error);
    note(request, { reason: loggedReason(errors), errors });
  }
  return reply;
}
