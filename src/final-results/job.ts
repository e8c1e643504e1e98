// The worker's first job: leads whose hold is over get their post-posting checks and move once to
// accepted or rejected; the callback row is released for delivery in the same transaction.
import { BACKGROUND } from "../db/group-commit.ts";
import { op } from "../db/script.ts";
import { maskPhone, type Logger } from "../log/index.ts";
import type { Answering, Store } from "../store/index.ts";
import type { DecisionBatches, DecisionRecord } from "../store/batches/index.ts";
import type { DueLead } from "../store/leads/index.ts";
import { callbackPayload } from "../callbacks/payload.ts";
import { storedReasons } from "../contract/rejection-reasons.ts";
import type { CompiledPolicy } from "../policy/index.ts";
import { certificateCheckMatters, decideFinalResult, type FinalResult } from "./decide.ts";
import { finalStageVerdict, hasFinalStage, readsCheckFindings } from "./checks.ts";
import { certificateJudgement, checksNow, NO_CERTIFICATE, recordIfStill, type CertificateCheck } from "./record.ts";
import { type CertificateSource, findingAtDecision } from "./trustedform.ts";
import { classifyCertificateUrl } from "../certificates/index.ts";

export type { CertificateCheck } from "./record.ts";
export type { DecisionBatches } from "../store/batches/index.ts";

export interface FinalResultJobDeps {
  /** The service's store: SQLite's or PostgreSQL's (reads may answer with promises). */
  store: Store<Answering, "promise">;
  clock: () => number;
  log: Logger;
  /** Verifies a certificate URL; null when verification is off. */
  verifyCertificate: ((url: string) => Promise<CertificateCheck>) | null;
  /** With a TrustedForm key: a TrustedForm certificate is judged by the evidence stored during the hold (certificates/job.ts), by this setting when there is none. */
  trustedForm?: { onUnreachable: "reject" | "accept" } | null;
  batchSize: number;
  leaseMs: number;
  /** Each lead recorded as decided, by its final status (a test lead's too: `lead.test` tells). */
  onDecided: (status: "accepted" | "rejected", lead: DueLead) => void;
  /** The policy in force (policy-in-force/loader.ts), whose final rules judge the leads no §7 check rejected; none: no final rules. */
  policy?: { current(): CompiledPolicy; version(): number };
  /** A claimed batch decided with one read and one write (store/batches/sqlite.ts, pg.ts); without it each lead is scripts of its own. */
  batches?: DecisionBatches;
}

/** The policy a pass decides by: null when it has no final rules nor final-stage checks (nothing more is read). */
interface RulesInForce {
  policy: CompiledPolicy | null;
  version: number;
}

export function createFinalResultJob(deps: FinalResultJobDeps) {
  const { store, log } = deps;

  /**
   * How the lead's certificate is judged. A TrustedForm certificate by its evidence, read with the
   * lead's other facts (no request now: it was asked during the hold). Any other URL by the
   * reachability check, a network call, so run before (never inside) the transaction.
   */
  async function certificateFor(lead: DueLead): Promise<CertificateSource> {
    if (!lead.certificateUrl) return NO_CERTIFICATE;
    if (deps.trustedForm) {
      const url = classifyCertificateUrl(lead.certificateUrl);
      if (url.kind !== "other") return { kind: "trustedform", onUnreachable: deps.trustedForm.onUnreachable, malformed: url.kind === "trustedform_malformed" };
    }
    if (!deps.verifyCertificate) return NO_CERTIFICATE;
    const checks = await store.read((t) => checksNow(t, lead, NO_CERTIFICATE));
    if (!checks || !certificateCheckMatters(checks)) return NO_CERTIFICATE;
    return { kind: "checked", check: await deps.verifyCertificate(lead.certificateUrl) };
  }

  /**
   * Logs the decision and flushes the log before the transaction that records it, so a kill -9
   * cannot leave a decided lead without its line. A line therefore tells what was being recorded;
   * if a crash or a change of the checks undoes it, the lead is decided again, with another line.
   */
  async function decideAndRecord(lead: DueLead, token: string, certificate: CertificateSource, rules: RulesInForce): Promise<void> {
    for (;;) {
      const checks = await store.read((t) => checksNow(t, lead, certificate, rules.policy));
      if (checks === null) return;
      const result = decideFinalResult(checks);
      logFinalResult(lead, result, rules, checks.acceptedUnverified === true);
      await log.flush();
      const now = deps.clock();
      const outcome = await store.write((t) => recordIfStill(t, lead, token, certificate, result, now, rules.policy), BACKGROUND);
      if (outcome === "recorded") deps.onDecided(result.status, lead);
      if (outcome !== "changed") return;
    }
  }

  /**
   * The batch's facts in one read, then its TrustedForm evidence (after the facts' version: evidence
   * stored after that read has bumped the version, so the write leaves the lead out), each lead
   * decided by the one rule (decide.ts), logged and flushed as one, recorded in one write fenced by
   * the facts' version. A leased lead the write did not record (its lease lost, its facts changed
   * meanwhile, the write failed) is decided again alone, as the per-lead path would; an unleased one
   * (readDue) is left to the next pass, and a failed write fails this one.
   */
  async function decideTogether(
    due: DueLead[],
    token: string,
    certificates: CertificateSource[],
    batches: DecisionBatches,
    rules: RulesInForce,
  ): Promise<void> {
    const { policy } = rules;
    const facts = await batches.checksOf(due, policy !== null);
    const { findings, intakeAnswers } = await findingsOf(due, certificates, policy);
    const now = deps.clock();
    const decided = due.flatMap((lead, i) => {
      const leadFacts = facts.get(lead.id);
      if (!leadFacts) return [];
      const judged = certificateJudgement(certificates[i]!, findings, lead.id);
      const final =
        policy && leadFacts.stored && certificateCheckMatters(leadFacts)
          ? finalStageVerdict(policy, lead, leadFacts.stored, findings, intakeAnswers.get(lead.id) ?? null, judged.facts)
          : {};
      const result = decideFinalResult({ ...leadFacts, certificate: judged.check, ...final });
      const acceptedUnverified = judged.acceptedUnverified === true && certificateCheckMatters(leadFacts);
      return [{ lead, result, certificate: certificates[i]!, factsVersion: leadFacts.version, acceptedUnverified }];
    });
    for (const { lead, result, acceptedUnverified } of decided) logFinalResult(lead, result, rules, acceptedUnverified);
    await log.flush();
    const leased = !batches.readDue;
    const records: DecisionRecord[] = decided.map(({ lead, result, factsVersion, certificate }) => ({
      lead,
      factsVersion,
      status: result.status,
      reason: result.status === "rejected" ? storedReasons(result.reasons) : null,
      payload: callbackPayload(lead, result, now),
      finding: findingAtDecision(certificate),
    }));
    const recording = batches.record(records, token, now);
    const recorded = leased ? await recording.catch(() => new Set<string>()) : await recording;
    await Promise.all(
      decided.map(({ lead, result, certificate }) => {
        if (recorded.has(lead.id)) return deps.onDecided(result.status, lead);
        if (leased) return decideAndRecord(lead, token, certificate, rules);
      }),
    );
  }

  /**
   * What a batch's decisions read besides its facts, after them (a finding stored since bumped the
   * lead's version, so the write leaves it out): the TrustedForm evidence of the leads judged by
   * it, the final-stage checks' answers when the policy has such checks, and the intake checks'
   * answers (never changed after intake) when it has final rules to read them.
   */
  async function findingsOf(due: DueLead[], certificates: CertificateSource[], policy: CompiledPolicy | null) {
    const ids = readsCheckFindings(policy) ? due.map((lead) => lead.id) : due.filter((_, i) => certificates[i]!.kind === "trustedform").map((lead) => lead.id);
    const findings = ids.length === 0 ? [] : await store.read((t) => op(t.findings.of(ids)));
    const intake = policy?.hasFinalRules ? await store.read((t) => op(t.findings.intakeAnswersOf(due.map((lead) => lead.id)))) : [];
    return { findings, intakeAnswers: new Map(intake.map((row) => [row.leadId, row.checkAnswers])) };
  }

  /** `acceptedUnverified`: the certificate passed by --trustedform-unreachable accept alone (the line says so: docs/certificates.md). */
  function logFinalResult(lead: DueLead, result: FinalResult, rules: RulesInForce, acceptedUnverified: boolean): void {
    log.info("final_result", {
      lead_id: lead.id,
      phone: maskPhone(lead.phoneE164),
      status: result.status,
      ...(result.status === "rejected" ? { reason: result.reasons.join("; ") } : {}),
      ...(result.status === "accepted" && acceptedUnverified ? { certificate: "accepted_unverified" } : {}),
      ...(rules.policy ? { policy_version: rules.version } : {}),
    });
  }

  /**
   * The policy a pass decides by, taken once: its read (the fields, only when there are final
   * rules), its decisions and any lead decided again alone use the same one, so each decision is
   * the policy's answer at one instant. A policy imported meanwhile is not a fact of the lead and
   * needs no fence: the decision stands as if made just before the import (docs/contract.md §10).
   */
  function rulesInForce(): RulesInForce {
    const policy = deps.policy?.current();
    return policy && hasFinalStage(policy) ? { policy, version: deps.policy!.version() } : { policy: null, version: 0 };
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
      const rules = rulesInForce();
      if (deps.batches) await decideTogether(due, token, certificates, deps.batches, rules);
      else await Promise.all(due.map((lead, i) => decideAndRecord(lead, token, certificates[i]!, rules)));
      return due.length;
    },
  };
}
