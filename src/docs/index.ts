// The API page (/swagger) and its OpenAPI document (/swagger/json).
import { swagger } from "@elysiajs/swagger";
import pkg from "../../package.json" with { type: "json" };

export function apiDocs() {
  return swagger({
    path: "/swagger",
    exclude: ["/bench/noop"],
    documentation: {
      info: {
        title: "Lead Ingress",
        version: pkg.version,
        description:
          "Submit sales leads (postLead), pre-check phone numbers (prePing) and read final results. " +
          "Every /v1 answer is `{ <flag>: boolean, message: string | [{ error }] }`. Use **Authorize** with your vendor credentials.",
      },
      tags: [
        { name: "Leads", description: "Vendor operations (HTTP Basic)" },
        { name: "Operations", description: "Health checks (no authentication)" },
      ],
      components: { securitySchemes: { basicAuth: { type: "http", scheme: "basic" } } },
    },
  });
}
