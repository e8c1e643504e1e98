// Consent certificates (docs/contract.md §11, docs/certificates.md): which certificate URLs are
// TrustedForm's, the v4 API request, the client, and the evidence and certificate.* facts of an answer.
// The worker's job that verifies them during the hold (job.ts) stores the evidence as the lead's
// finding (stored.ts); final-results/trustedform.ts judges the lead by it.
export {
  classifyCertificateUrl,
  claimsTrustedForm,
  isTrustedFormUrl,
  type CertificateUrlKind,
  trustedFormCertificateId,
  TRUSTEDFORM_CERT_HOST,
} from "./trustedform-url.ts";
export {
  certificateFacts,
  evidenceFromAnswer,
  MAX_RAW_CHARS,
  type CertificateEvidence,
  type CertificateFacts,
  type CertificateOutcome,
  type ProviderAnswer,
  type UnreachableProblem,
} from "./evidence.ts";
export { INSIGHTS_PROPERTIES, matchLeadPhone, trustedFormRequest, TRUSTEDFORM_DEFAULT_BASE_URL, type TrustedFormLead } from "./trustedform-request.ts";
export { createCertificateJob, type CertificateJobDeps } from "./job.ts";
export { evidenceOfFinding, NOT_ASKED_FINDING, TRUSTEDFORM_FINDING, trustedFormFindingOf } from "./stored.ts";
export { evidenceFields, evidenceView, type EvidenceView } from "./view.ts";
export {
  askTrustedForm,
  MAX_ANSWER_BYTES,
  trustedFormVerifier,
  type Fetch,
  type TrustedFormClientOptions,
  type TrustedFormVerifier,
} from "./trustedform-client.ts";
