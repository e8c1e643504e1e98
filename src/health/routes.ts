// Liveness and readiness for load balancers and systemd (docs/contract.md §9); no authentication.
// Operators' routes: the README documents them, the vendors' API page does not show them.
import { Elysia } from "elysia";

const hide = { detail: { hide: true } };

/**
 * `ready`: the backend's (backend/index.ts): the database answers and is migrated, and writes
 * succeed (on SQLite not after a failed WAL sync or on a full disk).
 */
export function healthRoutes(ready: () => boolean | Promise<boolean>) {
  return new Elysia({ name: "health" })
    .get("/healthz", () => ({ status: "ok" }), hide)
    .get(
      "/readyz",
      async ({ set }) => {
        const isReady = await ready();
        set.status = isReady ? 200 : 503;
        return { status: isReady ? "ready" : "not ready" };
      },
      hide,
    );
}
