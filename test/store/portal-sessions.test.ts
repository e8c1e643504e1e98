// The portal's sessions and sign-in links table, on both backends.
import { expect, test } from "bun:test";
import { op } from "../../src/db/script.ts";
import type { PortalSession } from "../../src/store/portal-sessions/index.ts";
import { describeOnBothBackends } from "../helpers/store-backends.ts";
import { vendorRow } from "../helpers/tables.ts";

const row = (tokenHash: string, kind: "session" | "link", expiresAt: number): PortalSession => ({
  tokenHash,
  vendorId: "acme",
  kind,
  csrfToken: kind === "session" ? "csrf" : "",
  createdAt: 0,
  expiresAt,
});

describeOnBothBackends("portal sessions", (backend) => {
  test("a session is live until it expires, and only while its vendor is enabled; a link is no session", async () => {
    const t = backend.tables;
    await t.vendors.insert(vendorRow("acme"));
    await t.portalSessions.insert(row("s", "session", 100));
    await t.portalSessions.insert(row("l", "link", 100));
    expect(await t.portalSessions.live("s", 50)).toEqual({ vendorId: "acme", vendorName: "acme", csrfToken: "csrf", expiresAt: 100 });
    expect(await t.portalSessions.live("s", 100)).toBeNull();
    expect(await t.portalSessions.live("l", 50)).toBeNull();
    await t.vendors.setEnabled("acme", false, 60);
    expect(await t.portalSessions.live("s", 70)).toBeNull();
  });

  test("a link is taken once, before it expires; a session is never taken as a link", async () => {
    const t = backend.tables;
    await t.portalSessions.insert(row("l", "link", 100));
    await t.portalSessions.insert(row("old", "link", 10));
    await t.portalSessions.insert(row("s", "session", 100));
    expect(await t.portalSessions.takeLink("old", 50)).toBeNull();
    expect(await t.portalSessions.takeLink("s", 50)).toBeNull();
    expect(await t.portalSessions.takeLink("l", 50)).toBe("acme");
    expect(await t.portalSessions.takeLink("l", 50)).toBeNull();
  });

  test("two writers taking the same link at once: one gets it", async () => {
    await backend.tables.portalSessions.insert(row("l", "link", 100));
    const taken = await Promise.all([1, 2].map(() => backend.store.write((t) => op(t.portalSessions.takeLink("l", 50)))));
    expect(taken.sort()).toEqual(["acme", null].sort());
  });

  test("purgeExpired forgets what expired, sessions and links alike", async () => {
    const t = backend.tables;
    await t.portalSessions.insert(row("a", "session", 10));
    await t.portalSessions.insert(row("b", "link", 10));
    await t.portalSessions.insert(row("c", "session", 100));
    expect(await t.portalSessions.purgeExpired(50)).toBe(2);
    expect(await backend.rows("SELECT token_hash FROM portal_sessions")).toEqual([{ token_hash: "c" }]);
  });
});
