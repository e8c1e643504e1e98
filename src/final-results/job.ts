// The worker's first job: leads whose hold is over get their post-posting checks and move once to
// accepted or rejected; the callback row is released for delivery in the same transaction.
import { BACKGROUND } from "../db/group-commit.ts";
import { op } from "../db/script.ts";
import { maskPhone, type Logger } from "../log/index.ts";
import type { Answering, Store } from "../store/index.ts";
import type { DecisionBatches, DecisionRecord } from "../store/batches/index.ts";
import type { DueLead } from "../store/leads/index.ts";
import { callbackPayload } from "../callbacks/payload.ts";
import { certificateCheckMatters, decideFinalResult, type FinalResult } from "./decide.ts";
import { checksNow, decideNow, recordIfStill, type CertificateCheck } from "./record.ts";

export type { CertificateCheck } from "./record.ts";
export type { DecisionBatches } from "../store/batches/index.ts";

export interface FinalResultJobDeps {
  /** The service's store: SQLite's or PostgreSQL's (reads may answer with promises). */
  store: Store<Answering, "promise">;
  clock: () => number;
  log: Logger;
  /** Verifies a certificate URL; null when verification is off. */
  verifyCertificate: ((url: string) => Promise<CertificateCheck>) | null;
  batchSize: number;
  leaseMs: number;
  /** Each lead recorded as decided, by its final status. */
  onDecided: (status: "accepted" | "rejected", leadId: string, vendorId: string) => void;
  /** A claimed batch decided with one read and one write (store/batches/sqlite.ts, pg.ts); without it each lead is scripts of its own. */
  batches?: DecisionBatches;
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
      if (outcome === "recorded") deps.onDecided(result.status, lead.id, lead.vendorId);
      if (outcome !== "changed") return;
    }
  }

  /**
   * The batch's facts in one read, each lead decided by the one rule (decide.ts), logged and
   * flushed as one, recorded in one write fenced by the facts' version. A leased lead the write did
   * not record (its lease lost, its facts changed meanwhile, the write failed) is decided again
   * alone, as the per-lead path would; an unleased one (readDue) is left to the next pass, and a
   * failed write fails this one.
   */
  async function decideTogether(due: DueLead[], token: string, certificates: CertificateCheck[], batches: DecisionBatches): Promise<void> {
    const facts = await batches.checksOf(due);
    const now = deps.clock();
    const decided = due.flatMap((lead, i) => {
      const leadFacts = facts.get(lead.id);
      if (!leadFacts) return [];
      const result = decideFinalResult({ ...leadFacts, certificate: certificates[i]! });
      return [{ lead, result, certificate: certificates[i]!, factsVersion: leadFacts.version }];
    });
    for (const { lead, result } of decided) logFinalResult(lead, result);
    await log.flush();
    const leased = !batches.readDue;
    const records: DecisionRecord[] = decided.map(({ lead, result, factsVersion }) => ({
      lead,
      factsVersion,
      status: result.status,
      reason: result.status === "rejected" ? result.reason : null,
      payload: callbackPayload(lead, result, now),
    }));
    const recording = batches.record(records, token, now);
    const recorded = leased ? await recording.catch(() => new Set<string>()) : await recording;
    await Promise.all(
      decided.map(({ lead, result, certificate }) => {
        if (recorded.has(lead.id)) return deps.onDecided(result.status, lead.id, lead.vendorId);
        if (leased) return decideAndRecord(lead, token, certificate);
      }),
    );
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
      const readDue = deps.batches?.readDue;
      const due = readDue
        ? await readDue(deps.clock(), deps.batchSize)
        : await store.write((t) => op(t.leads.claimDue(deps.clock(), deps.batchSize, deps.leaseMs, token)), BACKGROUND);
      if (due.length === 0) return 0;
      const certificates = await Promise.all(due.map(certificateFor));
      if (deps.batches) await decideTogether(due, token, certificates, deps.batches);
      else await Promise.all(due.map((lead, i) => decideAndRecord(lead, token, certificates[i]!)));
      return due.length;
    },
  };
}
