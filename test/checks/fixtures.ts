// Shared by the checks' tests: a check entry compiled as the policy would, a lead's facts, and a
// check client that answers as a test tells it and remembers what it was sent.
import { Cancel, compileCheck, type CompiledCheck, type HttpClient, type HttpTarget } from "../../src/checks/index.ts";
import { factsOfLead, type Check, type LeadFacts } from "../../src/policy/index.ts";

export const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
/** A public literal address: the address rules let it through without a lookup. */
export const PUBLIC_URL = "https://93.184.216.34/check";

export const check = (entry: Partial<Check> = {}): CompiledCheck => compileCheck({ name: "scrub", url: PUBLIC_URL, send: ["phone_number", "state"], ...entry });

export const lead = (phone = "+12125550123", extra: Record<string, unknown> = {}): LeadFacts =>
  factsOfLead("acme", { phoneE164: phone, state: "NY", vendorCampaignName: "Solar-Q4", email: "jane@example.com", extraData: '{"source":"web"}', ...extra });

export interface Sent {
  target: HttpTarget;
  cancel: Cancel;
  body: unknown;
  headers: Record<string, string>;
}

/**
 * A check client (http-client.ts's post) whose answer `answer` makes per request, as a Response
 * or a promise of one (its body past the limit reads as null, as the client's would); every request
 * is kept in `sent`.
 */
export function fakeClient(answer: (sent: Sent) => Response | Promise<Response>) {
  const sent: Sent[] = [];
  const client: HttpClient = {
    async post(target, headers, body, cancel, limit) {
      const request: Sent = { target, cancel, body: JSON.parse(body), headers };
      sent.push(request);
      const response = await answer(request);
      const text = await response.text();
      return { status: response.status, body: Buffer.byteLength(text) > limit ? null : text, reusable: true };
    },
    close: () => {},
  };
  return { client, sent };
}

/** A promise that settles only when `cancel` is cancelled (a service that hangs, as the client sees it). */
export const hang = (cancel: Cancel): Promise<Response> =>
  new Promise((_, reject) => {
    cancel.waiting = { cancelled: () => reject(new DOMException("aborted", "AbortError")) };
  });

/** A request's cancel, never cancelled. */
export const never = () => new Cancel();

/** A request's cancel, cancelled after `ms` (a caller's deadline). */
export function cancelAfter(ms: number): Cancel {
  const cancel = new Cancel();
  setTimeout(() => cancel.cancel(), ms);
  return cancel;
}

export const answer = (value: unknown, status = 200) => Response.json(value, { status });
