// `lead-ingress backup FILE`: a consistent copy of the live database (see src/db/backup.ts).
import { existsSync } from "node:fs";
import type { Config } from "../config/index.ts";
import { backupDatabase } from "../db/backup.ts";
import { openDatabase } from "../db/client.ts";
import { OperatorError, takePositionals, UsageError } from "./args.ts";

export const BACKUP_HELP = `Usage:
  lead-ingress backup FILE [--database FILE]
      Writes a consistent copy of the database to FILE (a new file; never overwritten), also while
      the service runs. Restore by stopping the service and putting the copy in place of the database.`;

export function backupCommand(args: string[], loadConfig: (rest: string[]) => Config, print: (line: string) => void): number {
  const [target] = takePositionals(args, 1);
  if (!target) throw new UsageError(BACKUP_HELP);
  const { databasePath } = loadConfig(args);
  if (!existsSync(databasePath)) throw new OperatorError(`No database at ${databasePath}`);
  const database = openDatabase(databasePath, { migrate: false });
  try {
    backupDatabase(database.sqlite, target);
  } finally {
    // A plain close: the handle's checkpoint on close would compete with the running service.
    database.sqlite.close();
  }
  print(`Backed up ${databasePath} to ${target}.`);
  return 0;
}
