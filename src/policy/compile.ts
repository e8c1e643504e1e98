// The policy's public surface: check a document (every problem by JSON path), compile it once, and
// ask the compiled policy what it answers for a request (docs/contract.md §10, docs/policy.md).
// Pure: the caller passes the time and the lead's facts; the database counts cap slots.
import {
  type CompiledCap,
  type CompiledRule,
  type CompiledSchedule,
  checkChecks,
  compileCaps,
  compileRules,
  compileSchedules,
  type EntryScope,
  foldCampaign,
} from "./entries.ts";
import type { RefusedBy } from "../intake/policy-port.ts";
import type { LeadFacts } from "./fields.ts";
import { isPlainObject, MAX_DEPTH, type Problem, schemaProblems, tooDeep } from "./problems.ts";
import { type Policy, PolicyDocument, REFERENCES } from "./schema.ts";
import { type CapSlot, CapWindows, NO_CAPS, ScopeSlots } from "./slots.ts";
import { type FailingRules, unrolled } from "./unrolled.ts";

export type { CapSlot } from "./slots.ts";

/** Who a request comes from: the vendor's name and its vendor_campaign_name (null when not sent, e.g. a bare prePing). */
export interface Scope {
  vendor: string;
  campaign: string | null;
}

/** What the policy answers before the database counts caps; its lists are shared when empty: read them, do not change them. */
export type Verdict = { kind: "closed"; reason: string } | { kind: "rules"; reasons: readonly string[] } | { kind: "pass"; caps: readonly CapSlot[] };

export interface CompiledPolicy {
  /** The document as given (rules export prints it unchanged). */
  readonly document: Policy;
  /** The reason of the first enabled schedule in scope that is closed at `at`, or null. */
  closedSchedule(scope: Scope, at: number): string | null;
  /** Every failing enabled intake rule's reason, in document order. */
  failingIntakeRules(scope: Scope, facts: LeadFacts, at: number): readonly string[];
  /** The same for final rules, with the §11 facts in `facts`; `receivedAt` is when the lead was received (received.*). */
  failingFinalRules(scope: Scope, facts: LeadFacts, receivedAt: number): readonly string[];
  /** The enabled caps of `counts` in scope, each in its window at `at`. */
  capsInScope(scope: Scope, counts: "leads" | "pings", at: number): readonly CapSlot[];
  /** postLead's answer before caps are counted: schedules, then intake rules, then the leads caps to count against. */
  intakeVerdict(scope: Scope, facts: LeadFacts, at: number): Verdict;
  /**
   * prePing's: schedules, then the intake rules whose fields are all known at prePing (phone, vendor,
   * campaign, received.*; those reading the campaign only when one is sent), then the caps: `leads`
   * caps to check for room and `pings` caps to count against.
   */
  prePingVerdict(scope: Scope, facts: LeadFacts, at: number): Verdict;
  /** Which entries intakeVerdict's refusal comes from: the closed schedule, or each failing intake rule in document order. */
  intakeRefusers(scope: Scope, facts: LeadFacts, at: number): readonly RefusedBy[];
  /** The enabled intake rules prePing judges when it carries a campaign, by name. */
  readonly prePingRules: readonly string[];
  /** Whether any enabled entry exists at all (the caller may skip the policy otherwise). */
  readonly active: boolean;
  /** Whether any enabled final rule exists (a decision reads the lead's fields only then). */
  readonly hasFinalRules: boolean;
}

export type PolicyCheck = { ok: true; policy: Policy } | { ok: false; problems: Problem[] };

/** Every problem of `value` as a policy document, structural and semantic, each by JSON path. */
export function checkPolicyDocument(value: unknown): PolicyCheck {
  const deep = tooDeep(value);
  if (deep !== null) return { ok: false, problems: [{ path: deep, message: `nests objects and lists deeper than ${MAX_DEPTH} levels` }] };
  const problems: Problem[] = [];
  schemaProblems(PolicyDocument, value, "", problems, REFERENCES);
  if (isPlainObject(value)) build(value, problems);
  return problems.length === 0 ? { ok: true, policy: value as Policy } : { ok: false, problems: inDocumentOrder(problems) };
}

const LISTS = ["rules", "schedules", "caps", "checks"];

/** Problems grouped by entry, lists in the document's order (stable within an entry). */
function inDocumentOrder(problems: Problem[]): Problem[] {
  const rank = (path: string): [number, number] => {
    const [, list = "", index = ""] = path.split("/");
    const at = LISTS.indexOf(list);
    return [at === -1 ? LISTS.length : at, /^[0-9]+$/.test(index) ? Number(index) : -1];
  };
  return problems
    .map((problem, order) => ({ problem, order, rank: rank(problem.path) }))
    .sort((a, b) => a.rank[0] - b.rank[0] || a.rank[1] - b.rank[1] || a.order - b.order)
    .map((item) => item.problem);
}

/** Compiles a document that checkPolicyDocument accepted; throws, naming the problems, on any other. */
export function compilePolicy(document: Policy): CompiledPolicy {
  const checked = checkPolicyDocument(document);
  if (!checked.ok) throw new Error(`Invalid policy document: ${checked.problems.map((problem) => `${problem.path}: ${problem.message}`).join("; ")}`);
  return build(document as unknown as Record<string, unknown>, []);
}

/** Whether a request of `vendor` and `campaign` (folded) is in an entry's scope. */
export const inScope = (entry: EntryScope, vendor: string, campaign: string | null): boolean =>
  (entry.vendors === null || entry.vendors.has(vendor)) && (entry.campaigns === null || (campaign !== null && entry.campaigns.has(campaign)));

// The answers of a request nothing refuses and no cap counts: shared, so that it allocates nothing.
const NO_REASONS: readonly string[] = Object.freeze([]);
const PASS: Verdict = Object.freeze({ kind: "pass", caps: NO_CAPS });

/** A scope's caps of one kind as slots at an instant, and its "pass" verdict, kept while the slots are the same list. */
class ScopeCaps {
  #verdict: Verdict = PASS;
  constructor(readonly slots: ScopeSlots) {}

  pass(at: number): Verdict {
    const caps = this.slots.at(at);
    if (caps === NO_CAPS) return PASS;
    if (this.#verdict.kind !== "pass" || this.#verdict.caps !== caps) this.#verdict = Object.freeze({ kind: "pass", caps });
    return this.#verdict;
  }
}

/**
 * What a request of one vendor and campaign is judged by: the enabled entries in its scope, in
 * document order, found once per compiled policy (so per policy version), not per request.
 */
interface ScopePlan {
  schedules: readonly CompiledSchedule[];
  intakeRules: FailingRules<CompiledRule>;
  finalRules: FailingRules<CompiledRule>;
  /** The intake rules a prePing of this scope judges (those reading the campaign only when it carries one). */
  prePingRules: FailingRules<CompiledRule>;
  leadsCaps: ScopeCaps;
  pingsCaps: ScopeCaps;
  /** Both kinds, in document order: prePing's. */
  allCaps: ScopeCaps;
}

/** Scopes are vendors (bounded) by campaigns as sent (not bounded): past this many plans, they are made again. */
const PLANS_LIMIT = 4_096;

function build(document: Record<string, unknown>, problems: Problem[]): CompiledPolicy {
  const checkNames = checkChecks(document, problems);
  const rules = compileRules(document, checkNames, problems);
  const schedules = compileSchedules(document, problems);
  const caps = compileCaps(document, problems);
  const windows = new Map<CompiledCap, CapWindows>(caps.map((cap) => [cap, new CapWindows(cap)]));

  // One function per list of rules, shared by the scopes whose list it is (most campaigns have the same).
  const ruleIndex = new Map(rules.map((rule, index) => [rule, index]));
  const functions = new Map<string, FailingRules<CompiledRule>>();
  const failingOf = (list: readonly CompiledRule[]): FailingRules<CompiledRule> => {
    const key = list.map((rule) => ruleIndex.get(rule)).join(",");
    let failing = functions.get(key);
    if (failing === undefined) functions.set(key, (failing = unrolled(list)));
    return failing;
  };
  const planFor = ({ vendor, campaign: sent }: Scope): ScopePlan => {
    const campaign = sent === null ? null : foldCampaign(sent);
    const scoped = <Entry extends EntryScope>(list: readonly Entry[]) => list.filter((entry) => inScope(entry, vendor, campaign));
    const intakeRules = scoped(rules).filter((rule) => rule.stage === "intake");
    const capsOf = (counts: "leads" | "pings" | null) =>
      new ScopeCaps(
        new ScopeSlots(
          scoped(caps)
            .filter((cap) => (counts === null || cap.counts === counts) && !(cap.each === "campaign" && campaign === null)) // a bare prePing has no campaign to count
            .map((cap) => ({ windows: windows.get(cap)!, bucket: cap.each === "vendor" ? vendor : cap.each === "campaign" ? (campaign ?? "") : "" })),
        ),
      );
    return {
      schedules: scoped(schedules),
      intakeRules: failingOf(intakeRules),
      finalRules: failingOf(scoped(rules).filter((rule) => rule.stage === "final")),
      prePingRules: failingOf(intakeRules.filter((rule) => rule.needs === "prePing" && (campaign !== null || !rule.readsCampaign))),
      leadsCaps: capsOf("leads"),
      pingsCaps: capsOf("pings"),
      allCaps: capsOf(null),
    };
  };
  const plans = new Map<string, Map<string | null, ScopePlan>>();
  let planCount = 0;
  const planOf = (scope: Scope): ScopePlan => {
    const known = plans.get(scope.vendor)?.get(scope.campaign);
    if (known !== undefined) return known;
    if (planCount >= PLANS_LIMIT) {
      plans.clear();
      planCount = 0;
    }
    const plan = planFor(scope);
    const byCampaign = plans.get(scope.vendor) ?? new Map<string | null, ScopePlan>();
    plans.set(scope.vendor, byCampaign.set(scope.campaign, plan));
    planCount++;
    return plan;
  };

  const closedEntry = (plan: ScopePlan, at: number): CompiledSchedule | null => {
    for (const schedule of plan.schedules) if (!schedule.openAt(at)) return schedule;
    return null;
  };
  const reasons = (failing: FailingRules<CompiledRule>, facts: LeadFacts, at: number): readonly string[] => {
    const failed = failing(facts, at);
    return failed.length === 0 ? NO_REASONS : failed.map((rule) => rule.reason(facts, at));
  };
  const verdict = (plan: ScopePlan, failing: FailingRules<CompiledRule>, caps: ScopeCaps, facts: LeadFacts, at: number): Verdict => {
    const closed = closedEntry(plan, at);
    if (closed !== null) return { kind: "closed", reason: closed.reason };
    const refusals = reasons(failing, facts, at);
    return refusals.length > 0 ? { kind: "rules", reasons: refusals } : caps.pass(at);
  };
  const capsOf = (plan: ScopePlan, counts: "leads" | "pings") => (counts === "leads" ? plan.leadsCaps : plan.pingsCaps);

  return {
    document: document as unknown as Policy,
    prePingRules: rules.filter((rule) => rule.stage === "intake" && rule.needs === "prePing").map((rule) => rule.name),
    active: rules.length + schedules.length + caps.length > 0,
    hasFinalRules: rules.some((rule) => rule.stage === "final"),
    closedSchedule: (scope, at) => closedEntry(planOf(scope), at)?.reason ?? null,
    failingIntakeRules: (scope, facts, at) => reasons(planOf(scope).intakeRules, facts, at),
    failingFinalRules: (scope, facts, at) => reasons(planOf(scope).finalRules, facts, at),
    capsInScope: (scope, counts, at) => capsOf(planOf(scope), counts).slots.at(at),
    // Asked again only for a refused request: the verdict's hot path allocates no names.
    intakeRefusers: (scope, facts, at) => {
      const plan = planOf(scope);
      const schedule = closedEntry(plan, at);
      if (schedule !== null) return [{ kind: "schedule", name: schedule.name }];
      return plan.intakeRules(facts, at).map((rule) => ({ kind: "rule", name: rule.name }));
    },
    intakeVerdict: (scope, facts, at) => {
      const plan = planOf(scope);
      return verdict(plan, plan.intakeRules, plan.leadsCaps, facts, at);
    },
    prePingVerdict: (scope, facts, at) => {
      const plan = planOf(scope);
      return verdict(plan, plan.prePingRules, plan.allCaps, facts, at);
    },
  };
}
