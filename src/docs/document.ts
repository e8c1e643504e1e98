// The OpenAPI 3.1 document at /swagger/json, built from the app's routes and their `detail`, so a
// route cannot exist without showing up here (and failing the lint until it is documented).
import type { InternalRoute } from "elysia";
import pkg from "../../package.json" with { type: "json" };
import { operationDocs, type DocumentedSettings } from "./operations.ts";
import { SCHEMAS } from "./schemas.ts";

/** Routes that are no part of the service's interface. */
const UNDOCUMENTED = new Set(["/bench/noop"]);
const METHODS = new Set(["GET", "PUT", "POST", "DELETE", "PATCH", "HEAD", "OPTIONS", "TRACE"]);

const DESCRIPTION = `Submit sales leads (**postLead**), pre-check phone numbers (**prePing**) and read final results.

Every \`/v1\` answer, whatever its status, is one JSON envelope:
\`{ "<flag>": true, "message": "<text>" }\` on success, \`{ "<flag>": false, "message": [ { "error": "<text>" }, ... ] }\` on failure.
The flag is \`can_post_phone_bit\` on prePing and \`success_bit\` elsewhere.

**Authentication:** HTTP Basic with your vendor credentials on every \`/v1\` route: use **Authorize**, then **Try it out**.
Over your rate limit the answer is 429 with \`Retry-After\`. An unknown \`/v1\` path answers 404 \`Not Found\` (after authentication).

**Final results:** a postLead 200 is preliminary. After the hold period the lead is accepted or rejected; the result is POSTed to
\`call_back_url\` (see the callback of postLead) and can always be read with \`GET /v1/leads/{lead_id}\`.`;

type Operation = Record<string, unknown>;

/** Elysia's /v1/leads/:lead_id is OpenAPI's /v1/leads/{lead_id}. */
const toOpenApiPath = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, "{$1}");

export function openApiDocument(routes: readonly InternalRoute[], settings: DocumentedSettings) {
  const operations = operationDocs(settings);
  const paths: Record<string, Record<string, Operation>> = {};
  for (const route of routes) {
    const detail = (route.hooks?.detail ?? {}) as Operation;
    if (detail.hide === true || UNDOCUMENTED.has(route.path) || !METHODS.has(route.method)) continue;
    (paths[toOpenApiPath(route.path)] ??= {})[route.method.toLowerCase()] = { ...detail, ...operations[`${route.method} ${route.path}`] };
  }
  return {
    openapi: "3.1.0",
    info: { title: "Lead Ingress", version: pkg.version, description: DESCRIPTION },
    // Relative: requests from the page go to the origin that served it, whatever the host name.
    servers: [{ url: "/", description: "This service" }],
    tags: [
      { name: "Leads", description: "Vendor operations (HTTP Basic)" },
      { name: "Operations", description: "Health checks and metrics (no authentication)" },
    ],
    paths,
    components: {
      securitySchemes: { basicAuth: { type: "http", scheme: "basic", description: "Your vendor name and password." } },
      schemas: SCHEMAS,
    },
  };
}

export type OpenApiDocument = ReturnType<typeof openApiDocument>;
