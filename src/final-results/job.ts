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

  /** The final result by the checks as they stand now (suppression, operator decision), or null if the lead is gone. */
  function decideNow(lead: DueLead, certificate: CertificateCheck): FinalResult | null {
    const checks = store.checksNow(lead.id);
    return checks && decideFinalResult({ suppressedNow: checks.suppressed === 1, operatorDecision: operatorDecisionOf(checks), certificate });
  }

  /**
   * Runs inside the transaction: records `result` if the checks still give it and `token` still
   * holds the lead. A suppression or an operator decision that landed since `result` was logged
   * makes it "changed", and nothing is written.
   */
  function recordIfStill(lead: DueLead, token: string, certificate: CertificateCheck, result: FinalResult, now: number): "recorded" | "changed" | "leaseLost" {
    const current = decideNow(lead, certificate);
    if (current === null) return "leaseLost";
    if (!Bun.deepEquals(current, result)) return "changed";
    return store.recordDecision(lead, token, result, now, callbackPayload(lead, result, now)) ? "recorded" : "leaseLost";
  }

  /**
   * Logs the decision and flushes the log before the transaction that records it, so a kill -9
   * cannot leave a decided lead without its line. A line therefore tells what was being recorded;
   * if a crash or a change of the checks undoes it, the lead is decided again, with another line.
   */
  async function decideAndRecord(lead: DueLead, token: string, certificate: CertificateCheck): Promise<void> {
    for (;;) {
      const result = decideNow(lead, certificate);
      if (result === null) return;
      logFinalResult(lead, result);
      await log.flush();
      const now = deps.clock();
      const outcome = await deps.commit.run(() => recordIfStill(lead, token, certificate, result, now), BACKGROUND);
      if (outcome === "recorded") deps.onDecided(result.status);
      if (outcome !== "changed") return;
    }
  }

  function logFinalResult(lead: DueLead, result: FinalResult): void {
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
      await Promise.all(due.map((lead, i) => decideAndRecord(lead, token, certificates[i]!)));
      return due.length;
    },
  };
}
