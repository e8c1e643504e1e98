// A consistent copy of the live database in one file, safe while the service runs (SQLite's
// VACUUM INTO reads one snapshot; copying the file could miss what is still in the WAL).
import type { Database } from "bun:sqlite";
import { existsSync, statSync } from "node:fs";
import { dirname } from "node:path";

export class BackupError extends Error {}

/** The target's own checks, said in the operator's words before any copy starts (both databases). */
export function checkBackupTarget(targetPath: string): void {
  if (existsSync(targetPath)) throw new BackupError(`Refusing to overwrite ${targetPath}: choose a new file name`);
  const folder = dirname(targetPath);
  if (!existsSync(folder) || !statSync(folder).isDirectory()) throw new BackupError(`Cannot write ${targetPath}: the folder ${folder} does not exist`);
}

export function backupDatabase(sqlite: Database, targetPath: string): void {
  checkBackupTarget(targetPath);
  try {
    sqlite.prepare("VACUUM INTO ?").run(targetPath);
  } catch (error) {
    // SQLite says only "unable to open database file" for a folder it may not write to.
    throw new BackupError(`Cannot write ${targetPath}: ${(error as Error).message}`);
  }
}
