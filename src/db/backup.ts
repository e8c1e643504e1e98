// A consistent copy of the live database in one file, safe while the service runs (SQLite's
// VACUUM INTO reads one snapshot; copying the file could miss what is still in the WAL).
import type { Database } from "bun:sqlite";
import { existsSync } from "node:fs";

export class BackupError extends Error {}

export function backupDatabase(sqlite: Database, targetPath: string): void {
  if (existsSync(targetPath)) throw new BackupError(`Refusing to overwrite ${targetPath}: choose a new file name`);
  sqlite.prepare("VACUUM INTO ?").run(targetPath);
}
