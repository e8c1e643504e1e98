// The SQLite tables of a test database, their operations answered at once (SQLite never returns a promise).
import type { Db } from "../../src/db/client.ts";
import { op, runNow, type Op, type Script } from "../../src/db/script.ts";
import { validateLead } from "../../src/intake/validate.ts";
import type { LeadFields } from "../../src/store/leads/index.ts";
import type { Tables } from "../../src/store/index.ts";
import { sqliteTables } from "../../src/store/sqlite.ts";
import { fixedLead } from "./lead.ts";

/** A table operation's answer on SQLite: the value itself. */
export const now = <T>(answer: Op<T>): T => runNow(op(answer));

export const tablesOf = (db: Db) => sqliteTables(db);

/** A vendor row for table tests. */
export function vendorRow(id: string, at = 0) {
  return { id, name: id, passwordHash: "not-a-real-hash", signingSecret: "whsec_test", enabled: true, createdAt: at, updatedAt: at };
}

/** A lead's fields as validated (LeadFields), for table tests: the example lead, without certificate, callback or extra_data. */
export function leadFields(phoneE164 = "+12125551234"): LeadFields {
  const validation = validateLead(fixedLead(), { allowPrivateCallbacks: false });
  if (!validation.ok) throw new Error(`the example lead is invalid: ${validation.errors.join("; ")}`);
  return { ...validation.value, phoneE164, certificateUrl: null, callBackUrl: null, extraData: null };
}

export interface PendingLead {
  vendorId: string;
  phoneE164: string;
  /** Default: now. */
  createdAt?: number;
  /** When its hold ends; default: an hour after createdAt. */
  decideAfter?: number;
  /** Its callback's URL, held until the decision; no callback when absent. */
  callbackUrl?: string;
  /** Also claims the number first, as intake does for a lead it accepts (on SQLite the lead's row is its claim either way). */
  claimPhone?: boolean;
  /** Its certificate_url; none when absent. */
  certificateUrl?: string;
}

/**
 * A pending lead as intake writes it (the lead, its held callback, its phone claim), as a script for
 * either database: `runNow(pendingLead(t, …))` on SQLite tables, `runAwaiting` or `store.write` else.
 */
export function* pendingLead(t: Tables, lead: PendingLead): Script<string> {
  const id = Bun.randomUUIDv7();
  const createdAt = lead.createdAt ?? Date.now();
  const decideAfter = lead.decideAfter ?? createdAt + 3_600_000;
  if (lead.claimPhone) yield* op(t.phoneClaims.claim(lead.phoneE164, id, createdAt, 0));
  const fields = { ...leadFields(lead.phoneE164), certificateUrl: lead.certificateUrl ?? null };
  yield* op(t.leads.insertPending(fields, { id, vendorId: lead.vendorId, rawRequest: "{}", createdAt, decideAfter }));
  if (lead.callbackUrl) yield* op(t.callbacks.hold({ id: `msg_${id}`, leadId: id, vendorId: lead.vendorId, url: lead.callbackUrl }, createdAt));
  return id;
}
