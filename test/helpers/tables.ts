// The SQLite tables of a test database, their operations answered at once (SQLite never returns a promise).
import type { Db } from "../../src/db/client.ts";
import { op, runNow, type Op } from "../../src/db/script.ts";
import { validateLead } from "../../src/intake/validate.ts";
import type { LeadFields } from "../../src/store/leads/index.ts";
import { sqliteTables } from "../../src/store/sqlite.ts";
import { validLead } from "./lead.ts";

/** A table operation's answer on SQLite: the value itself. */
export const now = <T>(answer: Op<T>): T => runNow(op(answer));

export const tablesOf = (db: Db) => sqliteTables(db);

/** A vendor row for table tests. */
export function vendorRow(id: string, at = 0) {
  return { id, name: id, passwordHash: "not-a-real-hash", signingSecret: "whsec_test", enabled: true, createdAt: at, updatedAt: at };
}

/** A lead's fields as validated (LeadFields), for table tests: the example lead, without certificate, callback or extra_data. */
export function leadFields(phoneE164 = "+12125551234"): LeadFields {
  const validation = validateLead(validLead(), { allowPrivateCallbacks: false });
  if (!validation.ok) throw new Error(`the example lead is invalid: ${validation.errors.join("; ")}`);
  return { ...validation.value, phoneE164, certificateUrl: null, callBackUrl: null, extraData: null };
}
