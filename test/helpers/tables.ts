// The SQLite tables of a test database, their operations answered at once (SQLite never returns a promise).
import type { Db } from "../../src/db/client.ts";
import { op, runNow, type Op } from "../../src/db/script.ts";
import type { LeadFields } from "../../src/store/leads/index.ts";
import { sqliteTables } from "../../src/store/sqlite.ts";

/** A table operation's answer on SQLite: the value itself. */
export const now = <T>(answer: Op<T>): T => runNow(op(answer));

export const tablesOf = (db: Db) => sqliteTables(db);

/** A vendor row for table tests. */
export function vendorRow(id: string, at = 0) {
  return { id, name: id, passwordHash: "not-a-real-hash", signingSecret: "whsec_test", enabled: true, createdAt: at, updatedAt: at };
}

/** A lead's fields as validated (LeadFields), for table tests. */
export function leadFields(phoneE164 = "+12125551234"): LeadFields {
  return {
    phoneE164,
    customerName: "Jane Doe",
    state: "NY",
    city: "New York",
    zip: "10001",
    street: "1 Main St",
    certificateUrl: null,
    dmName: "John Doe",
    utility: "Con Edison",
    callBackUrl: null,
    mailingStreet: "PO Box 1",
    mailingCity: "New York",
    mailingZip: "10001",
    mailingState: "NY",
    vendorCampaignName: "Spring",
    email: "jane@example.com",
    extraData: null,
  };
}
