// Each list of the document compiled into its entries, recording every problem the schema cannot
// state: names used twice in a list, unknown time zones, hours, fields, operator values, patterns,
// checks' URLs and fields. Tolerates a malformed entry (the schema's walk names what is wrong).
import { foldCampaign } from "../contract/campaigns.ts";
import { capReached, outsideHours, ruleRejected } from "../contract/texts.ts";
import { isHttpUrl, LEAD_FIELDS } from "../intake/lead-schema.ts";
import { type CompileContext, type Condition, compileCondition, compileTemplate, type Template } from "./conditions.ts";
import type { FieldStage } from "./fields.ts";
import { openAtInstant, parseHours, type Span, weekOf } from "./hours.ts";
import { isPlainObject, type Problem, pointer } from "./problems.ts";
import { EACH, PERIODS, type Period, WEEKDAYS, type Weekday } from "./schema.ts";
import { isTimeZone } from "./zoned.ts";

/** Who an entry applies to: vendor names exactly, campaigns folded; null means all. */
export interface EntryScope {
  vendors: ReadonlySet<string> | null;
  campaigns: ReadonlySet<string> | null;
}

export interface CompiledRule extends EntryScope {
  name: string;
  stage: "intake" | "final";
  /** What `require` says, compiled (a rule list is evaluated by unrolled.ts). */
  condition: Condition;
  reason: Template;
  /** The latest stage any field of the condition is known at ("prePing": judgeable at prePing). */
  needs: FieldStage;
  /** Whether the condition reads the campaign (prePing judges it only when one is sent). */
  readsCampaign: boolean;
}

export interface CompiledSchedule extends EntryScope {
  name: string;
  /** Whether the schedule is open at an instant (hours.ts openAtInstant). */
  openAt: (at: number) => boolean;
  reason: string;
}

export interface CompiledCap extends EntryScope {
  name: string;
  counts: "leads" | "pings";
  max: number;
  per: Period;
  timeZone: string;
  each: "vendor" | "campaign" | null;
  reason: string;
}

/** The one fold of campaigns, the contract's: the store keeps each lead's so (leads.campaign_folded). */
export { foldCampaign };

const texts = (value: unknown): string[] | null => (Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : null);

/** An entry's scope as compiled: vendor names exactly, campaigns folded (also the checks', src/checks/entry.ts). */
export function scopeOf(entry: Record<string, unknown>): EntryScope {
  const vendors = texts(entry.vendors);
  const campaigns = texts(entry.campaigns);
  return { vendors: vendors && new Set(vendors), campaigns: campaigns && new Set(campaigns.map(foldCampaign)) };
}

/** The entries of list `key` that are objects, with their paths; duplicate names are recorded. */
function entriesOf(document: Record<string, unknown>, key: string, problems: Problem[]): [Record<string, unknown>, string][] {
  const list = document[key];
  if (!Array.isArray(list)) return [];
  const firstPath = new Map<string, string>();
  const entries: [Record<string, unknown>, string][] = [];
  list.forEach((entry, index) => {
    const path = pointer(`/${key}`, index);
    if (!isPlainObject(entry)) return;
    if (typeof entry.name === "string") {
      const earlier = firstPath.get(entry.name);
      if (earlier === undefined) firstPath.set(entry.name, path);
      else problems.push({ path: pointer(path, "name"), message: `${JSON.stringify(entry.name)} is already the name of ${earlier}` });
    }
    entries.push([entry, path]);
  });
  return entries;
}

function timeZoneOf(entry: Record<string, unknown>, path: string, problems: Problem[]): string {
  const zone = entry.time_zone;
  if (zone === undefined) return "UTC";
  if (typeof zone !== "string") return "UTC";
  if (isTimeZone(zone)) return zone;
  problems.push({ path: pointer(path, "time_zone"), message: `is not a time zone (an IANA name such as America/New_York): ${zone}` });
  return "UTC";
}

const nameOf = (entry: Record<string, unknown>): string => (typeof entry.name === "string" ? entry.name : "");
const enabled = (entry: Record<string, unknown>): boolean => entry.enabled !== false;
const reasonText = (entry: Record<string, unknown>): string | undefined => (typeof entry.reason === "string" ? entry.reason : undefined);

export function compileRules(document: Record<string, unknown>, checkNames: ReadonlySet<string>, problems: Problem[]): CompiledRule[] {
  return entriesOf(document, "rules", problems).flatMap(([entry, path]) => {
    const stage = entry.stage === "final" ? "final" : "intake";
    const context: CompileContext = { stage, timeZone: timeZoneOf(entry, path, problems), checkNames, problems, latest: "prePing", readsCampaign: false };
    const condition = compileCondition(entry.require, pointer(path, "require"), context);
    const { latest: needs, readsCampaign } = context;
    const text = reasonText(entry);
    const name = nameOf(entry);
    const reason = text === undefined ? () => ruleRejected(name) : compileTemplate(text, pointer(path, "reason"), context);
    return enabled(entry) ? [{ ...scopeOf(entry), name, stage, condition, reason, needs, readsCampaign }] : [];
  });
}

export function compileSchedules(document: Record<string, unknown>, problems: Problem[]): CompiledSchedule[] {
  return entriesOf(document, "schedules", problems).flatMap(([entry, path]) => {
    const timeZone = timeZoneOf(entry, path, problems);
    const open: Partial<Record<Weekday, Span[]>> = {};
    if (isPlainObject(entry.open)) {
      for (const day of WEEKDAYS) {
        const text = entry.open[day];
        if (typeof text !== "string") continue;
        const spans = parseHours(text);
        if (typeof spans === "string") problems.push({ path: pointer(pointer(path, "open"), day), message: spans });
        else open[day] = spans;
      }
    }
    const name = nameOf(entry);
    const schedule = { ...scopeOf(entry), name, openAt: openAtInstant(weekOf(open), timeZone), reason: reasonText(entry) ?? outsideHours(name) };
    return enabled(entry) ? [schedule] : [];
  });
}

export function compileCaps(document: Record<string, unknown>, problems: Problem[]): CompiledCap[] {
  return entriesOf(document, "caps", problems).flatMap(([entry, path]) => {
    const timeZone = timeZoneOf(entry, path, problems);
    const name = nameOf(entry);
    const cap: CompiledCap = {
      ...scopeOf(entry),
      name,
      counts: entry.counts === "pings" ? "pings" : "leads",
      max: typeof entry.max === "number" ? entry.max : 0,
      per: (PERIODS as readonly unknown[]).includes(entry.per) ? (entry.per as Period) : "day",
      timeZone,
      each: (EACH as readonly unknown[]).includes(entry.each) ? (entry.each as "vendor" | "campaign") : null,
      reason: reasonText(entry) ?? capReached(name),
    };
    return enabled(entry) ? [cap] : [];
  });
}

/** The checks' names (for check.<name>.* fields); their URLs and fields are checked, they are not run yet. */
export function checkChecks(document: Record<string, unknown>, problems: Problem[]): Set<string> {
  const names = new Set<string>();
  for (const [entry, path] of entriesOf(document, "checks", problems)) {
    if (typeof entry.name === "string") names.add(entry.name);
    if (typeof entry.url === "string" && !isHttpUrl(entry.url)) problems.push({ path: pointer(path, "url"), message: `is not an http(s) URL: ${entry.url}` });
    const send = texts(entry.send) ?? [];
    send.forEach((field, index) => {
      if (!Object.hasOwn(LEAD_FIELDS, field) && field !== "extra_data")
        problems.push({ path: pointer(pointer(path, "send"), index), message: `is not a lead field: ${field}` });
    });
  }
  return names;
}
