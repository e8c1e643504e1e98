// The PostgreSQL store: each table's statements prepared once per database; a write script runs as
// one transaction on a pool connection, a read script statement by statement on the pool.
import type { PgDb } from "../db/pg/client.ts";
import { driverErrors } from "../db/pg/errors.ts";
import { runAwaiting } from "../db/script.ts";
import { pgAudit } from "./audit/pg.ts";
import { pgCallbacks } from "./callbacks/pg.ts";
import { pgCapUsage } from "./cap-usage/pg.ts";
import { pgIdempotencyKeys } from "./idempotency-keys/pg.ts";
import { WriteConflict, type Store, type Tables } from "./index.ts";
import { pgLeads } from "./leads/pg.ts";
import { pgOperatorSessions } from "./operator-sessions/pg.ts";
import { pgOperators } from "./operators/pg.ts";
import { pgOutcomeCounts } from "./outcome-counts/pg.ts";
import { pgPausedEndpoints } from "./paused-endpoints/pg.ts";
import type { PgOn } from "./pg-session.ts";
import { pgPhoneClaims } from "./phone-claims/pg.ts";
import { pgPortalSessions } from "./portal-sessions/pg.ts";
import { pgPolicy } from "./policy/pg.ts";
import { pgFindings } from "./findings/pg.ts";
import { pgRefusals } from "./refusals/pg.ts";
import { pgSecrets } from "./secrets/pg.ts";
import { pgSuppressions } from "./suppressions/pg.ts";
import { pgVendors } from "./vendors/pg.ts";

type TablesOn = (on: PgOn) => Tables;

const tablesByDb = new WeakMap<PgDb, TablesOn>();

function tablesOn(db: PgDb): TablesOn {
  let build = tablesByDb.get(db);
  if (!build) {
    const leads = pgLeads(db);
    const callbacks = pgCallbacks(db);
    const phoneClaims = pgPhoneClaims(db);
    const vendors = pgVendors(db);
    const suppressions = pgSuppressions(db);
    const idempotencyKeys = pgIdempotencyKeys(db);
    const operators = pgOperators(db);
    const operatorSessions = pgOperatorSessions(db);
    const audit = pgAudit(db);
    const outcomeCounts = pgOutcomeCounts(db);
    const pausedEndpoints = pgPausedEndpoints(db);
    const policy = pgPolicy(db);
    const refusals = pgRefusals(db);
    const capUsage = pgCapUsage(db);
    const findings = pgFindings(db);
    const secrets = pgSecrets(db);
    const portalSessions = pgPortalSessions(db);
    build = (on) => ({
      leads: leads(on),
      callbacks: callbacks(on),
      phoneClaims: phoneClaims(on),
      vendors: vendors(on),
      suppressions: suppressions(on),
      idempotencyKeys: idempotencyKeys(on),
      operators: operators(on),
      operatorSessions: operatorSessions(on),
      audit: audit(on),
      outcomeCounts: outcomeCounts(on),
      pausedEndpoints: pausedEndpoints(on),
      policy: policy(on),
      refusals: refusals(on),
      capUsage: capUsage(on),
      findings: findings(on),
      secrets: secrets(on),
      portalSessions: portalSessions(on),
    });
    tablesByDb.set(db, build);
  }
  return build;
}

/**
 * The tables of `db`, their statements run on `on`: the pool itself (the default) or a transaction
 * on it. Per transaction this builds nine small objects of closures; the statements are `db`'s.
 */
export const pgTables = (db: PgDb, on: PgOn = db): Tables => tablesOn(db)(on);

/** How many times a write script runs at most when the database asks for a retry. */
const WRITE_ATTEMPTS = 5;

/**
 * Errors after which the script's transaction may simply run again: a serialization failure or a
 * deadlock (the database rolled the transaction back), a table's WriteConflict, and a lead key
 * taken by another instance in the same millisecond. leadKey is a UUIDv7's first 64 bits: its
 * millisecond and a 12-bit counter each process starts at random, so two instances accepting leads
 * in one millisecond collide with a chance of about 1 in 4096; the script's next run draws a new id.
 */
function isRetryable(error: unknown): boolean {
  if (error instanceof WriteConflict) return true;
  const { errno, constraint } = error as { errno?: string; constraint?: string };
  if (errno === "40001" || errno === "40P01") return true;
  return errno === "23505" && (constraint === "leads_pkey" || constraint === "callbacks_pkey");
}

/**
 * The service's store on PostgreSQL; its errors are the driver's (db/pg/errors.ts). A write script is one transaction (READ COMMITTED: the phone
 * claim's and the claims' conflicts are settled by row locks, see their tables), run again with a
 * short jittered wait when the database asks for it. A read script runs on the pool without a
 * transaction: its scripts are advisory lookups whose every decision a write re-checks in one
 * statement (a prePing's "eligible", an operator's listing), so a snapshot across their two or
 * three statements would buy nothing for a BEGIN and a COMMIT more per read.
 */
export function postgresStore(db: PgDb): Store<"promise", "promise"> {
  const tables = pgTables(db);
  return {
    async write(script) {
      for (let attempt = 1; ; attempt++) {
        try {
          return await driverErrors(db.transaction((tx) => runAwaiting(script(pgTables(db, tx)))));
        } catch (error) {
          if (attempt >= WRITE_ATTEMPTS || !isRetryable(error)) throw error;
          await Bun.sleep(attempt * (2 + Math.random() * 8));
        }
      }
    },
    read: (script) => driverErrors(runAwaiting(script(tables))),
  };
}
