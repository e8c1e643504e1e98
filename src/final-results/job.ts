// The worker's first job: leads whose hold is over get their post-posting checks and move once to
// accepted or rejected; the callback row is released for delivery in the same transaction.
import { callbackPayload } from "../callbacks/payload.ts";
import { BACKGROUND, type GroupCommitter } from "../db/group-commit.ts";
import { maskPhone, type Logger } from "../log/index.ts";
import { certificateCheckMatters, decideFinalResult, type FinalResult, type PostPostingChecks } from "./decide.ts";
import type { DueLead, FinalResultStore } from "./store.ts";

export type CertificateCheck = PostPostingChecks["certificate"];

export interface FinalResultJobDeps {
  store: FinalResultStore;
  commit: GroupCommitter;
  clock: () => number;
  log: Logger;
  /** Verifies a certificate URL; null when verification is off. */
  verifyCertificate: ((url: string) => Promise<CertificateCheck>) | null;
  batchSize: number;
  leaseMs: number;
  onDecided: (status: "accepted" | "rejected") => void;
}

const operatorDecisionOf = (checks: { operator_decision: "accept" | "reject" | null; operator_reason: string | null }) =>
  checks.operator_decision ? { decision: checks.operator_decision, reason: checks.operator_reason } : null;

export function createFinalResultJob(deps: FinalResultJobDeps) {
  const { store, log } = deps;

  /** Certificate verification is a network call, so it runs before (never inside) the transaction. */
  async function certificateFor(lead: DueLead): Promise<CertificateCheck> {
    if (!deps.verifyCertificate || !lead.certificate_url) return null;
    const checks = store.checksNow(lead.id);
    if (!checks || !certificateCheckMatters({ suppressedNow: checks.suppressed === 1, operatorDecision: operatorDecisionOf(checks) })) return null;
    return deps.verifyCertificate(lead.certificate_url);
  }

  /**
   * Runs inside the transaction: suppression and operator decision are read as they are now.
   * Returns the decision it recorded (null if the lease was lost); the caller reports it once the
   * transaction has committed, so nothing is logged for a write that did not land.
   */
  function decideAndRecord(lead: DueLead, token: string, certificate: CertificateCheck): FinalResult | null {
    const checks = store.checksNow(lead.id);
    if (!checks) return null;
    const result = decideFinalResult({ suppressedNow: checks.suppressed === 1, operatorDecision: operatorDecisionOf(checks), certificate });
    const now = deps.clock();
    return store.recordDecision(lead, token, result, now, callbackPayload(lead, result, now)) ? result : null;
  }

  function reportDecided(lead: DueLead, result: FinalResult): void {
    deps.onDecided(result.status);
    log.info("final_result", {
      lead_id: lead.id,
      phone: maskPhone(lead.phone_e164),
      status: result.status,
      ...(result.status === "rejected" ? { reason: result.reason } : {}),
    });
  }

  return {
    /** Decides one batch of due leads; resolves to how many were claimed. */
    async runOnce(): Promise<number> {
      const token = crypto.randomUUID();
      const due = await deps.commit.run(() => store.claimDueLeads(deps.clock(), deps.batchSize, deps.leaseMs, token), BACKGROUND);
      if (due.length === 0) return 0;
      const certificates = await Promise.all(due.map(certificateFor));
      await Promise.all(
        due.map(async (lead, i) => {
          const result = await deps.commit.run(() => decideAndRecord(lead, token, certificates[i]!), BACKGROUND);
          if (result) reportDecided(lead, result);
        }),
      );
      return due.length;
    },
  };
}
