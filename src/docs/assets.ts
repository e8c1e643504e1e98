// The API page's static files, embedded in the compiled binary (http/embedded-asset.ts).
import bundlePath from "swagger-ui-dist/swagger-ui-bundle.js" with { type: "file" };
import cssPath from "swagger-ui-dist/swagger-ui.css" with { type: "file" };
import faviconPath from "swagger-ui-dist/favicon-32x32.png" with { type: "file" };
import swaggerUi from "swagger-ui-dist/package.json" with { type: "json" };
import { embedded, type Asset } from "../http/embedded-asset.ts";

export const SWAGGER_UI_VERSION: string = swaggerUi.version;

/** Served under /swagger/assets/<name>. */
export const ASSETS: Record<string, Asset> = {
  "swagger-ui-bundle.js": embedded(bundlePath, "text/javascript; charset=utf-8"),
  "swagger-ui.css": embedded(cssPath, "text/css; charset=utf-8"),
  "favicon-32x32.png": embedded(faviconPath, "image/png"),
};
