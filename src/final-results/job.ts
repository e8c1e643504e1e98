// The worker's first job: leads whose hold is over get their post-posting checks and move once to
// accepted or rejected; the callback row is released for delivery in the same transaction.
import { BACKGROUND } from "../db/group-commit.ts";
import { op } from "../db/script.ts";
import { maskPhone, type Logger } from "../log/index.ts";
import type { Answering, Store } from "../store/index.ts";
import type { DueLead } from "../store/leads/index.ts";
import { certificateCheckMatters, type FinalResult } from "./decide.ts";
import { checksNow, decideNow, recordIfStill, type CertificateCheck } from "./record.ts";

export type { CertificateCheck } from "./record.ts";

export interface FinalResultJobDeps {
  /** The service's store: SQLite's or PostgreSQL's (reads may answer with promises). */
  store: Store<Answering, "promise">;
  clock: () => number;
  log: Logger;
  /** Verifies a certificate URL; null when verification is off. */
  verifyCertificate: ((url: string) => Promise<CertificateCheck>) | null;
  batchSize: number;
  leaseMs: number;
  onDecided: (status: "accepted" | "rejected") => void;
}

export function createFinalResultJob(deps: FinalResultJobDeps) {
  const { store, log } = deps;

  /** Certificate verification is a network call, so it runs before (never inside) the transaction. */
  async function certificateFor(lead: DueLead): Promise<CertificateCheck> {
    if (!deps.verifyCertificate || !lead.certificateUrl) return null;
    const checks = await store.read((t) => checksNow(t, lead));
    if (!checks || !certificateCheckMatters(checks)) return null;
    return deps.verifyCertificate(lead.certificateUrl);
  }

  /**
   * Logs the decision and flushes the log before the transaction that records it, so a kill -9
   * cannot leave a decided lead without its line. A line therefore tells what was being recorded;
   * if a crash or a change of the checks undoes it, the lead is decided again, with another line.
   */
  async function decideAndRecord(lead: DueLead, token: string, certificate: CertificateCheck): Promise<void> {
    for (;;) {
      const result = await store.read((t) => decideNow(t, lead, certificate));
      if (result === null) return;
      logFinalResult(lead, result);
      await log.flush();
      const now = deps.clock();
      const outcome = await store.write((t) => recordIfStill(t, lead, token, certificate, result, now), BACKGROUND);
      if (outcome === "recorded") deps.onDecided(result.status);
      if (outcome !== "changed") return;
    }
  }

  function logFinalResult(lead: DueLead, result: FinalResult): void {
    log.info("final_result", {
      lead_id: lead.id,
      phone: maskPhone(lead.phoneE164),
      status: result.status,
      ...(result.status === "rejected" ? { reason: result.reason } : {}),
    });
  }

  return {
    /** Decides one batch of due leads; resolves to how many were claimed. */
    async runOnce(): Promise<number> {
      const token = crypto.randomUUID();
      const due = await store.write((t) => op(t.leads.claimDue(deps.clock(), deps.batchSize, deps.leaseMs, token)), BACKGROUND);
      if (due.length === 0) return 0;
      const certificates = await Promise.all(due.map(certificateFor));
      await Promise.all(due.map((lead, i) => decideAndRecord(lead, token, certificates[i]!)));
      return due.length;
    },
  };
}
