// The OpenAPI 3.1 document at /swagger/json: @elysiajs/openapi builds its paths from the app's
// routes (each route's params and `detail`), so a route cannot exist without showing up there (and
// failing the lint until it is documented). This file gives what no route holds: the API's
// description, Basic auth and the named schemas the operations refer to.
import type { ElysiaOpenAPIConfig } from "@elysiajs/openapi";
import pkg from "../../package.json" with { type: "json" };
import { HEADERS, SCHEMAS } from "./schemas.ts";

const DESCRIPTION = `Submit sales leads (**postLead**), pre-check phone numbers (**prePing**) and read final results.

Every \`/v1\` answer, whatever its status, is one JSON envelope:
\`{ "<flag>": true, "message": "<text>" }\` on success, \`{ "<flag>": false, "message": [ { "error": "<text>" }, ... ] }\` on failure.
The flag is \`can_post_phone_bit\` on prePing and \`success_bit\` elsewhere.

**Authentication:** HTTP Basic with your vendor credentials on every \`/v1\` route: use **Authorize**, then **Try it out**.
Over your rate limit the answer is 429 with \`Retry-After\`. An unknown \`/v1\` path answers 404 \`Not Found\` (after authentication).

**Final results:** a postLead 200 is preliminary. After the hold period the lead is accepted or rejected; the result is POSTed to
\`call_back_url\` (see the callback of postLead) and can always be read with \`GET /v1/leads/{lead_id}\`.`;

export const DOCUMENTATION = {
  info: { title: "Lead Ingress", version: pkg.version, description: DESCRIPTION },
  // Relative: requests from the page go to the origin that served it, whatever the host name.
  servers: [{ url: "/", description: "This service" }],
  tags: [
    { name: "Leads", description: "Vendor operations (HTTP Basic)" },
    { name: "Test mode", description: "The same operations as tests: real answers, no number claimed, no cap slot taken (HTTP Basic)" },
  ],
  components: {
    securitySchemes: { basicAuth: { type: "http", scheme: "basic", description: "Your vendor name and password." } },
    schemas: SCHEMAS,
    headers: HEADERS,
  },
} satisfies ElysiaOpenAPIConfig["documentation"];
