// `lead-ingress suppress …`: the suppression (do-not-contact) list. Numbers are stored in E.164, so
// every spelling of a number is one entry.
import { basename } from "node:path";
import { addSuppression, findSuppression, listSuppressions, normalisePhone, removeSuppression } from "../suppression/index.ts";
import type { Suppression } from "../store/suppressions/index.ts";
import { importSuppressionCsv, type ImportProgress, type ImportResult } from "../suppression/import.ts";
import type { CommandContext, CommandGroup, Progress } from "./command.ts";
import { takeFlag, takeLimit, takeRequired, takeSwitch } from "./args.ts";
import { count, isoTime, json, printable, renderListing, tableTime } from "./output.ts";

/** `suppress list` shows this many numbers unless --limit says otherwise (the list may hold millions). */
const DEFAULT_LIST_LIMIT = 100;

/** Terminal progress is redrawn at most this often. */
const PROGRESS_INTERVAL_MS = 100;

export const suppressGroup: CommandGroup = {
  name: "suppress",
  about: "The suppression (do-not-contact) list: add, remove and list numbers; import a CSV file.",
  subcommands: {
    add: {
      args: "PHONE [--reason TEXT]",
      about:
        "Adds a US number (any spelling; stored as E.164). From now on the service refuses it (422), and pending leads with it " +
        "are rejected when their hold ends. Adding a listed number changes nothing.",
      async run(args, context) {
        const phone = normalisePhone(takeRequired(args, "PHONE"));
        const reason = takeFlag(args, "--reason")?.trim() || null;
        const added = await context.useDatabase(args, (database) => addSuppression(database.store, phone, reason, context.actor));
        context.print(added ? `Added ${phone} to the suppression list.` : `${phone} is already on the suppression list; nothing changed.`);
        return 0;
      },
    },
    remove: {
      args: "PHONE",
      about: "Removes a number. Removing a number that is not listed changes nothing.",
      async run(args, context) {
        const phone = normalisePhone(takeRequired(args, "PHONE"));
        const removed = await context.useDatabase(args, (database) => removeSuppression(database.store, phone, context.actor));
        context.print(removed ? `Removed ${phone} from the suppression list.` : `${phone} is not on the suppression list; nothing changed.`);
        return 0;
      },
    },
    check: {
      args: "PHONE [--json]",
      about: "Says whether a number (any spelling) is on the list, since when and why.",
      async run(args, context) {
        const phone = normalisePhone(takeRequired(args, "PHONE"));
        const asJson = takeSwitch(args, "--json");
        const entry = await context.useDatabase(args, (database) => findSuppression(database.store, phone));
        if (asJson) context.print(json({ phone, listed: entry !== null, ...(entry ? suppressionAsJson(entry) : {}) }));
        else if (!entry) context.print(`${phone} is not on the suppression list.`);
        else
          context.print(
            printable(`${phone} is on the suppression list since ${isoTime(entry.createdAt)}${entry.reason ? `: ${entry.reason}` : " (no reason given)"}.`),
          );
        return 0;
      },
    },
    list: {
      args: "[--limit N] [--json]",
      about: `Lists numbers by E.164, with when each was added and why (the first ${DEFAULT_LIST_LIMIT} unless --limit says otherwise).`,
      async run(args, context) {
        const limit = takeLimit(args, DEFAULT_LIST_LIMIT);
        const asJson = takeSwitch(args, "--json");
        const entries = await context.useDatabase(args, (database) => listSuppressions(database.store, limit));
        const lines = renderListing(entries, {
          asJson,
          asJsonValue: suppressionAsJson,
          empty: "The suppression list is empty.",
          headers: ["PHONE", "ADDED", "REASON"],
          row: (e) => [e.phoneE164, tableTime(e.createdAt), e.reason ?? ""],
        });
        for (const line of lines) context.print(line);
        if (!asJson && entries.length === limit) context.print(`(the first ${count(limit)} by number; --limit N shows more)`);
        return 0;
      },
    },
    import: {
      args: "FILE.csv",
      about:
        "Adds every number of a CSV file with a header row: a phone column and an optional reason column. All or nothing: " +
        "a malformed row is reported with its line number and then nothing is imported. Numbers already listed are counted and " +
        "left as they are, so importing a file again changes nothing. Streams files of any size; shows progress on a terminal.",
      async run(args, context) {
        const file = takeRequired(args, "FILE.csv");
        const started = performance.now();
        const progress = context.progress ? throttled(context.progress, basename(file)) : undefined;
        const result = await context
          .useDatabase(args, (database) => importSuppressionCsv(database, file, context.actor, { onProgress: progress }))
          .finally(() => context.progress?.clear());
        return reportImport(context, file, result, (performance.now() - started) / 1000);
      },
    },
  },
};

const suppressionAsJson = (e: Suppression) => ({ phone: e.phoneE164, reason: e.reason, created_at: isoTime(e.createdAt) });

function throttled(progress: Progress, name: string): (p: ImportProgress) => void {
  // -Infinity, not 0: performance.now() counts from the start of the process, and the compiled
  // binary can reach its first report within the interval, which then went unshown.
  let shownAt = -Infinity;
  return ({ bytesRead, totalBytes, rows }) => {
    if (performance.now() - shownAt < PROGRESS_INTERVAL_MS) return;
    shownAt = performance.now();
    const percent = totalBytes > 0 ? Math.floor((100 * bytesRead) / totalBytes) : 100;
    progress.update(`Reading ${name}: ${count(rows)} rows (${percent}%)`);
  };
}

function reportImport(context: CommandContext, file: string, result: ImportResult, seconds: number): number {
  if (result.kind === "malformed") {
    for (const problem of result.problems) context.printError(printable(`line ${problem.line}: ${problem.error}`));
    const unshown = result.problemCount - result.problems.length;
    if (unshown > 0) context.printError(`… and ${count(unshown)} more`);
    context.printError(`Nothing was imported: ${file} has ${count(result.problemCount)} malformed row${result.problemCount === 1 ? "" : "s"}.`);
    return 1;
  }
  context.print(
    `Imported ${file}: ${count(result.rows)} rows, ${count(result.added)} added, ${count(result.alreadyListed)} already listed (${seconds.toFixed(1)} s).`,
  );
  return 0;
}
