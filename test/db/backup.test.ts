import { expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { backupDatabase, BackupError } from "../../src/db/backup.ts";
import { openDatabase } from "../../src/db/client.ts";
import { tempDatabasePath } from "../helpers/server.ts";

test("backup copies committed data into one new file, and never overwrites", () => {
  const temp = tempDatabasePath();
  const live = openDatabase(temp.path);
  try {
    live.sqlite.run("INSERT INTO suppressions (phone_e164, reason, created_at) VALUES ('+12125550100', 'asked', 1)");
    const target = join(temp.path, "..", "copy.db");
    backupDatabase(live.sqlite, target);
    const copy = new Database(target, { readonly: true });
    expect(copy.query("SELECT phone_e164, reason FROM suppressions").all()).toEqual([{ phone_e164: "+12125550100", reason: "asked" }]);
    copy.close();
    expect(() => backupDatabase(live.sqlite, target)).toThrow(BackupError);
  } finally {
    live.close();
    temp.cleanup();
  }
});
