// `lead-ingress backup FILE`: a consistent copy of the live database (see src/db/backup.ts). On
// PostgreSQL the copy is pg_dump's, run when it is on PATH, else explained.
import type { Config } from "../config/index.ts";
import { databaseForDisplay } from "../backend/index.ts";
import { backupDatabase, BackupError, checkBackupTarget } from "../db/backup.ts";
import { databaseKind } from "../db/kind.ts";
import { takePositionals, UsageError } from "./args.ts";
import { withExistingDatabase, type CliIo } from "./command.ts";

export const BACKUP_HELP = `Usage:
  lead-ingress backup FILE [--database FILE|postgres://URL]
      Writes a consistent copy of the database to FILE (a new file; never overwritten), also while
      the service runs. Restore by stopping the service and putting the copy in place of the database.
      On PostgreSQL it runs pg_dump --format=custom (restore with pg_restore); without pg_dump on
      PATH it says how to run it.`;

export async function backupCommand(args: string[], loadConfig: (rest: string[]) => Config, io: Pick<CliIo, "env" | "print">): Promise<number> {
  const [target] = takePositionals(args, 1);
  if (!target) throw new UsageError(BACKUP_HELP);
  const { databasePath } = loadConfig(args);
  if (databaseKind(databasePath) === "postgres") return pgDump(databasePath, target, io);
  await withExistingDatabase(databasePath, (database) => database.kind === "sqlite" && backupDatabase(database.connection.sqlite, target), { migrate: false });
  io.print(`Backed up ${databasePath} to ${target}.`);
  return 0;
}

/**
 * pg_dump reads one snapshot, so the copy is consistent while the service runs. Its password goes
 * in the environment (PGPASSWORD) rather than on the command line, where `ps` would show it.
 */
async function pgDump(url: string, target: string, { env, print }: Pick<CliIo, "env" | "print">): Promise<number> {
  checkBackupTarget(target);
  const shown = databaseForDisplay(url);
  // Removed, not masked: a password in the URL overrides PGPASSWORD, so a masked one would log in as "***".
  const parsed = new URL(url);
  const password = decodeURIComponent(parsed.password);
  parsed.password = "";
  const pgDumpPath = Bun.which("pg_dump");
  if (!pgDumpPath) {
    throw new BackupError(
      `pg_dump is not on PATH. On PostgreSQL, back up with the server's own tool, also while the service runs:\n` +
        `  PGPASSWORD=… pg_dump --format=custom --file ${target} '${parsed}'\n` +
        `(install it with 'apt-get install postgresql-client'; restore with pg_restore --clean --dbname URL ${target}).`,
    );
  }
  const child = Bun.spawn([pgDumpPath, "--format=custom", "--file", target, parsed.toString()], {
    env: { ...env, ...(password ? { PGPASSWORD: password } : {}) },
    stdout: "ignore",
    stderr: "pipe",
  });
  const [code, err] = await Promise.all([child.exited, new Response(child.stderr).text()]);
  if (code !== 0) throw new BackupError(`pg_dump failed (exit ${code}): ${err.trim()}`);
  print(`Backed up ${shown} to ${target} with pg_dump (restore with pg_restore).`);
  return 0;
}
