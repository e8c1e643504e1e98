// What every browser test stands on: the real server (the source, or the binary named by
// LEAD_INGRESS_TEST_BINARY) on an ephemeral port with a SQLite file of its own and a bootstrap
// vendor, a store on that file to arrange and assert, and Chromium on a fresh profile; an operator
// for the console when asked for. Not a test file (bun test finds only *.test.* and *.spec.*, and
// `bun run test:browser` names its files).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { createOperator } from "../../src/console/operators.ts";
import type { Store } from "../../src/store/index.ts";
import { spawnServer } from "../helpers/process.ts";
import type { RowsQuery } from "../helpers/rows.ts";
import { openTestStore } from "../helpers/server.ts";
import { launchChromium } from "./chromium.ts";

/** How long one step on a page (a click, a wait) may take: generous for a loaded machine. */
const STEP_TIMEOUT_MS = 15_000;

export interface Account {
  name: string;
  password: string;
}

export interface BrowserFixtureOptions {
  /** Bootstrapped with the server (--bootstrap-vendor). */
  vendor: Account;
  /** Created in the store once the server has migrated it, for the console's sign-in. */
  operator?: Account;
  /** The rest of `serve`'s flags: what the file tests depends on them (holds, retries, the console's port). */
  serverArgs?: string[];
  viewport?: { width: number; height: number };
}

export interface BrowserFixture {
  /** The API's origin (the portal and /swagger are on it). */
  url: string;
  /** The console's origin; only with --console-port. */
  readonly consoleUrl: string;
  browser: BrowserContext;
  /** The server's tables through a connection of the test's own. */
  store: Store;
  rows: RowsQuery;
  /** The browser's first tab, with the step timeout. */
  page(): Promise<Page>;
  /** Another tab, with the step timeout. */
  newPage(): Promise<Page>;
  /** Signs the operator in on the console's sign-in page, and waits for the Overview it lands on. */
  signInToConsole(page: Page): Promise<void>;
  /** Signs the vendor in on the portal's sign-in page, and waits for the Overview it lands on. */
  signInToPortal(page: Page): Promise<void>;
  /** Closes the browser, the store and the server, and removes the database and the profile. */
  cleanup(): Promise<void>;
}

export async function startBrowserFixture(options: BrowserFixtureOptions): Promise<BrowserFixture> {
  const { vendor, operator } = options;
  const temp = mkdtempSync(join(tmpdir(), "lead-ingress-browser-"));
  // Undone last first; what did start is undone when a later step fails.
  const undo: (() => unknown)[] = [() => rmSync(temp, { recursive: true, force: true })];
  const cleanup = async () => {
    for (const step of undo.splice(0).reverse()) await step();
  };
  try {
    const database = join(temp, "test.db");
    const server = await spawnServer(["--database", database, "--bootstrap-vendor", `${vendor.name}:${vendor.password}`, ...(options.serverArgs ?? [])]);
    undo.push(() => server.stop());
    const store = await openTestStore(database);
    undo.push(() => store.close());
    if (operator) await createOperator(store.store, operator.name, "cli:browser-test", operator.password);
    const browser = await launchChromium(join(temp, "profile"), options.viewport);
    undo.push(() => browser.close());
    const withStepTimeout = (page: Page) => (page.setDefaultTimeout(STEP_TIMEOUT_MS), page);
    return {
      url: server.url,
      get consoleUrl() {
        const listening = server.logs.find((entry) => entry.event === "console_listening");
        if (!listening) throw new Error("the server has no console: start it with --console-port");
        return String(listening.url);
      },
      browser,
      store: store.store,
      rows: store.rows,
      page: async () => withStepTimeout(browser.pages()[0] ?? (await browser.newPage())),
      newPage: async () => withStepTimeout(await browser.newPage()),
      async signInToConsole(page) {
        if (!operator) throw new Error("no operator: pass one to startBrowserFixture");
        await page.getByLabel("Operator").fill(operator.name);
        await page.getByLabel("Password").fill(operator.password);
        await page.getByRole("button", { name: "Sign in" }).click();
        await page.getByRole("heading", { name: "Overview" }).waitFor();
      },
      async signInToPortal(page) {
        await page.fill('input[name="name"]', vendor.name);
        await page.fill('input[name="password"]', vendor.password);
        await page.click('button[type="submit"]');
        await page.waitForURL(`${server.url}/portal/overview`);
      },
      cleanup,
    };
  } catch (error) {
    await cleanup();
    throw error;
  }
}
