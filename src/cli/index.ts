// The command line: `lead-ingress [serve] [flags]`, `migrate`, and the operator commands, which
// work on the service's database file, also while the service runs.
import { ConfigError, describeOptions, loadConfig, type Config } from "../config/index.ts";
import { VERSION } from "../config/build-info.ts";
import { openDatabase } from "../db/client.ts";
import { databaseKind } from "../db/kind.ts";
import { DatabaseOpenError, openMigratedPostgres } from "../backend/index.ts";
import { VendorError } from "../auth/vendors.ts";
import { DecisionError } from "../final-results/operator.ts";
import { createLogger } from "../log/index.ts";
import { MOCK_RECEIVER_HELP, mockReceiverCommand } from "./mock-receiver.ts";
import { REPLAY_HELP, replayCommand } from "./replay.ts";
import { backupCommand, BACKUP_HELP } from "./backup.ts";
import { BackupError } from "../db/backup.ts";
import { startServer } from "../server.ts";
import { StartCancelled } from "../backend/open-retrying.ts";
import { StartError } from "../http/listen-error.ts";
import { SuppressionError } from "../suppression/index.ts";
import { OperatorError, UsageError } from "./args.ts";
import { runGroup, type CliIo, type CommandGroup, type Progress } from "./command.ts";
import { callbacksGroup } from "./callbacks.ts";
import { leadsGroup } from "./leads.ts";
import { auditGroup } from "./audit.ts";
import { checksGroup } from "./checks.ts";
import { operatorsGroup } from "./operators.ts";
import { OperatorAccountError } from "../console/operators.ts";
import { rulesGroup } from "./rules.ts";
import { suppressGroup } from "./suppress.ts";
import { vendorsGroup } from "./vendors.ts";

export type { CliIo } from "./command.ts";

const GROUPS: CommandGroup[] = [vendorsGroup, suppressGroup, rulesGroup, checksGroup, leadsGroup, callbacksGroup, operatorsGroup, auditGroup];

const HELP = `lead-ingress: takes sales leads over HTTP, checks, stores and decides them, and calls vendors back.

Usage: lead-ingress [COMMAND] [options]
       lead-ingress --version

Commands:
  serve            Start the service (the default command).
  migrate          Create or migrate the database, then exit.
${GROUPS.map((g) => `  ${g.name.padEnd(15)}  ${g.about}`).join("\n")}
  backup FILE      Write a consistent copy of the database to FILE (safe while the service runs).
  mock-receiver    A mock vendor callback receiver for testing.
  replay DIR       Run the fixtures in DIR against a running instance and report each case.

'lead-ingress COMMAND --help' describes a command and its subcommands. Operator commands work on
the service's database (--database FILE or postgres://URL, or LEAD_INGRESS_DATABASE), also while
the service runs; list and show commands print tables, or JSON with --json.

Exit codes: 0 done; 1 failed (for example a CSV file with malformed rows: nothing was imported);
2 wrong usage, or a vendor, lead, callback or file that does not exist or cannot be changed so.

Options of serve and migrate (flag / environment variable):
${describeOptions()}`;

const MIGRATE_HELP = `Usage:
  lead-ingress migrate [--database FILE|postgres://URL]
      Creates the database if needed and applies pending migrations, then exits. serve does the same at start.`;

const COMMAND_HELP: Record<string, string> = {
  serve: HELP,
  migrate: MIGRATE_HELP,
  backup: BACKUP_HELP,
  "mock-receiver": MOCK_RECEIVER_HELP,
  replay: REPLAY_HELP,
};

/** Errors that are the operator's to fix: the message alone, on stderr, exit code 2. */
const OPERATOR_ERRORS = [ConfigError, UsageError, OperatorError, VendorError, SuppressionError, DecisionError, BackupError, OperatorAccountError];

/** Runs one command; resolves to the exit code (serve resolves when the server has stopped). */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const args = [...argv];
  if (args[0] === "--version") {
    io.print(`lead-ingress ${VERSION}`);
    return 0;
  }
  const command = args[0] !== undefined && !args[0].startsWith("-") ? args.shift()! : "serve";
  const config = (rest: string[]): Config => loadConfig(io.env, rest);
  try {
    const group = GROUPS.find((g) => g.name === command);
    if (group) return await runGroup(group, args, { ...io, progress: terminalProgress() });
    if (args.includes("--help") || args.includes("-h") || command === "help") {
      io.print(COMMAND_HELP[command] ?? HELP);
      return 0;
    }
    switch (command) {
      case "serve":
        return await serve(config(args), io);
      case "migrate":
        await migrate(config(args).databasePath);
        io.print("Database is migrated.");
        return 0;
      case "backup":
        return await backupCommand(args, config, io);
      case "mock-receiver":
        return await mockReceiverCommand(args, io.print);
      case "replay":
        return await replayCommand(args, io.print);
      default:
        throw new UsageError(`Unknown command: ${command} ('lead-ingress --help' lists the commands)`);
    }
  } catch (error) {
    if (error instanceof DatabaseOpenError) {
      // Not the operator's usage: the database is away. 1, so systemd's Restart=on-failure tries again.
      io.printError(error.message);
      return 1;
    }
    if (OPERATOR_ERRORS.some((type) => error instanceof type)) {
      io.printError((error as Error).message);
      return 2;
    }
    throw error;
  }
}

/** A status line redrawn in place, only when stdout is a terminal (never in pipes, files or logs). */
function terminalProgress(): Progress | null {
  if (!process.stdout.isTTY) return null;
  return {
    update: (text) => process.stdout.write(`\r${text}\x1b[K`),
    clear: () => process.stdout.write("\r\x1b[K"),
  };
}

/** Creates (SQLite) and migrates the database; on PostgreSQL under the instances' advisory lock. */
async function migrate(setting: string): Promise<void> {
  if (databaseKind(setting) === "postgres") await (await openMigratedPostgres(setting, 1)).close();
  else openDatabase(setting).close();
}

/**
 * Serves until SIGTERM or SIGINT. A signal while the service still waits for its database ends
 * the wait at once (exit 0); a setting the operator must change (a port, a host, a TLS file, the
 * SQLite folder) is one line naming it, exit 1: the flags parse, the world disagrees, and systemd's
 * Restart=on-failure may try again.
 */
async function serve(config: Config, io: CliIo): Promise<number> {
  const log = createLogger(config.logLevel);
  const cancelStart = new AbortController();
  let signalled: ((signal: string) => void) | undefined;
  const onSignal = (signal: string) => (signalled ? signalled(signal) : cancelStart.abort(signal));
  const onTerm = () => onSignal("SIGTERM");
  const onInt = () => onSignal("SIGINT");
  process.once("SIGTERM", onTerm);
  process.once("SIGINT", onInt);
  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    server = await startServer(config, log, {}, { signal: cancelStart.signal, notice: io.printError });
  } catch (error) {
    process.off("SIGTERM", onTerm);
    process.off("SIGINT", onInt);
    if (error instanceof StartCancelled) {
      log.info("stopped", { signal: String(cancelStart.signal.reason), before: "the database was reached", clean: true });
      return 0;
    }
    if (error instanceof StartError) {
      io.printError(error.message);
      return 1;
    }
    throw error;
  }
  return new Promise((resolve) => {
    // Non-zero when the database could not be closed cleanly (stop() always ends, within the timeout).
    signalled = (signal: string) => {
      log.info("shutting_down", { signal, timeout_ms: config.shutdownTimeoutMs, drain_ms: config.shutdownDrainMs });
      server.stop().then((outcome) => resolve(outcome.error ? 1 : 0));
    };
    // A signal after the database was reached but before the start finished: stop now.
    if (cancelStart.signal.aborted) signalled(String(cancelStart.signal.reason));
  });
}
