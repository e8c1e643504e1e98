// The callback of postLead as OpenAPI describes it: the final result POSTed to call_back_url, its
// two body shapes and the Standard Webhooks headers that sign it.
import pkg from "../../package.json" with { type: "json" };
import { LEAD_ACCEPTED, REASON_SUPPRESSED } from "../contract/texts.ts";
import { EXAMPLE_LEAD } from "../intake/lead-schema.ts";
import { EXAMPLE_LEAD_ID as LEAD_ID } from "./examples.ts";
import { ref } from "./schemas.ts";

const callbackHeader = (name: string, description: string, schema: object, example: string) => ({
  name,
  in: "header",
  required: true,
  description,
  schema,
  example,
});

const decided = {
  lead_id: LEAD_ID,
  phone_number: "+12125550123",
  vendor_campaign_name: EXAMPLE_LEAD.vendor_campaign_name,
  decided_at: "2026-03-01T12:01:00.000Z",
};

/** The final result, POSTed to the lead's call_back_url (docs/contract.md §8): postLead's OpenAPI `callbacks` entry. */
export const finalResultCallback = {
  "{$request.body#/call_back_url}": {
    post: {
      operationId: "finalResultCallback",
      summary: "The final result, sent to your call_back_url",
      // The formula is one code span: as text, the page took `<body>` for an HTML tag and dropped it.
      description: [
        "Sent once the lead is decided (after the hold period), signed per [Standard Webhooks](https://www.standardwebhooks.com). Verify it with your signing secret (the part after `whsec_`, base64-decoded) as `secret`:",
        '`webhook-signature = "v1," + base64(HMAC-SHA256(secret, "<webhook-id>.<webhook-timestamp>.<body>"))`',
        "where `<body>` is the request body exactly as received. Drop duplicates by `webhook-id`: delivery is at least once.",
        "Any 2xx within the attempt timeout (10 s by default) counts as delivered. Anything else is retried with exponential backoff and jitter (by default after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h); `410 Gone` stops retrying.",
      ].join("\n\n"),
      // Sent by us to the vendor: signed (below), not authenticated with a scheme of this API.
      security: [],
      parameters: [
        callbackHeader("webhook-id", "One id per callback, the same on every retry.", { type: "string" }, "msg_0193a5c27b1e7cc09a633f1d2e4b5a6a"),
        callbackHeader("webhook-timestamp", "Seconds since the epoch when this attempt was sent.", { type: "string", pattern: "^[0-9]+$" }, "1772366460"),
        callbackHeader(
          "webhook-signature",
          "`v1,` and the base64 HMAC-SHA256 signature. After your signing secret is rotated, and for the overlap the rotation announced (24 h by default), two such values separated by a space, the new secret's first: accept the callback when either matches your secret (Standard Webhooks libraries do).",
          { type: "string", pattern: "^v1," },
          "v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=",
        ),
        callbackHeader("User-Agent", "The service and its version.", { type: "string" }, `lead-ingress/${pkg.version}`),
      ],
      requestBody: {
        required: true,
        content: {
          "application/json": {
            schema: { oneOf: [ref("CallbackAccepted"), ref("CallbackRejected")] },
            examples: {
              accepted: { summary: "Accepted", value: { ...decided, success_bit: true, status: "accepted", message: LEAD_ACCEPTED } },
              rejected: { summary: "Rejected", value: { ...decided, success_bit: false, status: "rejected", message: [{ error: REASON_SUPPRESSED }] } },
            },
          },
        },
      },
      responses: {
        "2XX": { description: "Delivered: no more attempts." },
        410: { description: "Gone: no more attempts; the callback is recorded as dead." },
        default: { description: "Any other answer, or none within the timeout: retried later." },
      },
    },
  },
};
