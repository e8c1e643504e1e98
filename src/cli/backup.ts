// `lead-ingress backup FILE`: a consistent copy of the live database (see src/db/backup.ts).
import type { Config } from "../config/index.ts";
import { backupDatabase } from "../db/backup.ts";
import { takePositionals, UsageError } from "./args.ts";
import { withExistingDatabase } from "./command.ts";

export const BACKUP_HELP = `Usage:
  lead-ingress backup FILE [--database FILE]
      Writes a consistent copy of the database to FILE (a new file; never overwritten), also while
      the service runs. Restore by stopping the service and putting the copy in place of the database.`;

export async function backupCommand(args: string[], loadConfig: (rest: string[]) => Config, print: (line: string) => void): Promise<number> {
  const [target] = takePositionals(args, 1);
  if (!target) throw new UsageError(BACKUP_HELP);
  const { databasePath } = loadConfig(args);
  await withExistingDatabase(databasePath, (database) => backupDatabase(database.sqlite, target), { migrate: false });
  print(`Backed up ${databasePath} to ${target}.`);
  return 0;
}
