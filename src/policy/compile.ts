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
import { isOpen } from "./hours.ts";
import { isPlainObject, MAX_DEPTH, type Problem, schemaProblems, tooDeep } from "./problems.ts";
import { type Policy, PolicyDocument, REFERENCES } from "./schema.ts";
import { calendarWindow, zonedParts } from "./zoned.ts";
import { counterKeyOf } from "../store/cap-usage/index.ts";

/** Who a request comes from: the vendor's name and its vendor_campaign_name (null when not sent, e.g. a bare prePing). */
export interface Scope {
  vendor: string;
  campaign: string | null;
}

/** One cap a request in scope counts against, in its current window. */
export interface CapSlot {
  name: string;
  counts: "leads" | "pings";
  /** Whose count: the vendor's name, or the campaign folded (trimmed, lower-case), for an `each` cap; "" for a cap counted all together. */
  bucket: string;
  /** The window's first instant as an ISO-8601 UTC text: with name and bucket, the key of one counter. */
  windowKey: string;
  windowStart: number;
  windowEnd: number;
  max: number;
  reason: string;
  /** Seconds until the window ends, at least 1: the refusal's Retry-After. */
  retryAfterSeconds: number;
  /** Name, bucket and window start as one text: the counter's identity in memory (store/cap-usage counterKeyOf). */
  counterKey: string;
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
const NO_CAPS: readonly CapSlot[] = Object.freeze([]);
const NO_REASONS: readonly string[] = Object.freeze([]);
const PASS: Verdict = Object.freeze({ kind: "pass", caps: NO_CAPS });

interface WindowCache {
  start: number;
  end: number;
  key: string;
  /** The slots handed out in this window, by bucket, while their Retry-After is the same: reused, not rebuilt per request. */
  slots: Map<string, CapSlot>;
}

/** The cap's slot for `bucket` at `at`: the one handed out earlier in the same window and second, or a new one. */
function slotOf(cap: CompiledCap, window: WindowCache, bucket: string, at: number): CapSlot {
  if (at < window.start || at >= window.end) {
    const span = calendarWindow(cap.per, at, cap.timeZone);
    Object.assign(window, span, { key: new Date(span.start).toISOString() });
    window.slots.clear();
  }
  const retryAfterSeconds = Math.max(1, Math.ceil((window.end - at) / 1000));
  const known = window.slots.get(bucket);
  if (known !== undefined && known.retryAfterSeconds === retryAfterSeconds) return known;
  // Frozen: one object answers many requests.
  const slot: CapSlot = Object.freeze({
    name: cap.name,
    counts: cap.counts,
    bucket,
    windowKey: window.key,
    windowStart: window.start,
    windowEnd: window.end,
    max: cap.max,
    reason: cap.reason,
    retryAfterSeconds,
    counterKey: counterKeyOf(cap.name, bucket, window.start),
  });
  // Buckets are vendors or campaigns: bounded, but a window of many is cleared rather than kept.
  if (window.slots.size >= SLOTS_PER_WINDOW) window.slots.clear();
  window.slots.set(bucket, slot);
  return slot;
}

const SLOTS_PER_WINDOW = 10_000;

function build(document: Record<string, unknown>, problems: Problem[]): CompiledPolicy {
  const checkNames = checkChecks(document, problems);
  const rules = compileRules(document, checkNames, problems);
  const schedules = compileSchedules(document, problems);
  const caps = compileCaps(document, problems);
  const intakeRules = rules.filter((rule) => rule.stage === "intake");
  const finalRules = rules.filter((rule) => rule.stage === "final");
  const prePingRules = intakeRules.filter((rule) => rule.needs === "prePing");
  const prePingRulesWithoutCampaign = prePingRules.filter((rule) => !rule.readsCampaign);
  const windows = new Map<CompiledCap, WindowCache>(caps.map((cap) => [cap, { start: 0, end: 0, key: "", slots: new Map() }]));

  const closedEntry = (list: readonly CompiledSchedule[], vendor: string, campaign: string | null, at: number): CompiledSchedule | null => {
    for (const schedule of list) {
      if (!inScope(schedule, vendor, campaign)) continue;
      const local = zonedParts(at, schedule.timeZone);
      if (!isOpen(schedule.week[local.weekday]!, local.hour * 60 + local.minute)) return schedule;
    }
    return null;
  };
  const closed = (list: readonly CompiledSchedule[], vendor: string, campaign: string | null, at: number): string | null =>
    closedEntry(list, vendor, campaign, at)?.reason ?? null;
  const failing = (list: readonly CompiledRule[], vendor: string, campaign: string | null, facts: LeadFacts, at: number): readonly string[] => {
    let reasons: string[] | undefined;
    for (const rule of list) {
      if (inScope(rule, vendor, campaign) && !rule.require(facts, at)) (reasons ??= []).push(rule.reason(facts, at));
    }
    return reasons ?? NO_REASONS;
  };
  const slots = (counts: "leads" | "pings" | null, vendor: string, campaign: string | null, at: number): readonly CapSlot[] => {
    let found: CapSlot[] | undefined;
    for (const cap of caps) {
      if ((counts !== null && cap.counts !== counts) || !inScope(cap, vendor, campaign)) continue;
      if (cap.each === "campaign" && campaign === null) continue; // a bare prePing has no campaign to count
      (found ??= []).push(slotOf(cap, windows.get(cap)!, cap.each === "vendor" ? vendor : cap.each === "campaign" ? (campaign ?? "") : "", at));
    }
    return found ?? NO_CAPS;
  };
  const verdict = (ruleList: readonly CompiledRule[], counts: "leads" | null, scope: Scope, facts: LeadFacts, at: number): Verdict => {
    const campaign = scope.campaign === null ? null : foldCampaign(scope.campaign);
    const closedReason = closed(schedules, scope.vendor, campaign, at);
    if (closedReason !== null) return { kind: "closed", reason: closedReason };
    const reasons = failing(ruleList, scope.vendor, campaign, facts, at);
    if (reasons.length > 0) return { kind: "rules", reasons };
    const found = slots(counts, scope.vendor, campaign, at);
    return found === NO_CAPS ? PASS : { kind: "pass", caps: found };
  };
  const fold = (scope: Scope) => (scope.campaign === null ? null : foldCampaign(scope.campaign));

  return {
    document: document as unknown as Policy,
    prePingRules: prePingRules.map((rule) => rule.name),
    active: rules.length + schedules.length + caps.length > 0,
    hasFinalRules: finalRules.length > 0,
    closedSchedule: (scope, at) => closed(schedules, scope.vendor, fold(scope), at),
    failingIntakeRules: (scope, facts, at) => failing(intakeRules, scope.vendor, fold(scope), facts, at),
    failingFinalRules: (scope, facts, at) => failing(finalRules, scope.vendor, fold(scope), facts, at),
    capsInScope: (scope, counts, at) => slots(counts, scope.vendor, fold(scope), at),
    // Asked again only for a refused request: the verdict's hot path allocates no names.
    intakeRefusers: (scope, facts, at) => {
      const campaign = fold(scope);
      const schedule = closedEntry(schedules, scope.vendor, campaign, at);
      if (schedule !== null) return [{ kind: "schedule", name: schedule.name }];
      return intakeRules.filter((rule) => inScope(rule, scope.vendor, campaign) && !rule.require(facts, at)).map((rule) => ({ kind: "rule", name: rule.name }));
    },
    intakeVerdict: (scope, facts, at) => verdict(intakeRules, "leads", scope, facts, at),
    prePingVerdict: (scope, facts, at) => verdict(scope.campaign === null ? prePingRulesWithoutCampaign : prePingRules, null, scope, facts, at),
  };
}
