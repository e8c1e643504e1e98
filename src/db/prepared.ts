// Hot-path writes: the SQL comes from a drizzle query (typed against the schema), the statement is
// prepared on bun:sqlite directly, and each placeholder's position is worked out once. Drizzle's
// own prepared queries resolve every placeholder on every run (an entity check per parameter);
// for a 30-column lead insert that was a measurable share of intake's CPU.
import type { Changes, Database, SQLQueryBindings } from "bun:sqlite";
import { is, Param, Placeholder } from "drizzle-orm";

type Values = Record<string, unknown>;
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

export interface PreparedWrite<V extends Values> {
  /** Runs the statement with `values` bound by placeholder name. */
  run(values: V): Changes;
}

/** Prepares a drizzle insert/update/delete built with `sql.placeholder(...)` values. */
export function prepareWrite<V extends Values>(sqlite: Database, query: { toSQL(): { sql: string; params: unknown[] } }): PreparedWrite<V> {
  const { sql, params } = query.toSQL();
  const statement = sqlite.prepare<unknown, SQLQueryBindings[]>(sql);
  const binders = params.map(binderFor);
  return {
    run(values) {
      const bound = new Array<SQLQueryBindings>(binders.length);
      for (let i = 0; i < binders.length; i++) bound[i] = binders[i]!(values);
      return statement.run(...bound);
    },
  };
}
