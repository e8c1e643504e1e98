// drizzle wraps every failed query in a DrizzleQueryError whose message (and so its stack, which
// the logs show) carries the query's parameters: phone numbers, emails, signing secrets. Queries
// are run through `driverErrors`, which rethrows the driver's own error instead: its message is
// PostgreSQL's, and its code and errno (SQLSTATE) are what the 503 mapping and the retries read.
import { DrizzleQueryError } from "drizzle-orm/errors";

/** The driver's error beneath a DrizzleQueryError; any other error as it is. */
export function driverError(error: unknown): unknown {
  return error instanceof DrizzleQueryError && error.cause instanceof Error ? error.cause : error;
}

/** `query`, failing with the driver's error rather than drizzle's. */
export const driverErrors = <T>(query: Promise<T>): Promise<T> =>
  query.catch((error: unknown) => {
    throw driverError(error);
  });
