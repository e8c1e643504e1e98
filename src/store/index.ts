// The store: one home per table (the only module that reads and writes it), and the scripts that
// span tables, run as one transaction. Domain modules write a script once, as a generator over the
// tables' operations (db/script.ts), and hand it to `write` or `read`; the backend runs it.
import type { DatabaseHandle } from "../db/client.ts";
import type { PostgresHandle } from "../db/pg/client.ts";
import type { Script } from "../db/script.ts";
import type { AuditTable } from "./audit/index.ts";
import type { CallbacksTable } from "./callbacks/index.ts";
import type { CapUsageTable } from "./cap-usage/index.ts";
import type { FindingsTable } from "./findings/index.ts";
import type { IdempotencyKeysTable } from "./idempotency-keys/index.ts";
import type { LeadsTable } from "./leads/index.ts";
import type { OperatorSessionsTable } from "./operator-sessions/index.ts";
import type { OperatorsTable } from "./operators/index.ts";
import type { OutcomeCountsTable } from "./outcome-counts/index.ts";
import type { PausedEndpointsTable } from "./paused-endpoints/index.ts";
import type { PhoneClaimsTable } from "./phone-claims/index.ts";
import type { PortalSessionsTable } from "./portal-sessions/index.ts";
import type { PolicyTable } from "./policy/index.ts";
import type { RefusalsTable } from "./refusals/index.ts";
import type { SecretsTable } from "./secrets/index.ts";
import type { SuppressionsTable } from "./suppressions/index.ts";
import type { VendorsTable } from "./vendors/index.ts";

export interface Tables {
  leads: LeadsTable;
  callbacks: CallbacksTable;
  phoneClaims: PhoneClaimsTable;
  vendors: VendorsTable;
  suppressions: SuppressionsTable;
  idempotencyKeys: IdempotencyKeysTable;
  operators: OperatorsTable;
  operatorSessions: OperatorSessionsTable;
  audit: AuditTable;
  outcomeCounts: OutcomeCountsTable;
  pausedEndpoints: PausedEndpointsTable;
  policy: PolicyTable;
  refusals: RefusalsTable;
  capUsage: CapUsageTable;
  findings: FindingsTable;
  secrets: SecretsTable;
  portalSessions: PortalSessionsTable;
}

/**
 * A table refused a write because a concurrent transaction committed, after this one read, what
 * the write would overwrite (only on PostgreSQL: SQLite's writes are serial). The script's reads
 * no longer hold, so the store runs it again from the start, as for a serialization failure.
 */
export class WriteConflict extends Error {
  override name = "WriteConflict";
}

/** A transaction script over the tables: `(t) => acceptLead(t, …)`, or `(t) => op(t.leads.statusOf(id))`. */
export type TableScript<T> = (tables: Tables) => Script<T>;

/** How a store answers: at once (SQLite's reads, a connection's writes) or with a promise. */
export type Answering = "now" | "promise";
export type Answer<How extends Answering, T> = How extends "now" ? T : Promise<T>;

/**
 * Runs scripts as transactions. `write` runs one as a write transaction (on the service, inside
 * the group commit's batch, so it may run twice: it must touch nothing but the tables); `read`
 * runs one in a read snapshot. SQLite answers reads at once, so the hot path (authentication,
 * prePing, lookups) stays synchronous there; a PostgreSQL store answers with promises.
 */
export interface Store<Reads extends Answering = Answering, Writes extends Answering = Answering> {
  write<T>(script: TableScript<T>, options?: { background?: boolean }): Answer<Writes, T>;
  read<T>(script: TableScript<T>): Answer<Reads, T>;
}

/** The service's store on SQLite: synchronous reads, writes answered when their batch is on disk. */
export type ServiceStore = Store<"now", "promise">;
/** A store on a connection of its own (the operator's CLI, tests): every answer at once. */
export type ConnectionStore = Store<"now", "now">;
/** The PostgreSQL store: every answer a promise. */
export type PostgresStore = Store<"promise", "promise">;

/** The service's database as an operator command sees it (cli/, suppression/import.ts): its store, and the connection beneath. */
export type OperatorDatabase =
  | { kind: "sqlite"; store: ConnectionStore; connection: DatabaseHandle }
  | { kind: "postgres"; store: PostgresStore; connection: PostgresHandle };
