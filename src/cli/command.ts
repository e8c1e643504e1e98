// An operator command group (`vendors`, `suppress`, `leads`, `callbacks`): named subcommands, each
// with its own usage and --help, sharing how the service's database is found and opened.
import { existsSync } from "node:fs";
import { loadConfig } from "../config/index.ts";
import { DatabaseOpenError, databaseForDisplay } from "../backend/index.ts";
import { openDatabase, type OpenOptions } from "../db/client.ts";
import { databaseKind } from "../db/kind.ts";
import { openFailure, openPostgres } from "../db/pg/client.ts";
import { isMigrated } from "../db/pg/migrate.ts";
import type { OperatorDatabase } from "../store/index.ts";
import { postgresStore } from "../store/pg.ts";
import { storeOn } from "../store/sqlite.ts";
import { cliActor } from "../console/audit.ts";
import { takeFlag, UsageError, OperatorError } from "./args.ts";
import { processUserName } from "./os-user.ts";

export interface CliIo {
  env: Record<string, string | undefined>;
  print: (line: string) => void;
  printError: (line: string) => void;
}

/** Rewrites one status line in place; only given when stdout is a terminal. */
export interface Progress {
  update(text: string): void;
  clear(): void;
}

export interface CommandContext extends CliIo {
  progress: Progress | null;
  /** Who the audit log says made this command's changes: cli:USER, the process's user. */
  actor: string;
  /**
   * Opens the service's database (--database, else LEAD_INGRESS_DATABASE, else the default), runs
   * `use`, and closes it. Call it after taking every other argument: leftovers are a usage error.
   */
  useDatabase<T>(args: string[], use: (database: OperatorDatabase) => T | Promise<T>): Promise<T>;
}

export interface Subcommand {
  /** What follows the subcommand's name in its usage line: "NAME [--password PASSWORD]". */
  args: string;
  about: string;
  run(args: string[], context: CommandContext): Promise<number>;
}

export interface CommandGroup {
  name: string;
  about: string;
  subcommands: Record<string, Subcommand>;
}

const COMMON_OPTIONS = "Every subcommand also takes --database FILE|postgres://URL (default: $LEAD_INGRESS_DATABASE, else lead-ingress.db) and --help.";

/** Help text wrapped at word boundaries, indented under its usage line. */
function wrap(text: string, indent = "      ", width = 100): string {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line !== "" && indent.length + line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === "" ? word : `${line} ${word}`;
  }
  return [...lines, line].map((l) => `${indent}${l}`).join("\n");
}

const usageOf = (group: CommandGroup, name: string, sub: Subcommand) => `  lead-ingress ${group.name} ${name} ${sub.args}`.trimEnd();

function groupHelp(group: CommandGroup): string {
  const entries = Object.entries(group.subcommands).map(([name, sub]) => `${usageOf(group, name, sub)}\n${wrap(sub.about)}`);
  return `${group.about}\n\nUsage:\n${entries.join("\n")}\n\n${COMMON_OPTIONS}`;
}

function subcommandHelp(group: CommandGroup, name: string, sub: Subcommand): string {
  return `Usage:\n${usageOf(group, name, sub)}\n${wrap(sub.about)}\n\n${COMMON_OPTIONS}`;
}

/** Runs `<group> <subcommand> …`; a usage error comes back with the subcommand's usage line. */
export async function runGroup(group: CommandGroup, args: string[], io: CliIo & { progress: Progress | null }): Promise<number> {
  const name = args[0] !== undefined && !args[0].startsWith("-") ? args.shift()! : undefined;
  const help = args.includes("--help") || args.includes("-h");
  if (name === undefined && help) {
    io.print(groupHelp(group));
    return 0;
  }
  const sub = name !== undefined && Object.hasOwn(group.subcommands, name) ? group.subcommands[name] : undefined;
  if (name === undefined || !sub)
    throw new UsageError(`${name === undefined ? `Missing command after '${group.name}'` : `Unknown command: ${group.name} ${name}`}\n\n${groupHelp(group)}`);
  if (help) {
    io.print(subcommandHelp(group, name, sub));
    return 0;
  }
  try {
    const actor = cliActor(processUserName());
    return await sub.run(args, { ...io, actor, useDatabase: (rest, use) => useDatabase(io.env, rest, use) });
  } catch (error) {
    if (error instanceof UsageError) throw new UsageError(`${error.message}\n\nUsage:\n${usageOf(group, name, sub)}`);
    throw error;
  }
}

async function useDatabase<T>(env: CliIo["env"], rest: string[], use: (database: OperatorDatabase) => T | Promise<T>): Promise<T> {
  const flag = takeFlag(rest, "--database");
  if (rest.length > 0) throw new UsageError(`Unexpected argument(s): ${rest.join(" ")}`);
  return withExistingDatabase(loadConfig(env, flag === undefined ? [] : ["--database", flag]).databasePath, use);
}

/** Opens the database (a file's path or a postgres:// URL) for an operator command, runs `use`, and closes it. */
export async function withExistingDatabase<T>(setting: string, use: (database: OperatorDatabase) => T | Promise<T>, options?: OpenOptions): Promise<T> {
  if (databaseKind(setting) === "postgres") return withPostgres(setting, use, options);
  // Only serve and migrate create a database: an operator command run in the wrong folder must
  // not quietly make an empty one and report on that.
  if (!existsSync(setting))
    throw new OperatorError(`No database at ${setting}: pass --database FILE (or set LEAD_INGRESS_DATABASE), or create one with 'lead-ingress migrate'.`);
  const database = openExisting(setting, options);
  try {
    return await use({ kind: "sqlite", store: storeOn(database.db), connection: database });
  } finally {
    // Not database.close(): its TRUNCATE checkpoint would stall the running server's writers for
    // up to the busy timeout. SQLite checkpoints by itself when the last connection closes.
    database.sqlite.close();
  }
}

/** As PostgreSQL's is (openFailure), a file that cannot be opened is named, in one line, exit 1. */
function openExisting(path: string, options?: OpenOptions) {
  try {
    return openDatabase(path, options);
  } catch (error) {
    throw new DatabaseOpenError(`could not open the SQLite database ${path}: ${(error as Error).message}`, { cause: error });
  }
}

/** An operator command runs one statement at a time: two connections are plenty. */
const OPERATOR_POOL_SIZE = 2;

/** As on SQLite, a command never migrates (nor creates) a database: 'migrate' or 'serve' does. */
async function withPostgres<T>(url: string, use: (database: OperatorDatabase) => T | Promise<T>, options?: OpenOptions): Promise<T> {
  const postgres = await openPostgres(url, { poolSize: OPERATOR_POOL_SIZE, migrate: false });
  try {
    // Exit 1 with serve's message, as serve and migrate: the database is away, the usage is right.
    const migrated = await isMigrated(postgres.db).catch((error: unknown) => {
      throw new DatabaseOpenError(openFailure(url, error), { cause: error });
    });
    if (!migrated && options?.migrate !== false)
      throw new OperatorError(
        `The database at ${databaseForDisplay(url)} is not migrated: run 'lead-ingress migrate --database URL' or start the service first.`,
      );
    return await use({ kind: "postgres", store: postgresStore(postgres.db), connection: postgres });
  } finally {
    await postgres.close();
  }
}
