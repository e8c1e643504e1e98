// `lead-ingress checks secret` (docs/checks.md "The signing secret"), on both backends: prints the
// checks signing secret, generated once; the same on every run, and the one stored for the service.
import { expect, test } from "bun:test";
import { ensureChecksSecret } from "../../src/checks/secret.ts";
import { cli, emptyDatabase, run } from "../helpers/cli.ts";
import { freshPgDatabase, openTestStore } from "../helpers/server.ts";

const BACKENDS = {
  SQLite: async () => {
    const temp = emptyDatabase();
    return { setting: temp.path, cleanup: temp.cleanup };
  },
  PostgreSQL: async () => {
    const url = await freshPgDatabase();
    expect((await run(["migrate", "--database", url])).code).toBe(0);
    return { setting: url, cleanup: () => {} };
  },
};

for (const [backend, createDatabase] of Object.entries(BACKENDS)) {
  test(`prints a whsec_ secret generated once: the same on every run, the one stored for the service (${backend})`, async () => {
    const database = await createDatabase();
    try {
      const first = await cli(database.setting, "checks", "secret");
      expect(first).toMatchObject({ code: 0, err: "" });
      const secret = first.out.trim();
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect((await cli(database.setting, "checks", "secret")).out.trim()).toBe(secret);
      const opened = await openTestStore(database.setting);
      try {
        expect(await ensureChecksSecret(opened.store)).toBe(secret);
      } finally {
        await opened.close();
      }
    } finally {
      database.cleanup();
    }
  });
}
