// Hot-path statements: the SQL comes from a drizzle query (typed against the schema), the statement
// is prepared on bun:sqlite directly, and each placeholder's position is worked out once. Drizzle's
// own prepared queries resolve every placeholder on every run (an entity check per parameter) and
// map every row; for a 30-column lead insert and the per-request lookups that was a measurable
// share of intake's CPU.
import type { Changes, Database, SQLQueryBindings } from "bun:sqlite";
import { is, Param, Placeholder } from "drizzle-orm";

type Values = Record<string, unknown>;
type DrizzleQuery = { toSQL(): { sql: string; params: unknown[] } };
type Binder = (values: Values) => SQLQueryBindings;

function binderFor(param: unknown): Binder {
  if (is(param, Placeholder)) {
    const { name } = param;
    return (values) => values[name] as SQLQueryBindings;
  }
  if (is(param, Param) && is(param.value, Placeholder)) {
    const { name } = param.value;
    const { encoder } = param;
    return (values) => encoder.mapToDriverValue(values[name]) as SQLQueryBindings;
  }
  return () => param as SQLQueryBindings;
}

function bindAll(binders: Binder[], values: Values): SQLQueryBindings[] {
  const bound = new Array<SQLQueryBindings>(binders.length);
  for (let i = 0; i < binders.length; i++) bound[i] = binders[i]!(values);
  return bound;
}

function prepareQuery(sqlite: Database, query: DrizzleQuery) {
  const { sql, params } = query.toSQL();
  return { statement: sqlite.prepare<unknown, SQLQueryBindings[]>(sql), binders: params.map(binderFor) };
}

export interface PreparedWrite<V extends Values> {
  /** Runs the statement with `values` bound by placeholder name. */
  run(values: V): Changes;
}

/** Prepares a drizzle insert/update/delete built with `sql.placeholder(...)` values. */
export function prepareWrite<V extends Values>(sqlite: Database, query: DrizzleQuery): PreparedWrite<V> {
  const { statement, binders } = prepareQuery(sqlite, query);
  return { run: (values) => statement.run(...bindAll(binders, values)) };
}

export interface PreparedRead<V extends Values, Row> {
  /** The first row, keyed by the SQL column names (no drizzle mapping), or null. */
  get(values: V): Row | null;
}

/** Prepares a drizzle select built with `sql.placeholder(...)` values; `Row` names its SQL columns. */
export function prepareRead<V extends Values, Row>(sqlite: Database, query: DrizzleQuery): PreparedRead<V, Row> {
  const { statement, binders } = prepareQuery(sqlite, query);
  return { get: (values) => statement.get(...bindAll(binders, values)) as Row | null };
}
