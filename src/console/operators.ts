// Operator accounts: added, listed, disabled and enabled from the CLI; checked at the console's
// sign-in. Passwords are hashed as vendors' are (argon2id); only the hash is stored.
import { generatePassword, hashPassword, verifyPassword } from "../auth/vendors.ts";
import { VENDOR_NAME } from "../auth/vendor-name.ts";
import { op, type Script } from "../db/script.ts";
import type { Store, Tables } from "../store/index.ts";
import type { Operator } from "../store/operators/index.ts";
import { auditEntry } from "./audit.ts";

export type { Operator } from "../store/operators/index.ts";

/** An operator's name follows the vendors' rule (letters, digits, '.', '_', '-'; 1-64). */
const OPERATOR_NAME = VENDOR_NAME;
/** Longer than a vendor's minimum: an operator can change any lead and callback. */
export const OPERATOR_PASSWORD_MIN = 12;

export class OperatorAccountError extends Error {}

export interface NewOperator {
  operator: Operator;
  /** Shown once; only its hash is stored. */
  password: string;
}

export async function createOperator(store: Store, name: string, actor: string, password = generatePassword(), now = Date.now()): Promise<NewOperator> {
  if (!OPERATOR_NAME.test(name)) throw new OperatorAccountError(`Operator name must be 1-64 letters, digits, '.', '_' or '-': ${JSON.stringify(name)}`);
  if (password.length < OPERATOR_PASSWORD_MIN) throw new OperatorAccountError(`Password must be at least ${OPERATOR_PASSWORD_MIN} characters`);
  const operator: Operator = { id: Bun.randomUUIDv7(), name, passwordHash: await hashPassword(password), enabled: true, createdAt: now, updatedAt: now };
  const added = await store.write((t) => insertOperator(t, operator, actor, now));
  if (!added) throw new OperatorAccountError(`Operator already exists: ${name}`);
  return { operator, password };
}

function* insertOperator(t: Tables, operator: Operator, actor: string, now: number): Script<boolean> {
  // The name's UNIQUE index decides when two processes add one name at once.
  if (!(yield* op(t.operators.insert(operator)))) return false;
  yield* op(t.audit.append(auditEntry({ actor, action: "operator.add", subject: operator.name }, now)));
  return true;
}

export async function listOperators(store: Store): Promise<Operator[]> {
  return store.read((t) => op(t.operators.list()));
}

/** Disabling also ends the operator's sessions: it is signed out of every console at once. */
export async function setOperatorEnabled(store: Store, name: string, enabled: boolean, actor: string, now = Date.now()): Promise<void> {
  const found = await store.write((t) => switchOperator(t, name, enabled, actor, now));
  if (!found) throw new OperatorAccountError(`No such operator: ${name}`);
}

function* switchOperator(t: Tables, name: string, enabled: boolean, actor: string, now: number): Script<boolean> {
  const operator = yield* op(t.operators.findByName(name));
  if (!operator) return false;
  yield* op(t.operators.setEnabled(operator.id, enabled, now));
  if (!enabled) yield* op(t.operatorSessions.deleteForOperator(operator.id));
  yield* op(t.audit.append(auditEntry({ actor, action: enabled ? "operator.enable" : "operator.disable", subject: name }, now)));
  return true;
}

/**
 * A hash no password matches, verified when the name is unknown or disabled: every refusal costs
 * one argon2id verification, so the answer's time does not tell which names exist.
 */
let noOperatorHash: Promise<string> | undefined;

/** The enabled operator with these credentials, or null. Vendors are never operators: a separate table. */
export async function authenticateOperator(store: Store, name: string, password: string): Promise<Operator | null> {
  const operator = OPERATOR_NAME.test(name) ? await store.read((t) => op(t.operators.findByName(name))) : undefined;
  const usable = operator?.enabled ? operator : undefined;
  const matches = await verifyPassword(password, usable?.passwordHash ?? (await (noOperatorHash ??= hashPassword(generatePassword()))));
  return usable && matches ? usable : null;
}
