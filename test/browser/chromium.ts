// Debian's Chromium for the browser tests (console, API page, portal), driven by playwright-core:
// headless, loopback only and nothing in the background (no updates, sync, QUIC or first-run pages);
// and what a test sees of a page (its requests, errors and dialogs; a screenshot).
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";

export const CHROMIUM = Bun.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const ARTIFACTS = join(import.meta.dir, "../../artifacts");

const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** A browser on a fresh profile in `profileDir` (a persistent context is how playwright takes a user-data-dir: no profile leaks in). */
export function launchChromium(profileDir: string, viewport = { width: 1280, height: 900 }): Promise<BrowserContext> {
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: run scripts/ensure-chromium.sh (as root)`);
  return chromium.launchPersistentContext(profileDir, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, timeout: 30_000, viewport });
}

/** A full-page screenshot into `dir`; a generous bound: on a loaded machine a capture can take many seconds. */
export async function screenshotInto(dir: string, page: Page, name: string): Promise<void> {
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: join(dir, name), fullPage: true, timeout: 60_000 });
}

/** Every request the page makes (with the Authorization it sent), every error it logs (CSP refusals included) and every dialog it opens (dismissed). */
export function record(page: Page) {
  const requests: { url: string; authorization?: string }[] = [];
  const seen = {
    requests,
    errors: [] as string[],
    dialogs: [] as string[],
    get urls() {
      return requests.map((request) => request.url);
    },
  };
  page.on("request", (request) => requests.push({ url: request.url(), authorization: request.headers().authorization }));
  page.on("console", (message) => message.type() === "error" && seen.errors.push(message.text()));
  page.on("pageerror", (error) => seen.errors.push(error.message));
  page.on("dialog", (dialog) => {
    seen.dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  return seen;
}
