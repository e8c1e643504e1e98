// The API page and its assets come from the service itself (docs/contract.md §9): no other host is named,
// the asset bytes are swagger-ui-dist's, and the policy header keeps the browser on this origin.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { startTestServer, type TestServer } from "../helpers/server.ts";

const DIST = join(import.meta.dir, "../../node_modules/swagger-ui-dist");
const EXTERNAL = /\bhttps?:\/\//;

let server: TestServer;
let html: string;
let page: Response;

beforeAll(async () => {
  server = await startTestServer();
  page = await fetch(`${server.url}/swagger`);
  html = await page.text();
});
afterAll(() => server.stop());

/** Every src= and href= of the page. */
const references = (text: string) => [...text.matchAll(/\b(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);

test("the page names no other host and forbids the browser to reach one", () => {
  expect(page.status).toBe(200);
  expect(page.headers.get("content-type")).toStartWith("text/html");
  expect(html).not.toMatch(EXTERNAL);
  expect(references(html).length).toBeGreaterThanOrEqual(4);
  for (const reference of references(html)) expect(reference).toStartWith("/swagger/assets/");
  expect(page.headers.get("content-security-policy")).toContain("default-src 'self'");
});

test("every asset the page references is served, with its type", async () => {
  const types: Record<string, string> = { ".js": "text/javascript", ".css": "text/css", ".png": "image/png" };
  for (const reference of references(html)) {
    const response = await fetch(`${server.url}${reference}`);
    expect(response.status, reference).toBe(200);
    const extension = new URL(reference, server.url).pathname.match(/\.\w+$/)![0];
    expect(response.headers.get("content-type")).toStartWith(types[extension]!);
    await response.arrayBuffer();
  }
});

test("the assets are swagger-ui-dist's files, gzipped for browsers that accept it", async () => {
  for (const name of ["swagger-ui-bundle.js", "swagger-ui.css"]) {
    const response = await fetch(`${server.url}/swagger/assets/${name}`, { headers: { "accept-encoding": "gzip" } });
    expect(response.headers.get("content-encoding")).toBe("gzip");
    expect(await response.text()).toBe(await Bun.file(join(DIST, name)).text());
  }
});

test("the page's own script loads the local document and asks no validator", async () => {
  const init = await (await fetch(`${server.url}/swagger/assets/init.js`)).text();
  expect(init).toContain('url: "/swagger/json"');
  expect(init).toContain("validatorUrl: null");
  expect(init).not.toMatch(EXTERNAL);
});

test("an unknown asset is the ordinary 404", async () => {
  const response = await fetch(`${server.url}/swagger/assets/nope.js`);
  expect(response.status).toBe(404);
  expect(await response.json()).toEqual({ success_bit: false, message: [{ error: "Not Found" }] });
});
