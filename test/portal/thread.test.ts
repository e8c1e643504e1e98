// The portal's thread (src/portal-thread/): the main thread hands it each /portal request and
// answers with what it answers; none is started before the first request, and requests arriving
// together share one start; a thread that dies or hangs is replaced and its requests answered 503;
// one that cannot start answers 503 and the next request tries again; stop ends it within its wait.
// With a stand-in thread (stand-in-thread.ts), then the real one on a SQLite file.
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createVendor } from "../../src/auth/vendors.ts";
import { defaultConfig, type Config } from "../../src/config/index.ts";
import { openDatabase } from "../../src/db/client.ts";
import { importPolicy } from "../../src/policy-in-force/manage.ts";
import { createLogger } from "../../src/log/index.ts";
import { lazyPortalThread, type PortalThread } from "../../src/portal-thread/index.ts";
import { storeOn } from "../../src/store/sqlite.ts";
import { tempDatabasePath } from "../helpers/server.ts";
import { waitUntil } from "../helpers/wait.ts";

const STAND_IN = new URL("./stand-in-thread.ts", import.meta.url);
const REAL = new URL("../../src/portal-thread/thread.ts", import.meta.url);

let running: PortalThread | undefined;
let lines: { event: string; error?: string; action?: string; started?: boolean; at: number }[] = [];
afterEach(async () => {
  await running?.stop(1_000);
  running = undefined;
  lines = [];
});

function start(databasePath: string, threadUrl = STAND_IN, answerTimeoutMs?: number, policyVersion = () => 0, startTimeoutMs?: number): PortalThread {
  const config: Config = { ...defaultConfig(), databasePath };
  const log = createLogger("info", (line) => lines.push({ ...JSON.parse(line), at: performance.now() }));
  running = lazyPortalThread({ config, log, threadUrl, answerTimeoutMs, policyVersion, startTimeoutMs });
  return running;
}

const events = () => lines.map((line) => line.event);
const starts = () => events().filter((event) => event === "stand_in_starting").length;
const overview = () => new Request("http://127.0.0.1/portal/overview");

/** The niceness of this process's threads (or of one), from /proc (field 19 of stat). */
function threadNiceness(thread?: number): number[] {
  const tasks = thread === undefined ? readdirSync("/proc/self/task") : [String(thread)];
  return tasks.flatMap((task) => {
    try {
      const stat = readFileSync(`/proc/self/task/${task}/stat`, "utf8");
      return [Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16])];
    } catch {
      return []; // the thread ended meanwhile
    }
  });
}

test("a request reaches the thread as sent (method, URL, headers, body, peer), and its answer comes back whole", async () => {
  const thread = start("normal");
  const request = new Request("http://127.0.0.1/portal/login?x=1", { method: "POST", body: "name=acme", headers: { cookie: "lead_ingress_portal=t" } });
  const answer = await thread.handle(request, "192.0.2.7");
  expect(answer.status).toBe(201);
  expect(answer.headers.getSetCookie()).toEqual(["a=1; Path=/portal", "b=2; Path=/portal"]);
  expect(await answer.json()).toEqual({
    method: "POST",
    url: "http://127.0.0.1/portal/login?x=1",
    cookie: "lead_ingress_portal=t",
    peer: "192.0.2.7",
    body: "name=acme",
  });
  // Its log lines are written by the main thread's logger.
  expect(events()).toContain("stand_in_starting");
});

test("a body the thread streams arrives a chunk per pull", async () => {
  const thread = start("normal");
  expect(await (await thread.handle(new Request("http://127.0.0.1/portal/stream"), undefined)).text()).toBe("abc");
});

test("a thread that exits: its requests are answered 503, the failure is logged, and another thread answers the next", async () => {
  const thread = start("normal");
  const hanging = thread.handle(new Request("http://127.0.0.1/portal/hang"), undefined);
  const died = await thread.handle(new Request("http://127.0.0.1/portal/die"), undefined);
  expect(died.status).toBe(503);
  expect(died.headers.get("content-security-policy")).toContain("default-src 'self'");
  expect((await hanging).status).toBe(503);
  expect(lines.find((line) => line.event === "portal_thread_failed")?.error).toBe("the thread exited");
  await waitUntil(() => events().includes("portal_thread_restarted"));
  expect((await thread.handle(new Request("http://127.0.0.1/portal/overview"), undefined)).status).toBe(201);
});

test("a request left unanswered past the timeout: answered 503, and the stuck thread replaced", async () => {
  const thread = start("normal", STAND_IN, 200);
  const started = performance.now();
  expect((await thread.handle(new Request("http://127.0.0.1/portal/hang"), undefined)).status).toBe(503);
  expect(performance.now() - started).toBeLessThan(2_000);
  expect(lines.find((line) => line.event === "portal_thread_failed")?.error).toBe("no answer within 200 ms");
  await waitUntil(() => events().includes("portal_thread_restarted"));
  expect((await thread.handle(new Request("http://127.0.0.1/portal/overview"), undefined)).status).toBe(201);
});

test("no thread before the first request; it starts one, and requests arriving meanwhile wait for that one", async () => {
  const thread = start("slow-start");
  await Bun.sleep(100);
  expect([thread.running(), starts()]).toEqual([false, 0]);
  const answers = await Promise.all(Array.from({ length: 8 }, () => thread.handle(overview(), undefined)));
  expect(answers.map((answer) => answer.status)).toEqual(Array(8).fill(201));
  expect([thread.running(), starts()]).toEqual([true, 1]);
  expect((await thread.handle(overview(), undefined)).status).toBe(201);
  expect(starts()).toBe(1);
});

test("a thread that cannot start: its requests answered 503, saying why in the log, and the next request tries again", async () => {
  const thread = start("fail-start");
  const answers = await Promise.all([thread.handle(overview(), undefined), thread.handle(overview(), undefined)]);
  expect(answers.map((answer) => answer.status)).toEqual([503, 503]);
  expect(answers[0]!.headers.get("content-security-policy")).toContain("default-src 'self'");
  expect(lines.find((line) => line.event === "portal_thread_failed")?.error).toBe("the portal's thread could not start: no database here");
  expect([thread.running(), starts()]).toEqual([false, 1]);
  expect((await thread.handle(overview(), undefined)).status).toBe(503);
  expect(starts()).toBe(2);
});

test("a thread that keeps failing to start is retried after 1 s, then 2 s; meanwhile /portal answers 503 and starts none", async () => {
  const refuse = join(mkdtempSync(join(tmpdir(), "portal-thread-")), "refuse");
  const thread = start(`fail-while:${refuse}`);
  expect((await thread.handle(overview(), undefined)).status).toBe(201);
  writeFileSync(refuse, "");
  expect((await thread.handle(new Request("http://127.0.0.1/portal/die"), undefined)).status).toBe(503);
  const retries = () => lines.filter((line) => line.event === "portal_thread_failed" && line.action === "retrying");
  // The restart at once fails, and so does the one a second later.
  await waitUntil(() => retries().length === 2);
  const startsSoFar = starts();
  expect((await thread.handle(overview(), undefined)).status).toBe(503);
  expect(starts()).toBe(startsSoFar);
  rmSync(refuse);
  await waitUntil(() => events().includes("portal_thread_restarted"));
  const restarted = lines.find((line) => line.event === "portal_thread_restarted")!.at;
  const [first, second] = retries().map((line) => line.at);
  expect(second! - first!).toBeGreaterThanOrEqual(900);
  expect(restarted - second!).toBeGreaterThanOrEqual(1_900);
  expect((await thread.handle(overview(), undefined)).status).toBe(201);
}, 20_000);

test("a start that does not finish within its timeout: the waiting request answered 503 then, and the thread ended", async () => {
  const thread = start("hang-start", STAND_IN, undefined, () => 0, 200);
  const started = performance.now();
  expect((await thread.handle(overview(), undefined)).status).toBe(503);
  expect(performance.now() - started).toBeLessThan(2_000);
  expect(lines.find((line) => line.event === "portal_thread_failed")?.error).toBe("the portal's thread could not start: not started within 200 ms");
  expect(thread.running()).toBe(false);
});

test("stop before any request returns at once: there is no thread to end", async () => {
  const thread = start("normal");
  running = undefined;
  const started = performance.now();
  await thread.stop(5_000);
  expect(performance.now() - started).toBeLessThan(50);
  expect(starts()).toBe(0);
});

test("stop during a start lets it finish, then closes the thread; the waiting request is answered", async () => {
  const thread = start("slow-start");
  running = undefined;
  const answer = thread.handle(overview(), undefined);
  await waitUntil(() => starts() === 1);
  await thread.stop(5_000);
  // Closed once started, not midway.
  expect(lines.find((line) => line.event === "stand_in_closing")?.started).toBe(true);
  expect([201, 503]).toContain((await answer).status);
  expect(thread.running()).toBe(false);
});

test("stop returns once the thread has closed and exited, not at the end of its wait", async () => {
  const thread = start("normal");
  running = undefined;
  expect((await thread.handle(overview(), undefined)).status).toBe(201);
  const started = performance.now();
  await thread.stop(5_000);
  expect(performance.now() - started).toBeLessThan(1_000);
});

test("stop ends a thread that does not close within the wait", async () => {
  const thread = start("ignore-close");
  running = undefined;
  expect((await thread.handle(overview(), undefined)).status).toBe(201);
  const started = performance.now();
  await thread.stop(100);
  expect(performance.now() - started).toBeLessThan(1_000);
});

test("the real thread answers the portal from its own connections: sign-in page, a wrong password, an oversized form", async () => {
  const temp = tempDatabasePath();
  const database = openDatabase(temp.path);
  await createVendor(storeOn(database.db), "acme", "acme-password-1");
  try {
    const thread = start(temp.path, REAL);
    const page = await thread.handle(new Request("http://127.0.0.1/portal/login"), "127.0.0.1");
    // On Linux it runs at a lower CPU priority than this (intake's) thread: under contention intake comes first.
    if (process.platform === "linux") expect(Math.max(...threadNiceness())).toBe(Math.min(19, threadNiceness(process.pid)[0]! + 10));
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toContain("default-src 'self'");
    expect(await page.text()).toContain("Vendor sign-in");
    const form = { "content-type": "application/x-www-form-urlencoded" };
    const wrong = new Request("http://127.0.0.1/portal/login", { method: "POST", body: "name=acme&password=nope-nope-nope", headers: form });
    expect((await thread.handle(wrong, "127.0.0.1")).status).toBe(401);
    const right = new Request("http://127.0.0.1/portal/login", { method: "POST", body: "name=acme&password=acme-password-1", headers: form });
    const signedIn = await thread.handle(right, "127.0.0.1");
    expect([signedIn.status, signedIn.headers.get("location")]).toEqual([303, "/portal/overview"]);
    // The session it wrote on its own connection is the service's too.
    expect(database.sqlite.query("SELECT count(*) AS n FROM portal_sessions WHERE kind = 'session'").get()).toEqual({ n: 1 });
    const chunk = new TextEncoder().encode(`name=${"a".repeat(16 * 1024)}&`);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 8; i++) controller.enqueue(chunk);
        controller.close();
      },
    });
    const large = await thread.handle(new Request("http://127.0.0.1/portal/login", { method: "POST", body, headers: form }), "127.0.0.1");
    expect([large.status, await large.text()]).toEqual([400, expect.stringContaining("Not a form of the portal.")]);
  } finally {
    await running?.stop(1_000);
    running = undefined;
    database.sqlite.close();
    temp.cleanup();
  }
});

test("a page never shows an older policy than intake applies: a version newer than the thread's is read before the answer", async () => {
  const temp = tempDatabasePath();
  const database = openDatabase(temp.path);
  const store = storeOn(database.db);
  await createVendor(store, "acme", "acme-password-1");
  let intakeVersion = 0;
  try {
    const thread = start(temp.path, REAL, undefined, () => intakeVersion);
    const form = { "content-type": "application/x-www-form-urlencoded" };
    const signIn = new Request("http://127.0.0.1/portal/login", { method: "POST", body: "name=acme&password=acme-password-1", headers: form });
    const cookie = (await thread.handle(signIn, "127.0.0.1")).headers.get("set-cookie")!.split(";")[0]!;
    const caps = async () => (await thread.handle(new Request("http://127.0.0.1/portal/caps", { headers: { cookie } }), "127.0.0.1")).text();
    expect(await caps()).toContain("No cap applies to you.");
    const imported = await importPolicy(store, JSON.stringify({ caps: [{ name: "daily", counts: "leads", max: 7, per: "day", each: "vendor" }] }), "cli:test");
    if (imported.kind !== "imported") throw new Error(JSON.stringify(imported));
    // Intake has it (its loader read the new version); the thread's own reload is up to a second away.
    intakeVersion = imported.version;
    expect(await caps()).toContain('<td class="mono">daily</td><td>leads per day (UTC)</td><td>all your campaigns, counted per vendor</td><td>0 / 7</td>');
  } finally {
    await running?.stop(1_000);
    running = undefined;
    database.sqlite.close();
    temp.cleanup();
  }
});
