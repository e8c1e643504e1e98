// Property-based: whatever JSON value or string a caller sends, both endpoints answer in the
// envelope with a contract status, never a 5xx (docs/contract.md §1). Runs the real app without a socket.
import { storeOn } from "../../src/store/sqlite.ts";
import { afterAll, beforeAll, describe, test } from "bun:test";
import fc from "fast-check";
import { createVendor } from "../../src/auth/vendors.ts";
import { defaultConfig } from "../../src/config/index.ts";
import { openDatabase, type DatabaseHandle } from "../../src/db/client.ts";
import { createApp } from "../../src/app.ts";
import { createGroupCommitter } from "../../src/db/group-commit.ts";
import { sqliteBackend } from "../../src/backend/index.ts";
import { createLogger } from "../../src/log/index.ts";
import { createMetrics } from "../../src/metrics/index.ts";
import { expectIntakeAnswer } from "../helpers/envelope.ts";
import { validLead } from "../helpers/leads.ts";
import { basicAuth } from "../helpers/server.ts";

let database: DatabaseHandle;
let app: ReturnType<typeof createApp>;
const authorization = basicAuth("prop-vendor", "prop-password");

beforeAll(async () => {
  database = openDatabase(":memory:");
  await createVendor(storeOn(database.db), "prop-vendor", "prop-password");
  app = createApp({
    config: { ...defaultConfig(), rateLimitPerSecond: 0 },
    backend: sqliteBackend(database, createGroupCommitter(database.sqlite)),
    log: createLogger("silent"),
    metrics: createMetrics(),
  });
});
afterAll(() => database.close());

const ROUTES = [
  ["/v1/postLead", "success_bit"],
  ["/v1/prePing", "can_post_phone_bit"],
] as const;

async function send(path: string, body: string) {
  const response = await app.handle(new Request(`http://localhost${path}`, { method: "POST", headers: { authorization }, body }));
  return { status: response.status, body: JSON.parse(await response.text()) };
}

// Lead-shaped objects: each contract field either left out or given a value that may be right,
// wrong in type, or wrong in content — where the interesting branches are.
const anyValue = fc.oneof(fc.string(), fc.jsonValue(), fc.constantFrom("", "  ", null, "NY", "10001", "(212) 555-0123", "https://x.example"));
const leadShaped = fc
  .dictionary(fc.constantFrom(...Object.keys(validLead()), "customer_address", "extra_data", "__proto__", "constructor"), anyValue)
  .map((overrides) => ({ ...validLead(), ...overrides }));

describe.each(ROUTES)("%s", (path, flag) => {
  test("any JSON value as the body → envelope, no 5xx", async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (value) => expectIntakeAnswer(await send(path, JSON.stringify(value)), flag)),
      { numRuns: 300 },
    );
  });

  test("any string as the body → envelope, no 5xx", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: "grapheme", maxLength: 300 }), async (text) => expectIntakeAnswer(await send(path, text), flag)),
      { numRuns: 300 },
    );
  });

  test("lead-shaped objects with random field values → envelope, no 5xx", async () => {
    await fc.assert(
      fc.asyncProperty(leadShaped, async (lead) => expectIntakeAnswer(await send(path, JSON.stringify(lead)), flag)),
      { numRuns: 500 },
    );
  });
});
