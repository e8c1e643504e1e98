// The worker's final-stage checks (docs/contract.md §11, docs/checks.md "At the final stage"):
// during a lead's hold, each `stage: "final"` check of the policy in force whose scope holds the
// lead is asked about it through the same runner as intake's (runner.ts: guard, cache, address
// rules, its timeout), the request carrying the lead's id and one webhook-id per lead and check on
// every retry (request.ts checkMessageId). Each answer is stored as the lead's finding of kind
// "check", named by the check (stored.ts), so the decision at the end of the hold reads it and
// sends nothing. An error is asked again with a backoff (hold/retry.ts) until the decision is due;
// then the check's on_error decides (final-results/checks.ts). The claiming is every hold job's
// (hold/asking.ts): instances on one PostgreSQL database ask once.
import { op } from "../db/script.ts";
import { claimAndAsk, Flight, storeFinding } from "../hold/asking.ts";
import { nextTryAt } from "../hold/retry.ts";
import { BACKGROUND } from "../db/group-commit.ts";
import type { Logger } from "../log/index.ts";
import { type CompiledPolicy, factsOfLead } from "../policy/index.ts";
import type { AskableCheckLead } from "../store/findings/index.ts";
import type { Answering, Store } from "../store/index.ts";
import { type CompiledCheck, checksInScope, stageChecksCompiler } from "./entry.ts";
import type { CheckResult, CheckRunner } from "./run.ts";
import { checkFinding, findingAnswerOf, scopeForDatabase } from "./stored.ts";

export interface FinalChecksJobDeps {
  store: Store<Answering, "promise">;
  clock: () => number;
  log: Logger;
  runner: CheckRunner;
  /** The policy in force, whose final-stage checks are asked. */
  policy: { current(): CompiledPolicy };
  /** Requests in flight at once, per check. */
  concurrency: number;
  /** A check's full flight got a free place (the job loop's wake: leads may be waiting). */
  onRoom?: () => void;
  /** Each result (metrics). */
  onResult: (result: CheckResult) => void;
}

export function createFinalChecksJob(deps: FinalChecksJobDeps) {
  const { store, clock, log } = deps;
  const stopping = new AbortController();
  const finalChecksOf = stageChecksCompiler("final");
  /** Each check's requests in flight, by its name: a pass never waits for them. */
  const flights = new Map<string, Flight>();
  const flightOf = (check: CompiledCheck) => flights.get(check.name) ?? flights.set(check.name, new Flight(deps.concurrency, deps.onRoom)).get(check.name)!;

  /** Asks `check` about one claimed lead and stores the answer. */
  async function askOne(check: CompiledCheck, lead: AskableCheckLead, attempts: number): Promise<void> {
    const [result] = await deps.runner.run([check], factsOfLead(lead.vendorName, lead.fields), lead.id);
    if (stopping.signal.aborted || !result) return; // Shutting down: the claim runs out and another pass asks again.
    deps.onResult(result);
    const now = clock();
    const { answer } = result;
    const nextAt = answer.outcome === "error" ? nextTryAt(now, attempts, lead.decideAfter, check.timeoutMs) : now;
    await store.write((t) => storeFinding(t, checkFinding(check.name), lead.id, findingAnswerOf(result, now, nextAt)), BACKGROUND);
    const line = { lead_id: lead.id, check: check.name, outcome: answer.outcome, attempt: attempts, stage: "final" };
    if (answer.outcome === "error") log.warn("check_error", { ...line, error: answer.error, next_try_at: new Date(nextAt).toISOString() });
    else log.info("check_answer", line);
  }

  /** Resolves once the requests in flight now have ended, their answers stored. */
  async function settled(): Promise<void> {
    await Promise.all([...flights.values()].map((flight) => flight.settled()));
  }

  /** One check's pass: the leads in its scope still to be asked, as many as its flight has room for, claimed and asked. */
  async function askAbout(check: CompiledCheck, now: number): Promise<number> {
    const key = checkFinding(check.name);
    const asking = { store, key, timeoutMs: check.timeoutMs, flight: flightOf(check), clock, signal: stopping.signal };
    const found = await asking.flight.read((room) => store.read((t) => op(t.findings.askableInScope(key, scopeForDatabase(check), now, room))));
    // The database's scope is the policy's (leads.campaign_folded), but for leads pending at drizzle/0023, folded by SQL's lower(): the policy has the last word.
    const leads = found.filter((lead) => checksInScope([check], "final", lead.vendorName, lead.fields.vendorCampaignName).length === 1);
    return await claimAndAsk(asking, leads, now, (lead, attempts) => askOne(check, lead, attempts));
  }

  return {
    /**
     * One pass over every final-stage check; resolves to how many leads it started asking about, without
     * waiting for their answers (settled()): one check's slow service holds back no other check.
     */
    async runOnce(): Promise<number> {
      const checks = finalChecksOf(deps.policy.current());
      if (checks.length === 0) return 0;
      const now = clock();
      const asked = await Promise.all(checks.map((check) => askAbout(check, now)));
      return asked.reduce((sum, n) => sum + n, 0);
    },
    settled,
    /** Ends the requests in flight (their claims run out; the next pass or instance asks again); resolves once they have. */
    stop(): Promise<void> {
      stopping.abort();
      return settled();
    },
  };
}
