// Liveness and readiness for load balancers and systemd (CONTRACT §9); no authentication.
import { Elysia } from "elysia";

/**
 * `ready`: the backend's (backend/index.ts): the database answers and is migrated, and writes
 * succeed (on SQLite not after a failed WAL sync or on a full disk).
 */
export function healthRoutes(ready: () => boolean | Promise<boolean>) {
  return new Elysia({ name: "health" })
    .get("/healthz", () => ({ status: "ok" }), { detail: { summary: "The process is alive", tags: ["Operations"] } })
    .get(
      "/readyz",
      async ({ set }) => {
        const isReady = await ready();
        set.status = isReady ? 200 : 503;
        return { status: isReady ? "ready" : "not ready" };
      },
      { detail: { summary: "The database answers and is migrated, and writes succeed (503 while the disk is full or PostgreSQL is unreachable)", tags: ["Operations"] } },
    );
}
