import type { Changes } from "bun:sqlite";

/** Rows changed by a drizzle `.run()`: typed void by drizzle's bun-sqlite driver, Changes at runtime. */
export const changedRows = (result: unknown): number => (result as Changes).changes;
