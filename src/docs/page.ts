// The API page: swagger-ui from /swagger/assets (embedded in the binary), over /swagger/json.
// Nothing on it comes from another host, and its Content-Security-Policy makes the browser refuse
// anything that would, so the page works on an air-gapped VM and leaks nothing to a CDN.
import { SWAGGER_UI_VERSION } from "./assets.ts";

export const PAGE_PATH = "/swagger";
export const SPEC_PATH = `${PAGE_PATH}/json`;
export const ASSETS_PATH = `${PAGE_PATH}/assets`;

// ?v= busts browser caches when an upgraded binary ships another swagger-ui.
const asset = (name: string) => `${ASSETS_PATH}/${name}?v=${SWAGGER_UI_VERSION}`;

export const PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Lead Ingress API</title>
  <link rel="icon" type="image/png" href="${asset("favicon-32x32.png")}">
  <link rel="stylesheet" href="${asset("swagger-ui.css")}">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="${asset("swagger-ui-bundle.js")}"></script>
  <script src="${asset("init.js")}"></script>
</body>
</html>
`;

// A file rather than an inline script, so the policy needs no 'unsafe-inline' for scripts.
// validatorUrl null: no badge fetched from validator.swagger.io. queryConfigEnabled stays off so a
// crafted ?url= link cannot point the page at another document.
export const INIT_JS = `window.ui = SwaggerUIBundle({
  url: ${JSON.stringify(SPEC_PATH)},
  dom_id: "#swagger-ui",
  validatorUrl: null,
  queryConfigEnabled: false,
  deepLinking: true,
  displayOperationId: true,
  displayRequestDuration: true,
  showExtensions: false,
  defaultModelsExpandDepth: 0,
});
`;

// Swagger UI sets style attributes and draws icons as data: URIs; everything else is 'self'.
export const PAGE_CSP = [
  "default-src 'self'",
  "img-src 'self' data:",
  "style-src 'self' 'unsafe-inline'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join("; ");
