// `lead-ingress leads …`: read leads as the operator sees them, and decide one during its hold.
import { reasonsText } from "../contract/rejection-reasons.ts";
import { findVendorByName } from "../auth/vendors.ts";
import { LEAD_ACCEPTED, LEAD_REJECTED } from "../contract/texts.ts";
import { LEAD_STATUSES } from "../db/schema.ts";
import { recordOperatorDecision } from "../final-results/operator.ts";
import { findLeadDetail, findLeadsMatching, listLeads, type CallbackAttempt, type LeadDetail, type LeadSummary, type StoredLead } from "../operations/leads.ts";
import { e164OrNull } from "../suppression/index.ts";
import { clipped, FIELD_CHARS, truncationNote } from "../console/json-view.ts";
import type { StoredCallback } from "../store/callbacks/index.ts";
import { evidenceFields, evidenceView } from "../certificates/index.ts";
import type { CommandGroup } from "./command.ts";
import { OperatorError, takeChoice, takeFlag, takeLimit, takeRequired, takeSwitch, takeTime, UsageError } from "./args.ts";
import { count, isoTime, json, printable, renderFields, renderListing, tableTime, withIsoTimes } from "./output.ts";

const DEFAULT_LIMIT = 50;

export const leadsGroup: CommandGroup = {
  name: "leads",
  about: "List and show leads, with their final results and callback attempts; decide a lead during its hold.",
  subcommands: {
    list: {
      args: `[--status ${LEAD_STATUSES.join("|")}] [--vendor NAME] [--phone PHONE] [--campaign NAME] [--since TIME] [--until TIME] [--limit N] [--json]`,
      about:
        `Lists leads, newest first, with the rejection reason (the newest ${DEFAULT_LIMIT} unless --limit says otherwise). --phone takes any ` +
        "spelling; --since and --until take a duration back from now (2h, 7d) or an ISO 8601 time.",
      async run(args, context) {
        const now = Date.now();
        const status = takeChoice(args, "--status", LEAD_STATUSES);
        const vendorName = takeFlag(args, "--vendor");
        const phone = takeFlag(args, "--phone");
        const campaign = takeFlag(args, "--campaign");
        const createdFrom = takeTime(args, "--since", now);
        const createdBefore = takeTime(args, "--until", now);
        const limit = takeLimit(args, DEFAULT_LIMIT);
        const asJson = takeSwitch(args, "--json");
        const phoneE164 = phone === undefined ? undefined : (e164OrNull(phone) ?? undefined);
        if (phone !== undefined && phoneE164 === undefined) throw new UsageError(`--phone: not a valid US phone number: ${JSON.stringify(phone)}`);
        const leads = await context.useDatabase(args, async (database) => {
          if (vendorName !== undefined && !(await findVendorByName(database.store, vendorName))) throw new OperatorError(`No such vendor: ${vendorName}`);
          return listLeads(database.store, { status, vendorName, phoneE164, campaign, createdFrom, createdBefore, limit });
        });
        const lines = renderListing(leads, {
          asJson,
          asJsonValue: withIsoTimes,
          empty: "No leads.",
          headers: ["CREATED", "ID", "STATUS", "VENDOR", "PHONE", "CALLBACK", "CAMPAIGN", "REASON"],
          row: (l) => [
            tableTime(l.created_at),
            l.id,
            l.status,
            l.vendor,
            l.phone_e164,
            l.callback_status ?? "none",
            l.vendor_campaign_name,
            reasonsText(l.rejection_reason),
          ],
        });
        for (const line of lines) context.print(line);
        if (!asJson && leads.length === limit) context.print(`(the newest ${count(limit)}; --limit N shows more)`);
        return 0;
      },
    },
    show: {
      args: "LEAD_ID|ID_PREFIX|PHONE [--json]",
      about:
        "Shows every stored field of a lead, its final result, its callback and every delivery attempt. The lead is found by its id, the first digits of its id, or its phone number in any spelling; when several match, they are listed.",
      async run(args, context) {
        const wanted = takeRequired(args, "LEAD_ID|ID_PREFIX|PHONE");
        const asJson = takeSwitch(args, "--json");
        const detail = await context.useDatabase(args, async (database) => {
          const matches = await findLeadsMatching(database.store, wanted, AMBIGUOUS_SHOWN + 1);
          if (matches.length > 1) throw new OperatorError(ambiguity(wanted, matches));
          return matches[0] && findLeadDetail(database.store, matches[0].id);
        });
        if (!detail) throw new OperatorError(`No such lead: ${wanted}`);
        if (asJson) context.print(json(detailAsJson(detail)));
        // Stored values come from vendors and receivers: printed only with control characters escaped.
        else for (const line of describeLead(detail)) context.print(printable(line));
        return 0;
      },
    },
    decide: {
      args: "LEAD_ID accept|reject [--reason TEXT]",
      about: "Records an operator decision for a pending lead; it is applied when the hold period ends.",
      async run(args, context) {
        const leadId = takeRequired(args, "LEAD_ID");
        const decision = takeRequired(args, "accept|reject");
        if (decision !== "accept" && decision !== "reject") throw new UsageError(`The decision must be accept or reject; got ${JSON.stringify(decision)}`);
        const reason = takeFlag(args, "--reason") ?? null;
        await context.useDatabase(args, (database) => recordOperatorDecision(database.store, leadId, decision, reason, context.actor));
        context.print(`Recorded: lead ${leadId} will be ${decision === "accept" ? "accepted" : "rejected"} when its hold period ends.`);
        return 0;
      },
    },
  },
};

/** How many of the leads an ambiguous `leads show` matched are listed. */
const AMBIGUOUS_SHOWN = 10;

function ambiguity(wanted: string, matches: LeadSummary[]): string {
  const shown = matches.slice(0, AMBIGUOUS_SHOWN).map((l) => `  ${l.id}  ${isoTime(l.created_at)}  ${l.status}  ${l.vendor}  ${l.phone_e164}`);
  const more = matches.length > AMBIGUOUS_SHOWN ? "\n  …and more" : "";
  return `${matches.length > AMBIGUOUS_SHOWN ? `More than ${AMBIGUOUS_SHOWN}` : matches.length} leads match ${JSON.stringify(wanted)}; give the whole id:\n${shown.join("\n")}${more}`;
}

/** What the vendor is told (or will be): the callback's message, or null while pending. */
function finalMessage(lead: StoredLead): string | null {
  if (lead.status === "pending") return null;
  return lead.status === "accepted" ? LEAD_ACCEPTED : reasonsText(lead.rejection_reason) || LEAD_REJECTED;
}

/** Every stored value whole: JSON for programs is never cut (a string holds the stored JSON, so its depth costs nothing here). */
export function detailAsJson({ lead, callback, attempts, decisions, findings, checks }: LeadDetail) {
  return {
    certificate: evidenceView(findings, lead.status),
    checks,
    lead: withIsoTimes(lead),
    final_result: { status: lead.status, message: finalMessage(lead), decided_at: isoTime(lead.decided_at) },
    operator_decisions: decisions.map((entry) => ({ ...entry, at: isoTime(entry.at) })),
    callback: callback && withIsoTimes(callback),
    attempts: attempts.map(withIsoTimes),
  };
}

/** A stored value for the terminal: cut past FIELD_CHARS, as the console cuts it (a lead stored before today's limits can be huge). */
function fieldText(value: unknown): string | number | null {
  if (typeof value !== "string") return value as number | null;
  const view = clipped(value, FIELD_CHARS);
  return view.omittedBytes === 0 ? view.text : `${view.text} ${truncationNote(view.omittedBytes)} (--json shows all)`;
}

const storedFields = (row: object) =>
  renderFields(Object.entries(withIsoTimes(row)).map(([name, value]) => [name, fieldText(value)]) as [string, string | number | null][]);

const describeDecision = (entry: LeadDetail["decisions"][number]) => `  ${isoTime(entry.at)}  ${entry.actor}  ${entry.detail ?? ""}`.trimEnd();

function describeLead({ lead, callback, attempts, decisions, findings, checks }: LeadDetail): string[] {
  return [
    `Lead ${lead.id}`,
    ...storedFields(lead),
    "",
    "Final result",
    `  ${describeFinalResult(lead)}`,
    ...describeCertificate(evidenceView(findings, lead.status)),
    ...describeChecks(checks),
    ...(decisions.length > 0 ? ["", "Operator decisions", ...decisions.map(describeDecision)] : []),
    "",
    ...(callback
      ? describeCallback(callback, attempts)
      : ["Callback: none (the lead has no call_back_url; the vendor reads the result with GET /v1/leads/{lead_id})"]),
  ];
}

/** The certificate's evidence, when there is some: the provider's answer is cut like a stored field. */
function describeCertificate(view: ReturnType<typeof evidenceView>): string[] {
  if (!view) return [];
  return ["", "Consent certificate", ...renderFields([...evidenceFields(view), ["answer", fieldText(view.raw) as string | null]])];
}

/** Each check's answer, one line each: name, stage, outcome, reason (a final-stage one's requests and error after it). */
function describeChecks(checks: LeadDetail["checks"]): string[] {
  if (checks.length === 0) return [];
  const width = Math.max(...checks.map((view) => view.check.length));
  const line = (view: LeadDetail["checks"][number]) => {
    const asked =
      view.attempts === undefined ? "" : `  (${view.attempts} request${view.attempts === 1 ? "" : "s"}${view.error ? `, last error: ${view.error}` : ""})`;
    return `  ${view.check.padEnd(width)}  ${view.stage.padEnd(6)}  ${view.outcome.padEnd(7)}  ${view.reason ?? "—"}${asked}`;
  };
  return ["", "Checks", ...checks.map(line)];
}

/** `callbacks show`: the callback, every attempt, and the lead's final result it carries. */
export function describeCallbackOfLead({ lead, callback, attempts }: LeadDetail & { callback: StoredCallback }): string[] {
  return [...describeCallback(callback, attempts), "", `Lead ${lead.id} (vendor ${lead.vendor})`, `  ${describeFinalResult(lead)}`];
}

function describeCallback(callback: StoredCallback, attempts: CallbackAttempt[]): string[] {
  return [`Callback ${callback.id}`, ...storedFields(callback), "", `Attempts (${attempts.length})`, ...attempts.flatMap(describeAttempt)];
}

function describeFinalResult(lead: StoredLead): string {
  if (lead.status !== "pending") return `${lead.status} at ${isoTime(lead.decided_at)}: ${finalMessage(lead)}`;
  const decision = lead.operator_decision
    ? `; operator decision recorded: ${lead.operator_decision}${lead.operator_reason ? ` (${lead.operator_reason})` : ""}`
    : "";
  return `pending: decided after ${isoTime(lead.decide_after)}${decision}`;
}

function describeAttempt(attempt: CallbackAttempt): string[] {
  const answer = attempt.status_code === null ? "no answer" : `HTTP ${attempt.status_code}`;
  const error = attempt.error ? `  error: ${attempt.error}` : "";
  const excerpt = attempt.response_excerpt === null ? [] : [`      answer body: ${attempt.response_excerpt || "(empty)"}`];
  return [`  #${attempt.attempt_no}  ${isoTime(attempt.started_at)}  ${answer}  ${attempt.duration_ms} ms${error}`, ...excerpt];
}
