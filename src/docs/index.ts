// The API page (/swagger), its embedded assets (/swagger/assets/*) and its OpenAPI document
// (/swagger/json). Served by the service itself: nothing is fetched from a CDN.
import { Elysia, type InternalRoute } from "elysia";
import { ASSETS, type Asset } from "./assets.ts";
import { openApiDocument } from "./document.ts";
import type { DocumentedSettings } from "./operations.ts";
import { ASSETS_PATH, INIT_JS, PAGE_CSP, PAGE_HTML, SPEC_PATH } from "./page.ts";

const hide = { detail: { hide: true } };

async function serveAsset(asset: Asset, request: Request): Promise<Response> {
  const gzip = /\bgzip\b/.test(request.headers.get("accept-encoding") ?? "");
  const headers: Record<string, string> = { "content-type": asset.contentType, "cache-control": "public, max-age=86400", vary: "accept-encoding" };
  if (gzip) headers["content-encoding"] = "gzip";
  return new Response(gzip ? await asset.gzipped() : await asset.bytes(), { headers });
}

export function apiDocs(settings: DocumentedSettings) {
  const plugin = new Elysia({ name: "api-docs" });
  // Elysia points a used plugin's getGlobalRoutes at the whole app's routes (the official swagger
  // plugin relies on it too); the types mark it protected. Read at request time, when every route
  // is registered; built once.
  const allRoutes = () => (plugin as unknown as { getGlobalRoutes(): InternalRoute[] }).getGlobalRoutes();
  let document: string | undefined;

  plugin
    .get("/swagger", () => new Response(PAGE_HTML, { headers: { "content-type": "text/html; charset=utf-8", "content-security-policy": PAGE_CSP } }), hide)
    .get(SPEC_PATH, () => new Response((document ??= JSON.stringify(openApiDocument(allRoutes(), settings))), { headers: { "content-type": "application/json; charset=utf-8" } }), hide)
    .get(`${ASSETS_PATH}/init.js`, () => new Response(INIT_JS, { headers: { "content-type": "text/javascript; charset=utf-8", "cache-control": "no-cache" } }), hide);
  // One static route per file: an unknown name is the app's ordinary 404.
  for (const [name, asset] of Object.entries(ASSETS)) plugin.get(`${ASSETS_PATH}/${name}`, ({ request }) => serveAsset(asset, request), hide);
  return plugin;
}
