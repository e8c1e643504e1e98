// The console's static files, embedded in the binary (http/embedded-asset.ts) and served at
// /assets/<name> without a session: uPlot (the charts: 50 KB minified, canvas, no dependencies;
// chosen for that and because it draws a week of 168 buckets × a dozen series at once) and the
// Overview's own script and styles. Scripts are files, never inline: CSP `default-src 'self'`.
import uplotJsPath from "uplot/dist/uPlot.iife.min.js" with { type: "file" };
import uplotCssPath from "uplot/dist/uPlot.min.css" with { type: "file" };
import { embedded, serveAsset, type Asset } from "../http/embedded-asset.ts";
import overviewJsPath from "./assets/overview.mjs" with { type: "file" };
import overviewCssPath from "./assets/overview.css" with { type: "file" };

const JS = "text/javascript; charset=utf-8";
const CSS = "text/css; charset=utf-8";

const ASSETS: Record<string, Asset> = {
  "uplot.js": embedded(uplotJsPath, JS),
  "uplot.css": embedded(uplotCssPath, CSS),
  "overview.mjs": embedded(overviewJsPath, JS),
  "overview.css": embedded(overviewCssPath, CSS),
};

/** GET /assets/<name>: the file, or null when there is none of that name. Revalidated each time: the files change with the binary. */
export function consoleAsset(path: string, request: Request): Promise<Response> | null {
  const asset = path.startsWith("/assets/") ? ASSETS[path.slice("/assets/".length)] : undefined;
  return asset ? serveAsset(asset, request, "no-cache") : null;
}
