/**
 * Which database a `--database` setting names: a postgres:// or postgresql:// URL is PostgreSQL
 * (libpq's two schemes); anything else is the path of a SQLite file.
 */
export type DatabaseKind = "sqlite" | "postgres";

export function databaseKind(setting: string): DatabaseKind {
  return /^postgres(ql)?:\/\//i.test(setting) ? "postgres" : "sqlite";
}
