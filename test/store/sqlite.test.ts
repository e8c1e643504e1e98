// The SQLite store: scripts run as one transaction, on the service inside the group commit, on a
// connection of its own in an immediate transaction; reads answer at once.
import { expect, test } from "bun:test";
import { openDatabase } from "../../src/db/client.ts";
import { createGroupCommitter } from "../../src/db/group-commit.ts";
import { op, type Script } from "../../src/db/script.ts";
import type { Tables } from "../../src/store/index.ts";
import { groupCommittedStore, storeOn } from "../../src/store/sqlite.ts";

const PHONE = "+12125551234";

function* suppressThenFail(t: Tables): Script<never> {
  yield* op(t.suppressions.add({ phoneE164: PHONE, reason: null, createdAt: 0 }));
  throw new Error("later step failed");
}

test("a connection's store is built once, whichever form of the connection is given", () => {
  const database = openDatabase(":memory:");
  expect(storeOn(database.db)).toBe(storeOn(database.sqlite));
});

test("on a connection, a script that fails after a write leaves nothing written", () => {
  const store = storeOn(openDatabase(":memory:").db);
  expect(() => store.write(suppressThenFail)).toThrow("later step failed");
  expect(store.read((t) => op(t.suppressions.isListed(PHONE)))).toBe(false);
});

test("the service's store: a failed script rejects alone, a read answers at once, not with a promise", async () => {
  const database = openDatabase(":memory:");
  const store = groupCommittedStore(database.db, createGroupCommitter(database.sqlite));
  await expect(store.write(suppressThenFail)).rejects.toThrow("later step failed");
  const added = store.write((t) => op(t.suppressions.add({ phoneE164: "+13125550000", reason: null, createdAt: 0 })));
  await expect(added).resolves.toBe(true);
  const listed = store.read((t) => op(t.suppressions.isListed(PHONE)));
  expect(listed).toBe(false);
  expect(store.read((t) => op(t.suppressions.isListed("+13125550000")))).toBe(true);
});
