import { expect, test } from "bun:test";
import { databaseKind } from "../../src/db/kind.ts";

test("a postgres:// or postgresql:// URL names PostgreSQL; anything else is a SQLite path", () => {
  expect(databaseKind("postgres://app@db.internal:5432/leads")).toBe("postgres");
  expect(databaseKind("postgresql://app:secret@10.0.0.5/leads?sslmode=require")).toBe("postgres");
  expect(databaseKind("POSTGRES://app@db/leads")).toBe("postgres");
  expect(databaseKind("./data/lead-ingress.db")).toBe("sqlite");
  expect(databaseKind("/var/lib/lead-ingress/postgres.db")).toBe("sqlite");
  expect(databaseKind("postgres.db")).toBe("sqlite");
  expect(databaseKind(":memory:")).toBe("sqlite");
});
