// The portal's Integration: the API's endpoint URLs and its documentation page, the vendor's callback
// signing secret's status, rotating it (the new secret shown once, on the answer to the POST, with
// when the old one stops signing: auth/vendors.ts rotateSigningSecret), and a test callback: a signed
// POST to a URL the vendor gives, through the callbacks' own attempt (callbacks/attempt.ts: the SSRF
// rules, the timeout, the first KiB of the answer), showing what the receiver answered; limited per
// vendor (test-callback-limit.ts), past which nothing is sent and the page answers 429.
import { findVendorByName, rotateSigningSecret, rotationConsequence, signingSecretStatus, VendorError } from "../auth/vendors.ts";
import { attemptDelivery, type AttemptResult } from "../callbacks/attempt.ts";
import { callbackMessageId, callbackPayload } from "../callbacks/payload.ts";
import { html, type Html } from "../console/html.ts";
import { actionButton, csrfField, noticeBox, problemBox, timeText } from "../console/page.ts";
import { portalPage, type PortalContext } from "./page.ts";
import { notFoundPage } from "./not-found.ts";
import type { LimitedSend } from "./test-callback-limit.ts";
import { portalActor } from "../portal-access/sessions.ts";

/** The phone number of a test callback: a fictional one (555-01xx). */
const TEST_PHONE = "+12125550100";
const MAX_URL_LENGTH = 2_000;

export async function integrationPage(context: PortalContext, extra: Html = html``, status = 200, headers: Record<string, string> = {}): Promise<Response> {
  const vendor = await findVendorByName(context.store, context.viewer.vendorName);
  if (!vendor) return notFoundPage(context);
  const base = context.settings.publicUrl?.replace(/\/$/, "") ?? context.url.origin;
  const endpoints = ["POST /v1/prePing", "POST /v1/postLead", "GET /v1/leads/{lead_id}"];
  const content = html`<h1>Integration</h1>
${extra}
<h2>Endpoints</h2>
<table id="endpoints"><tbody>${endpoints.map((endpoint) => {
    const [method, path] = endpoint.split(" ");
    return html`<tr><th>${method}</th><td class="mono">${base}${path}</td></tr>`;
  })}</tbody></table>
<p>HTTP Basic with your vendor name and password. Every field and answer: <a href="/swagger">the API page</a>.</p>
<h2>Callback signing secret</h2>
<p id="secret-status">${signingSecretStatus(vendor, context.now, timeText)}</p>
<p class="muted">Rotating makes a new secret, shown once. For ${overlapText(context.settings.signingSecretOverlapMs)} every callback carries both signatures in <span class="mono">webhook-signature</span>; then only the new one.</p>
${actionButton(context.viewer, "/portal/integration/rotate-secret", "Rotate the signing secret")}
<h2>Send a test callback</h2>
<p class="muted">A callback of a made-up accepted lead, with <span class="mono">"test": true</span>, signed with your secret, to the URL you give. Private addresses are refused as for real callbacks.</p>
<form class="filters" method="post" action="/portal/integration/test-callback">${csrfField(context.viewer)}
<label>URL<input name="url" type="url" required placeholder="https://example.com/callbacks" value="${context.form.get("url") ?? ""}"></label>
<button type="submit">Send</button>
</form>`;
  return portalPage("Integration", context.viewer, content, status, headers);
}

/** The overlap setting in words: hours when whole, else minutes, or seconds under a minute (never "0 min"). */
const overlapText = (ms: number) =>
  ms === 0 ? "no time at all" : ms % 3_600_000 === 0 ? `${ms / 3_600_000} h` : ms < 60_000 ? `${Math.ceil(ms / 1_000)} s` : `${Math.round(ms / 60_000)} min`;

/** POST /portal/integration/rotate-secret: the new secret, shown on this answer only. */
export async function rotateSecret(context: PortalContext): Promise<Response> {
  const { store, viewer, now, settings } = context;
  try {
    const rotated = await rotateSigningSecret(store, viewer.vendorName, portalActor(viewer.vendorName), settings.signingSecretOverlapMs, now);
    const shown = html`<div class="notice" role="status" id="new-secret"><p>Your new signing secret, shown only now:</p>
<p class="mono secret">${rotated.signingSecret}</p>
<p>${rotationConsequence(rotated, timeText)}</p></div>`;
    return integrationPage(context, shown);
  } catch (error) {
    if (error instanceof VendorError) return integrationPage(context, problemBox(error.message), 409);
    throw error;
  }
}

/** POST /portal/integration/test-callback (url): one signed attempt, and what the receiver answered. */
export async function sendTestCallback(context: PortalContext): Promise<Response> {
  const typed = context.form.get("url")?.trim() ?? "";
  if (!URL.canParse(typed) || !/^https?:$/.test(new URL(typed).protocol) || typed.length > MAX_URL_LENGTH)
    return integrationPage(context, problemBox("Give an http:// or https:// URL."), 400);
  const vendor = await findVendorByName(context.store, context.viewer.vendorName);
  if (!vendor) return notFoundPage(context);
  const leadId = Bun.randomUUIDv7();
  const payload = JSON.stringify({
    ...JSON.parse(callbackPayload({ id: leadId, phoneE164: TEST_PHONE, vendorCampaignName: "test" }, { status: "accepted" }, context.now)),
    test: true,
  });
  const { allowPrivateCallbacks, callbackTimeoutMs } = context.settings;
  const outcome = await context.testCallbackLimit.send(vendor.id, () =>
    attemptDelivery(
      { ...vendor, id: callbackMessageId(leadId), leadId, vendorId: vendor.id, url: typed, payload, attemptCount: 0 },
      { allowPrivate: allowPrivateCallbacks, timeoutMs: callbackTimeoutMs, clock: () => context.now },
    ),
  );
  if (!("sent" in outcome)) return testCallbackRefused(context, outcome);
  const result = outcome.sent;
  context.log.info("portal_test_callback", { vendor: vendor.name, status: result.statusCode, error: result.error });
  return integrationPage(context, testResult(typed, result));
}

/** 429: nothing sent; how long to wait (for one in flight, at most the callback timeout). */
async function testCallbackRefused(context: PortalContext, refused: Exclude<LimitedSend<unknown>, { sent: unknown }>): Promise<Response> {
  const waitSeconds = refused.refused === "budget" ? refused.waitSeconds : Math.ceil(context.settings.callbackTimeoutMs / 1000);
  const text =
    refused.refused === "budget"
      ? `Too many test callbacks: try again in ${waitSeconds} s.`
      : `A test callback is being sent already: try again when it is answered (within ${waitSeconds} s).`;
  context.log.warn("portal_test_callback_limited", { vendor: context.viewer.vendorName, reason: refused.refused, retryAfterSeconds: waitSeconds });
  return integrationPage(context, problemBox(text), 429, { "retry-after": String(waitSeconds) });
}

function testResult(url: string, result: AttemptResult): Html {
  const delivered = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
  return html`<section id="test-result">${delivered ? noticeBox(`Delivered: ${url} answered ${result.statusCode}.`) : problemBox(`Not delivered to ${url}: ${result.error ?? "no answer"}.`)}
<table class="fields"><tbody>
<tr><th>Status</th><td class="mono">${result.statusCode === null ? "—" : String(result.statusCode)}</td></tr>
<tr><th>Duration</th><td>${String(result.durationMs)} ms</td></tr>
<tr><th>Start of the answer</th><td class="mono">${result.responseExcerpt ?? ""}</td></tr>
</tbody></table></section>`;
}
