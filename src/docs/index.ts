// The API page (/swagger), its embedded assets (/swagger/assets/*) and its OpenAPI document
// (/swagger/json, built by @elysiajs/openapi from the app's routes). Served by the service itself:
// nothing is fetched from a CDN.
//
// The plugin's own page is not used (provider: null): it loads the UI with an inline script, which
// the page's Content-Security-Policy forbids, and writes the API's description unescaped into HTML
// attributes. Ours is Swagger UI from the binary (page.ts), over the plugin's document.
import { openapi } from "@elysiajs/openapi";
import { Elysia } from "elysia";
import { serveAsset } from "../http/embedded-asset.ts";
import { ASSETS } from "./assets.ts";
import { DOCUMENTATION } from "./document.ts";
import { ASSETS_PATH, INIT_JS, PAGE_CSP, PAGE_HTML, PAGE_PATH, SPEC_PATH } from "./page.ts";

const hide = { detail: { hide: true } };

export function apiDocs() {
  const plugin = new Elysia({ name: "api-docs" })
    .use(openapi({ path: PAGE_PATH, specPath: SPEC_PATH, provider: null, openapiVersion: "3.1.0", documentation: DOCUMENTATION }))
    .get(PAGE_PATH, () => new Response(PAGE_HTML, { headers: { "content-type": "text/html; charset=utf-8", "content-security-policy": PAGE_CSP } }), hide)
    .get(
      `${ASSETS_PATH}/init.js`,
      () => new Response(INIT_JS, { headers: { "content-type": "text/javascript; charset=utf-8", "cache-control": "no-cache" } }),
      hide,
    );
  // One static route per file: an unknown name is the app's ordinary 404.
  for (const [name, asset] of Object.entries(ASSETS)) plugin.get(`${ASSETS_PATH}/${name}`, ({ request }) => serveAsset(asset, request), hide);
  return plugin;
}
