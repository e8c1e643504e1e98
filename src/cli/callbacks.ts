// `lead-ingress callbacks …`: see the callback queue and the paused endpoints, send dead or delivered
// callbacks again, and discard (acknowledge) dead ones.
import { CALLBACK_STATUSES } from "../db/schema.ts";
import {
  discardCallback,
  findCallbackDetail,
  listCallbacks,
  listPausedEndpoints,
  replayCallback,
  replayDeadCallbacks,
  retryCallbackNow,
} from "../operations/callbacks.ts";
import { describeCallbackOfLead, detailAsJson } from "./leads.ts";
import type { CommandGroup } from "./command.ts";
import { OperatorError, takeChoice, takeLimit, takePositionals, takeRequired, takeSwitch, takeTime, UsageError } from "./args.ts";
import { count, isoTime, json, printable, renderListing, tableTime, withIsoTimes } from "./output.ts";

const DEFAULT_LIMIT = 50;
const afterReplay = (what: "it" | "them") => `the running service sends ${what} within its poll interval (or at its next start), with the same webhook-id`;

export const callbacksGroup: CommandGroup = {
  name: "callbacks",
  about:
    "List callbacks (held, pending, delivered, dead) and show one with its attempts; list the endpoints paused after repeated failures; " +
    "retry a pending one now; send one, or every dead one, again; discard a dead one.",
  subcommands: {
    list: {
      args: `[--status ${CALLBACK_STATUSES.join("|")}] [--limit N] [--json]`,
      about: `Lists callbacks, most recently changed first (the latest ${DEFAULT_LIMIT} unless --limit says otherwise).`,
      async run(args, context) {
        const status = takeChoice(args, "--status", CALLBACK_STATUSES);
        const limit = takeLimit(args, DEFAULT_LIMIT);
        const asJson = takeSwitch(args, "--json");
        const callbacks = await context.useDatabase(args, (database) => listCallbacks(database.store, { status, limit }));
        const lines = renderListing(callbacks, {
          asJson,
          asJsonValue: withIsoTimes,
          empty: "No callbacks.",
          headers: ["UPDATED", "ID", "LEAD", "VENDOR", "STATUS", "ATTEMPTS", "NEXT ATTEMPT", "LAST ERROR", "URL"],
          row: (c) => [
            tableTime(c.updated_at),
            c.id,
            c.lead_id,
            c.vendor,
            c.discarded_at === null ? c.status : `${c.status} (discarded)`,
            String(c.attempt_count),
            tableTime(c.next_attempt_at),
            c.last_error ?? "",
            c.url,
          ],
        });
        for (const line of lines) context.print(line);
        if (!asJson && callbacks.length === limit) context.print(`(the latest ${count(limit)}; --limit N shows more)`);
        return 0;
      },
    },
    paused: {
      args: "[--json]",
      about:
        "Lists the callback endpoints (vendor, origin and path) paused after the attempts of several callbacks failed in a row, and when " +
        "each is tried again. Their callbacks wait meanwhile, unsent, with no attempt counted.",
      async run(args, context) {
        const asJson = takeSwitch(args, "--json");
        const paused = await context.useDatabase(args, (database) => listPausedEndpoints(database.store));
        const lines = renderListing(paused, {
          asJson,
          asJsonValue: (p) =>
            withIsoTimes({
              vendor: p.vendorName,
              endpoint: p.target,
              failures: p.failures,
              last_error: p.lastError,
              paused_at: p.pausedAt,
              paused_until: p.pausedUntil,
            }),
          empty: "No callback endpoint is paused.",
          headers: ["VENDOR", "ENDPOINT", "FAILURES", "PAUSED SINCE", "TRIED AGAIN AT", "LAST ERROR"],
          row: (p) => [p.vendorName ?? p.vendorId, p.target, String(p.failures), tableTime(p.pausedAt), tableTime(p.pausedUntil), p.lastError ?? ""],
        });
        // Errors may quote a receiver: a table line is printed with control characters escaped.
        for (const line of lines) context.print(asJson ? line : printable(line));
        if (!asJson && paused.length > 0)
          context.print("Then one callback goes as a probe: answered, the endpoint's waiting callbacks follow; failed, it is paused again for twice as long.");
        return 0;
      },
    },
    show: {
      args: "ID [--json]",
      about: "Shows a callback (ID: its id, i.e. its webhook-id, or its lead's id), every delivery attempt, and its lead's final result.",
      async run(args, context) {
        const id = takeRequired(args, "ID");
        const asJson = takeSwitch(args, "--json");
        const detail = await context.useDatabase(args, (database) => findCallbackDetail(database.store, id));
        if (!detail?.callback) throw new OperatorError(`No such callback: ${id} (give a callback id or its lead's id)`);
        if (asJson) context.print(json(detailAsJson(detail)));
        // Answer excerpts and errors come from receivers: printed only with control characters escaped.
        else for (const line of describeCallbackOfLead({ ...detail, callback: detail.callback })) context.print(printable(line));
        return 0;
      },
    },
    retry: {
      args: "ID",
      about:
        "Sends a pending callback now instead of at its scheduled retry (ID: the callback's id or its lead's id); the running service " +
        "sends it within its poll interval. Dead or delivered callbacks are replayed instead.",
      async run(args, context) {
        const id = takeRequired(args, "ID");
        const outcome = await context.useDatabase(args, (database) => retryCallbackNow(database.store, id, context.actor, Date.now()));
        if (outcome.kind === "missing") throw new OperatorError(`No such callback: ${id} (give a callback id or its lead's id)`);
        if (outcome.kind === "notPending")
          throw new OperatorError(
            outcome.status === "pending"
              ? `Callback ${outcome.callbackId} is being delivered right now; nothing changed.`
              : `Callback ${outcome.callbackId} is ${outcome.status}: only a pending callback can be retried (replay sends a dead or delivered one again).`,
          );
        context.print(`Callback ${outcome.callbackId} is due now; the running service sends it within its poll interval.`);
        return 0;
      },
    },
    discard: {
      args: "ID",
      about:
        "Acknowledges a dead callback (ID: the callback's id or its lead's id): it stays dead and `callbacks replay ID` can still send it, " +
        "but it no longer counts as waiting (lead_ingress_callbacks_dead, the DeadCallbacksWaiting alert) nor is sent by `replay --dead`.",
      async run(args, context) {
        const id = takeRequired(args, "ID");
        const outcome = await context.useDatabase(args, (database) => discardCallback(database.store, id, context.actor, Date.now()));
        if (outcome.kind === "missing") throw new OperatorError(`No such callback: ${id} (give a callback id or its lead's id)`);
        if (outcome.kind === "notDead")
          throw new OperatorError(
            outcome.status === "dead"
              ? `Callback ${outcome.callbackId} was discarded already; nothing changed.`
              : `Callback ${outcome.callbackId} is ${outcome.status}: only a dead callback can be discarded.`,
          );
        context.print(`Discarded dead callback ${outcome.callbackId}: it no longer counts as waiting; \`callbacks replay ${id}\` still sends it again.`);
        return 0;
      },
    },
    replay: {
      args: "ID | --dead [--since DURATION|TIME]",
      about:
        "Sends a dead or delivered callback again (ID: the callback's id, i.e. its webhook-id, or its lead's id), or every dead " +
        "callback not discarded with --dead; --since 2h or --since 2025-06-01T00:00:00Z keeps those that died since then. Prints how many.",
      async run(args, context) {
        const now = Date.now();
        const dead = takeSwitch(args, "--dead");
        const since = takeTime(args, "--since", now);
        const [id] = takePositionals(args, 1);
        if (dead === (id !== undefined)) throw new UsageError("Give either a callback ID or --dead");
        if (since !== undefined && !dead) throw new UsageError("--since goes with --dead");
        if (id === undefined) {
          const diedSince = since ?? null;
          const replayed = await context.useDatabase(args, (database) => replayDeadCallbacks(database.store, diedSince, context.actor, now));
          const which = diedSince === null ? "" : ` that died since ${isoTime(diedSince)}`;
          context.print(
            replayed === 0
              ? `No dead callbacks${which}; nothing was queued.`
              : `Queued ${count(replayed)} dead callback${replayed === 1 ? "" : "s"}${which} again; ${afterReplay(replayed === 1 ? "it" : "them")}.`,
          );
          return 0;
        }
        const outcome = await context.useDatabase(args, (database) => replayCallback(database.store, id, context.actor, now));
        if (outcome.kind === "missing") throw new OperatorError(`No such callback: ${id} (give a callback id or its lead's id)`);
        if (outcome.kind === "notFinished")
          throw new OperatorError(`Callback ${outcome.callbackId} is ${outcome.status}: only dead or delivered callbacks can be replayed.`);
        context.print(`Queued callback ${outcome.callbackId} again; ${afterReplay("it")}.`);
        return 0;
      },
    },
  },
};
