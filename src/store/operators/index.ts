// Operators: the people who sign in to the console. Added, listed and disabled from the CLI.
import type { Op } from "../../db/script.ts";
import type { operators } from "../../db/schema.ts";

export type Operator = typeof operators.$inferSelect;

export interface OperatorsTable {
  findByName(name: string): Op<Operator | undefined>;
  /** Every operator, by name. */
  list(): Op<Operator[]>;
  /** Adds an operator; false when the name is taken (the UNIQUE index decides between racing processes). */
  insert(operator: Operator): Op<boolean>;
  setEnabled(id: string, enabled: boolean, now: number): Op<void>;
}
