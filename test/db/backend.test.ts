// The backend's small decisions: which database errors are "try again later" (503, not 500), and
// how the database setting is shown in logs and errors.
import { expect, test } from "bun:test";
import { databaseForDisplay, isDatabaseUnavailable, trackedWrites } from "../../src/backend/index.ts";
import type { PostgresStore } from "../../src/store/index.ts";
import { op } from "../../src/db/script.ts";

/** As drizzle throws them: its DrizzleQueryError around Bun SQL's PostgresError. */
const wrapped = (cause: object) => Object.assign(new Error("Failed query: select 1"), { cause: Object.assign(new Error("from the server"), cause) });

test("PostgreSQL away, shutting down, out of resources or failing I/O is unavailable (503)", () => {
  for (const errno of ["57P01", "57P02", "57P03", "08006", "08001", "53100", "53300", "58030"]) {
    expect([errno, isDatabaseUnavailable(wrapped({ code: "ERR_POSTGRES_SERVER_ERROR", errno }))]).toEqual([errno, true]);
  }
  for (const code of ["ERR_POSTGRES_CONNECTION_REFUSED", "ERR_POSTGRES_CONNECTION_CLOSED", "ERR_POSTGRES_CONNECTION_TIMEOUT"]) {
    expect([code, isDatabaseUnavailable(Object.assign(new Error("Failed to connect"), { code }))]).toEqual([code, true]);
    expect([code, isDatabaseUnavailable(wrapped({ code }))]).toEqual([code, true]);
  }
});

test("a statement's own error (a constraint, a syntax error) and a plain error are not: they stay 500", () => {
  for (const errno of ["23505", "42601", "40001"]) expect(isDatabaseUnavailable(wrapped({ code: "ERR_POSTGRES_SERVER_ERROR", errno }))).toBe(false);
  expect(isDatabaseUnavailable(new Error("boom"))).toBe(false);
  expect(isDatabaseUnavailable(null)).toBe(false);
});

test("SQLite busy, locked, full or failing I/O stays unavailable (503)", () => {
  for (const code of ["SQLITE_BUSY", "SQLITE_LOCKED", "SQLITE_FULL", "SQLITE_IOERR_FSYNC"])
    expect(isDatabaseUnavailable(Object.assign(new Error(code), { code }))).toBe(true);
  expect(isDatabaseUnavailable(Object.assign(new Error("constraint"), { code: "SQLITE_CONSTRAINT_UNIQUE" }))).toBe(false);
});

test("the database setting as logs show it: a URL's password masked, a file's path as it is", () => {
  expect(databaseForDisplay("postgres://lead:pa%24%24@db.internal:5432/leads?sslmode=require")).toBe(
    "postgres://lead:***@db.internal:5432/leads?sslmode=require",
  );
  expect(databaseForDisplay("postgresql://lead@db.internal/leads")).toBe("postgresql://lead@db.internal/leads");
  expect(databaseForDisplay("/var/lib/lead-ingress/lead-ingress.db")).toBe("/var/lib/lead-ingress/lead-ingress.db");
  expect(databaseForDisplay("postgres://lead:secret@[bad")).not.toContain("secret");
});

test("PostgreSQL's write failure (disk full) is reported once, and cleared by a probe write that really wrote, not by any write that succeeded (a claim with nothing due)", async () => {
  const diskFull = wrapped({ code: "ERR_POSTGRES_SERVER_ERROR", errno: "53100" });
  let writesFail = true;
  let probeFails = true;
  const store: PostgresStore = {
    read: async () => undefined as never,
    write: async (script) => {
      if (writesFail) throw diskFull;
      return (await script(undefined as never).next()).value as never;
    },
  };
  const reported: Error[] = [];
  const tracked = trackedWrites(
    store,
    async () => {
      if (probeFails) throw diskFull;
    },
    (error) => reported.push(error),
  );
  await expect(tracked.store.write(() => op(1))).rejects.toBe(diskFull);
  await expect(tracked.store.write(() => op(1))).rejects.toBe(diskFull);
  writesFail = false; // the worker's claim, nothing due: it commits without writing
  // biome-ignore lint/correctness/useYield: a write script that reads nothing (a claim with nothing due)
  await tracked.store.write(function* () {
    return [];
  });
  expect(await tracked.writeFailure()).toBe(diskFull);
  probeFails = false;
  expect(await tracked.writeFailure()).toBeNull();
  // Reported (logged as storage_failed, at error) once per run of failures.
  expect(reported).toEqual([diskFull]);
});
