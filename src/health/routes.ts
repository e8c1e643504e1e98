// Liveness and readiness for load balancers and systemd (CONTRACT §9); no authentication.
import type { Database } from "bun:sqlite";
import { Elysia } from "elysia";
import { isMigrated } from "../db/migrate.ts";

function databaseReady(sqlite: Database): boolean {
  try {
    return isMigrated(sqlite);
  } catch {
    return false;
  }
}

/** `writeFailure`: the group committer's; why writes fail now (a failed WAL sync, a full disk), or null. */
export function healthRoutes(sqlite: Database, writeFailure: () => Error | null) {
  return new Elysia({ name: "health" })
    .get("/healthz", () => ({ status: "ok" }), { detail: { summary: "The process is alive", tags: ["Operations"] } })
    .get(
      "/readyz",
      ({ set }) => {
        const ready = databaseReady(sqlite) && writeFailure() === null;
        set.status = ready ? 200 : 503;
        return { status: ready ? "ready" : "not ready" };
      },
      { detail: { summary: "The database is open and migrated, and writes succeed (503 while the disk is full)", tags: ["Operations"] } },
    );
}
