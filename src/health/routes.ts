// Liveness and readiness for load balancers and systemd (docs/contract.md §9); no authentication.
// Operators' routes: the README documents them, the vendors' API page does not show them.
import { Elysia } from "elysia";

const hide = { detail: { hide: true } };
const LIVE = { status: "ok" };
const READY = { status: "ready" };
const NOT_READY = { status: "not ready" };

/**
 * `ready`: the backend's (backend/index.ts): the database answers and is migrated, and writes
 * succeed (on SQLite not after a failed WAL sync or on a full disk).
 */
export function healthRoutes(ready: () => boolean | Promise<boolean>) {
  return new Elysia({ name: "health" })
    .get("/healthz", () => LIVE, hide)
    .get(
      "/readyz",
      async ({ set }) => {
        const isReady = await ready();
        set.status = isReady ? 200 : 503;
        return isReady ? READY : NOT_READY;
      },
      hide,
    );
}

/**
 * While the service waits for its database at start (server.ts): alive, not ready. Null for any
 * other path, which the caller answers 503 in its envelope.
 */
export function healthWhileStarting(path: string): Response | null {
  if (path === "/healthz") return Response.json(LIVE);
  if (path === "/readyz") return Response.json(NOT_READY, { status: 503 });
  return null;
}
