// Every operator command that changes state writes its audit entry under the OS user (cli:USER, the
// process's user, also when $USER is unset),
// in the change's own transaction: `audit list` shows it, and a command that changed nothing or
// failed leaves no entry. On SQLite and on PostgreSQL.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { listAudit } from "../../src/console/audit.ts";
import { op } from "../../src/db/script.ts";
import type { Store } from "../../src/store/index.ts";
import { freshPgDatabase, openTestStore } from "../helpers/server.ts";
import { pendingLead } from "../helpers/tables.ts";
import { productCommand } from "../helpers/process.ts";
import { OS_ACTOR } from "./os-actor.ts";
import { cli, emptyDatabase, run } from "../helpers/cli.ts";

const ACTOR = OS_ACTOR;

/** A migrated database on each backend: its setting (what --database takes), and how it goes. */
const BACKENDS = {
  SQLite: async () => {
    const temp = emptyDatabase();
    return {
      setting: temp.path,
      cleanup: temp.cleanup,
      refuseAudit: [`CREATE TRIGGER refuse_audit BEFORE INSERT ON audit_log BEGIN SELECT RAISE(ABORT, 'refused'); END`],
    };
  },
  PostgreSQL: async () => {
    const url = await freshPgDatabase();
    expect((await run(["migrate", "--database", url])).code).toBe(0);
    const refuseAudit = [
      "CREATE FUNCTION refuse_audit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused'; END $$",
      "CREATE TRIGGER refuse_audit BEFORE INSERT ON audit_log FOR EACH ROW EXECUTE FUNCTION refuse_audit()",
    ];
    return { setting: url, cleanup: () => {}, refuseAudit };
  },
};

for (const [backend, createDatabase] of Object.entries(BACKENDS)) {
  describe(`audit entries of the CLI's changes (${backend})`, () => {
    let database: Awaited<ReturnType<typeof createDatabase>>;
    let opened: Awaited<ReturnType<typeof openTestStore>>;
    let store: Store;
    let folder: string;
    beforeAll(async () => {
      database = await createDatabase();
      opened = await openTestStore(database.setting);
      store = opened.store;
      folder = mkdtempSync(join(tmpdir(), "lead-ingress-audit-"));
    });
    afterAll(async () => {
      await opened.close();
      database.cleanup();
      rmSync(folder, { recursive: true, force: true });
    });

    const command = (...args: string[]) => cli(database.setting, ...args);
    const newestEntries = async (n: number) => JSON.parse((await command("audit", "list", "--json", "--limit", String(n))).out) as unknown[];
    const entry = (action: string, subject: string, detail: string | null = null) => ({
      at: expect.stringMatching(/Z$/),
      actor: ACTOR,
      action,
      subject,
      detail,
    });

    // How many entries there are before a command, read in-process: `audit list` is asked once, for
    // those after it (a process started per command is most of this file's time).
    const entryCount = async () => (await listAudit(store, 1_000)).length;

    /** Runs a command; answers its exit code and the audit entries it wrote, as `audit list` shows them, oldest first. */
    async function changes(...args: string[]): Promise<{ code: number; entries: unknown[] }> {
      const before = await entryCount();
      const { code } = await command(...args);
      const after = await newestEntries(1_000);
      return { code, entries: after.slice(0, after.length - before).reverse() };
    }
    const recorded = (...entries: unknown[]) => ({ code: 0, entries });
    const nothingRecorded = (code: number) => ({ code, entries: [] });

    /** A pending lead of the vendor, written as intake writes it; with a callback when `callbackUrl` is given. */
    async function vendorsPendingLead(vendorName: string, phoneE164: string, callbackUrl?: string): Promise<string> {
      const vendor = (await store.read((t) => op(t.vendors.findByName(vendorName))))!;
      return store.write((t) => pendingLead(t, { vendorId: vendor.id, phoneE164, callbackUrl }));
    }

    /** The callback's attempt fails for good, as the worker would record it. */
    async function killCallback(leadId: string): Promise<void> {
      const now = Date.now() + 1;
      await store.write(function* (t) {
        const [due] = yield* op(t.callbacks.claimDue(now, 100, 60_000, "test"));
        expect(due?.leadId).toBe(leadId);
        const attempt = { startedAt: now, durationMs: 1, statusCode: 410, error: "HTTP 410", responseExcerpt: null };
        yield* op(t.callbacks.recordAttempt(due!, "test", attempt, { kind: "dead" }, now));
      });
    }

    test("vendors add, disable, enable, rotate-password and rotate-secret", async () => {
      expect(await changes("vendors", "add", "acme", "--password", "acme-password")).toEqual(recorded(entry("vendor.add", "acme")));
      expect(await changes("vendors", "disable", "acme")).toEqual(recorded(entry("vendor.disable", "acme")));
      expect(await changes("vendors", "enable", "acme")).toEqual(recorded(entry("vendor.enable", "acme")));
      expect(await changes("vendors", "rotate-password", "acme")).toEqual(recorded(entry("vendor.rotate-password", "acme")));
      expect(await changes("vendors", "rotate-secret", "acme")).toEqual(
        recorded(entry("vendor.rotate-secret", "acme", expect.stringMatching(/^old secret signs until \d{4}-\d\d-\d\dT[\d:.]+Z$/))),
      );
      expect(await changes("vendors", "rotate-secret", "acme", "--signing-secret-overlap", "0s")).toEqual(
        recorded(entry("vendor.rotate-secret", "acme", "old secret stopped at once")),
      );
      expect(await changes("vendors", "disable", "ghost")).toEqual(nothingRecorded(2));
    });

    test("suppress add (with its reason), remove and import (with its counts); a change that changed nothing is not recorded", async () => {
      expect(await changes("suppress", "add", "(212) 555-0142", "--reason", "asked by phone")).toEqual(
        recorded(entry("suppression.add", "+12125550142", "asked by phone")),
      );
      expect(await changes("suppress", "add", "212-555-0142")).toEqual(nothingRecorded(0));
      const file = join(folder, "do-not-call.csv");
      await Bun.write(file, "phone,reason\n2125550142,again\n2125550143,new\n");
      expect(await changes("suppress", "import", file)).toEqual(recorded(entry("suppression.import", "do-not-call.csv", "2 rows, 1 added, 1 already listed")));
      expect(await changes("suppress", "remove", "2125550143")).toEqual(recorded(entry("suppression.remove", "+12125550143")));
      expect(await changes("suppress", "remove", "2125550143")).toEqual(nothingRecorded(0));
    });

    test("leads decide, with the decision and its reason", async () => {
      await command("vendors", "add", "deciding", "--password", "deciding-password");
      const leadId = await vendorsPendingLead("deciding", "+12125550150");
      expect(await changes("leads", "decide", leadId, "reject", "--reason", "duplicate in CRM")).toEqual(
        recorded(entry("lead.decide", leadId, "reject: duplicate in CRM")),
      );
      expect(await changes("leads", "decide", Bun.randomUUIDv7(), "accept")).toEqual(nothingRecorded(2));
    });

    test("callbacks retry, replay ID and replay --dead, each under the callback's lead", async () => {
      await command("vendors", "add", "calling", "--password", "calling-password");
      const leadId = await vendorsPendingLead("calling", "+12125550160", "https://example.com/hook");
      await store.write((t) => op(t.callbacks.release(leadId, "{}", Date.now())));
      expect(await changes("callbacks", "retry", `msg_${leadId}`)).toEqual(recorded(entry("callback.retry", leadId)));
      await killCallback(leadId);
      expect(await changes("callbacks", "retry", leadId)).toEqual(nothingRecorded(2));
      expect(await changes("callbacks", "replay", `msg_${leadId}`)).toEqual(recorded(entry("callback.replay", leadId)));
      await killCallback(leadId);
      expect(await changes("callbacks", "replay", "--dead")).toEqual(recorded(entry("callback.replay-dead", "dead callbacks", "1 queued")));
      expect(await changes("callbacks", "replay", "--dead")).toEqual(nothingRecorded(0));
    });

    test("without $USER or $LOGNAME, the entry still names the process's user, not cli:unknown", async () => {
      const env = Object.fromEntries(Object.entries(Bun.env).filter(([name]) => name !== "USER" && name !== "LOGNAME"));
      const before = await entryCount();
      const child = Bun.spawn([...productCommand(), "suppress", "add", "2125550180", "--database", database.setting], { env, stdout: "pipe", stderr: "pipe" });
      expect(await child.exited).toBe(0);
      const after = await newestEntries(1_000);
      expect(after.slice(0, after.length - before)).toEqual([entry("suppression.add", "+12125550180")]);
      expect(ACTOR).not.toBe("cli:unknown");
    });

    test("audit list --actor, --action, --since and --until select the entries, as the console's filter does", async () => {
      await command("vendors", "add", "filtered", "--password", "filtered-password");
      await command("vendors", "disable", "filtered");
      await command("suppress", "add", "2125550190");
      const listed = async (...flags: string[]) =>
        (JSON.parse((await command("audit", "list", "--json", ...flags)).out) as { action: string; subject: string }[]).map((e) => `${e.action} ${e.subject}`);
      expect(await listed("--action", "vendor", "--limit", "2")).toEqual(["vendor.disable filtered", "vendor.add filtered"]);
      expect(await listed("--action", "suppression.add", "--limit", "1")).toEqual(["suppression.add +12125550190"]);
      expect(await listed("--actor", ACTOR.slice("cli:".length), "--action", "vendor.disable", "--since", "1m", "--limit", "1")).toEqual([
        "vendor.disable filtered",
      ]);
      expect(await listed("--actor", "operator:nobody")).toEqual([]);
      expect(await listed("--until", "2000-01-01")).toEqual([]);
      expect((await command("audit", "list", "--actor", "nobody")).out).toBe("No audit entries match.\n");
    });

    test("a change whose entry cannot be written is not made: the entry is written in the change's transaction", async () => {
      await command("vendors", "add", "kept", "--password", "kept-password");
      for (const statement of database.refuseAudit) await opened.rows(statement);
      expect((await command("vendors", "disable", "kept")).code).not.toBe(0);
      expect((await command("suppress", "add", "2125550170")).code).not.toBe(0);
      expect((await opened.rows("SELECT enabled FROM vendors WHERE name = 'kept'"))[0]!.enabled).toBeTruthy();
      expect(await opened.rows("SELECT * FROM suppressions WHERE phone_e164 = '+12125550170'")).toEqual([]);
    });
  });
}
