// The worker's certificate job (docs/contract.md §11, docs/certificates.md "Wiring"): during a
// lead's hold, its TrustedForm certificate is verified and the evidence stored with the lead, so
// the decision at the end of the hold reads it and sends nothing. A pass finds the pending leads
// with a TrustedForm certificate_url and no settled evidence, then claims and asks as every hold
// job does (hold/asking.ts: leased, `concurrency` at once, each answer stored as it comes, the pass
// never waiting for answers: a hanging TrustedForm holds back no other pass or instance). An
// unreachable answer is asked again with a backoff (hold/retry.ts) until the hold ends. Asking
// twice is harmless: TrustedForm's retain is idempotent per certificate.
import { BACKGROUND } from "../db/group-commit.ts";
import { op } from "../db/script.ts";
import type { Logger } from "../log/index.ts";
import type { Answering, Store } from "../store/index.ts";
import type { AskableLead } from "../store/findings/index.ts";
import type { CertificateOutcome } from "./evidence.ts";
import { claimAndAsk, Flight, storeFinding } from "../hold/asking.ts";
import { nextTryAt } from "../hold/retry.ts";
import { findingAnswer, TRUSTEDFORM_FINDING } from "./stored.ts";
import { TRUSTEDFORM_MALFORMED } from "../contract/texts.ts";
import type { TrustedFormVerifier } from "./trustedform-client.ts";
import { matchLeadPhone } from "./trustedform-request.ts";
import { classifyCertificateUrl, TRUSTEDFORM_CERT_HOST } from "./trustedform-url.ts";

export interface CertificateJobDeps {
  store: Store<Answering, "promise">;
  clock: () => number;
  log: Logger;
  verify: TrustedFormVerifier;
  /** Requests in flight at once. */
  concurrency: number;
  /** One request's bound (the client's timeout): the claim's lease outlives it. */
  timeoutMs: number;
  /** The full flight got a free place (the job loop's wake: leads may be waiting). */
  onRoom?: () => void;
  /** Each answer, and how long its request took. */
  onAnswer: (outcome: CertificateOutcome, seconds: number) => void;
}

const PREFIX = `https://${TRUSTEDFORM_CERT_HOST}/`;

export function createCertificateJob(deps: CertificateJobDeps) {
  const { store, clock, log } = deps;
  const stopping = new AbortController();
  /** The requests in flight: a pass never waits for them. */
  const flight = new Flight(deps.concurrency, deps.onRoom);
  const asking = { store, key: TRUSTEDFORM_FINDING, timeoutMs: deps.timeoutMs, flight, clock, signal: stopping.signal };

  /** Asks about one claimed lead and stores the answer. */
  async function verifyOne(lead: AskableLead, id: string, attempts: number): Promise<void> {
    const started = performance.now();
    const evidence = await deps.verify(
      id,
      { phone: matchLeadPhone(lead.phoneE164), email: lead.email || null, reference: lead.id, vendor: lead.vendorName },
      stopping.signal,
    );
    if (stopping.signal.aborted) return; // Shutting down: the claim runs out and another pass asks again.
    deps.onAnswer(evidence.outcome, (performance.now() - started) / 1000);
    const now = clock();
    const nextAt = evidence.outcome === "unreachable" ? nextTryAt(now, attempts, lead.decideAfter, deps.timeoutMs) : now;
    await store.write((t) => storeFinding(t, TRUSTEDFORM_FINDING, lead.id, findingAnswer(evidence, now, nextAt)), BACKGROUND);
    // The reason is the provider's or ours, never the key (certificates/trustedform-client.ts).
    const line = { lead_id: lead.id, outcome: evidence.outcome, attempt: attempts, ...(evidence.reason ? { reason: evidence.reason } : {}) };
    if (evidence.outcome === "unreachable") log.warn("certificate_unreachable", { ...line, next_try_at: new Date(nextAt).toISOString() });
    else log.info("certificate_verification", line);
  }

  /** A URL on TrustedForm's host that is not a certificate URL is settled at once, without a request. */
  async function settleMalformed(lead: AskableLead): Promise<void> {
    const now = clock();
    const answer = { outcome: "not_verified", reason: TRUSTEDFORM_MALFORMED, detail: null, raw: null, checkedAt: now, nextAt: now };
    await store.write((t) => op(t.findings.settleUnasked(TRUSTEDFORM_FINDING, lead.id, answer)), BACKGROUND);
  }

  return {
    /**
     * One pass over as many leads as the flight has room for; resolves to how many it started asking
     * about or settled, without waiting for the answers (settled()).
     */
    async runOnce(): Promise<number> {
      const now = clock();
      const found = await flight.read((room) => store.read((t) => op(t.findings.askableByCertificate(TRUSTEDFORM_FINDING, PREFIX, now, room))));
      const asked: (AskableLead & { certificateId: string })[] = [];
      const malformed: AskableLead[] = [];
      for (const lead of found) {
        const url = classifyCertificateUrl(lead.certificateUrl);
        if (url.kind === "trustedform") asked.push({ ...lead, certificateId: url.id });
        else malformed.push(lead);
      }
      for (const lead of malformed) await settleMalformed(lead);
      const claimed = await claimAndAsk(asking, asked, now, (lead, attempts) => verifyOne(lead, lead.certificateId, attempts));
      return claimed + malformed.length;
    },
    /** Resolves once the requests in flight now have ended, their answers stored. */
    settled: () => flight.settled(),
    /** Ends the requests in flight (their claims run out; the next instance or start asks again); resolves once they have. */
    stop(): Promise<void> {
      stopping.abort();
      return flight.settled();
    },
  };
}
