// Conditions and reason templates, compiled once. Each walk both checks the document (what its
// schema cannot say: a field's name and stage, an operator's value, a pattern RE2 compiles) and
// builds what is evaluated (a condition's tree, unrolled.ts turning a rule list into one function;
// a template's pieces), so the checker and the evaluator never disagree. The walk tolerates a
// malformed part (the schema's walk names it) by skipping it.
import { RE2JS } from "re2js";
import { type FieldReader, type FieldStage, type LeadFacts, type ResolvedField, resolveField } from "./fields.ts";
import { isPlainObject, type Problem, pointer } from "./problems.ts";
import { OPERATORS, type Operator } from "./schema.ts";

/** RE2's compiled program, as RE2JS keeps it: its match is RE2JS.test's, without asking whether the text is bytes. */
export type Pattern = ReturnType<RE2JS["re2"]>;

/** What one operator tests, its value prepared: on the field's folded text (most), or on its text as read. */
export type LeafTest =
  | { op: "blank" | "not_blank" }
  | { op: "in" | "not_in"; values: ReadonlySet<string> }
  | { op: "equals" | "not_equals" | "starts_with" | "contains"; expected: string }
  | { op: "less_than" | "greater_than"; bound: number }
  | { op: "matches"; pattern: Pattern };

/** A condition as compiled: checked, its fields resolved; "never" for a part that could not be (its problem recorded). */
export type Condition =
  | { kind: "leaf"; field: ResolvedField; test: LeafTest }
  | { kind: "not"; inner: Condition }
  | { kind: "all" | "any"; parts: readonly Condition[] }
  | { kind: "never" };

export interface CompileContext {
  /** The entry's stage: a final-stage field in an intake rule is a problem. */
  stage: "intake" | "final";
  /** The entry's time zone, for received.*. */
  timeZone: string;
  checkNames: ReadonlySet<string>;
  problems: Problem[];
  /** Raised to the latest stage any field read so far is known at. */
  latest: FieldStage;
  /** Set when a field read is the campaign, which a prePing may not carry. */
  readsCampaign: boolean;
}

const STAGE_ORDER: Record<FieldStage, number> = { prePing: 0, intake: 1, final: 2 };
const NEVER: Condition = { kind: "never" };
const NUMBER = /^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?$/;

/** Text compared as the contract says: ignoring case (the value is already trimmed). */
export const fold = (value: string | undefined): string => (value === undefined ? "" : value.toLowerCase());
const foldExpected = (value: unknown): string => String(value).trim().toLowerCase();
/** A lead's value as a number: plain decimal notation only ("1,000" and "" are not numbers). */
export const numberOf = (value: string | undefined): number => (value !== undefined && NUMBER.test(value) ? Number(value) : Number.NaN);

/** The reader of a field named at `path`, or undefined (a problem recorded) when it cannot be read there. */
export const fieldReader = (name: unknown, path: string, context: CompileContext): FieldReader | undefined => fieldAt(name, path, context)?.read;

/** The field named at `path`, or undefined (a problem recorded) when it cannot be read there. */
function fieldAt(name: unknown, path: string, context: CompileContext): ResolvedField | undefined {
  if (typeof name !== "string") return undefined;
  const field = resolveField(name.trim(), context.timeZone, context.checkNames);
  if (typeof field === "string") {
    context.problems.push({ path, message: `${JSON.stringify(name)} ${field}` });
    return undefined;
  }
  if (field.stage === "final" && context.stage === "intake") {
    context.problems.push({ path, message: `${name} is known only when the lead is decided: use it in a rule with "stage": "final"` });
    return undefined;
  }
  if (STAGE_ORDER[field.stage] > STAGE_ORDER[context.latest]) context.latest = field.stage;
  if (field.campaign === true) context.readsCampaign = true;
  return field;
}

type Scalar = string | number | boolean;
const isScalar = (value: unknown): value is Scalar => typeof value === "string" || typeof value === "number" || typeof value === "boolean";

/** The test one operator makes of a field's value, or a message saying why `value` does not suit it. */
function leafTest(op: Operator, value: unknown, hasValue: boolean): LeafTest | string {
  switch (op) {
    case "blank":
    case "not_blank":
      return hasValue ? `${op} takes no value` : { op };
    case "in":
    case "not_in":
      if (!Array.isArray(value) || value.length === 0 || !value.every(isScalar)) return `${op} needs a non-empty list of values`;
      return { op, values: new Set(value.map(foldExpected)) };
    case "less_than":
    case "greater_than":
      return typeof value === "number" && Number.isFinite(value) ? { op, bound: value } : `${op} needs a number`;
    case "matches": {
      if (typeof value !== "string") return "matches needs a regular expression as text";
      try {
        return { op, pattern: RE2JS.compile(value, RE2JS.CASE_INSENSITIVE).re2() };
      } catch (error) {
        return `not a regular expression RE2 accepts: ${(error as Error).message}`;
      }
    }
    default:
      return isScalar(value) ? { op, expected: foldExpected(value) } : `${op} needs one value (a text, number or true/false)`;
  }
}

function compileLeaf(leaf: Record<string, unknown>, path: string, context: CompileContext): Condition {
  const field = fieldAt(leaf.field, pointer(path, "field"), context);
  if (!(OPERATORS as readonly unknown[]).includes(leaf.op)) return NEVER;
  const test = leafTest(leaf.op as Operator, leaf.value, leaf.value !== undefined);
  if (typeof test === "string") context.problems.push({ path: pointer(path, "value"), message: test });
  return field === undefined || typeof test === "string" ? NEVER : { kind: "leaf", field, test };
}

/** The condition at JSON path `path`, compiled. */
export function compileCondition(condition: unknown, path: string, context: CompileContext): Condition {
  if (!isPlainObject(condition)) return NEVER;
  if ("field" in condition) return compileLeaf(condition, path, context);
  if ("not" in condition) return { kind: "not", inner: compileCondition(condition.not, pointer(path, "not"), context) };
  const kind = "all" in condition ? "all" : "any" in condition ? "any" : undefined;
  const list = kind === undefined ? undefined : condition[kind];
  if (kind === undefined || !Array.isArray(list)) return NEVER;
  return { kind, parts: list.map((item, index) => compileCondition(item, pointer(pointer(path, kind), index), context)) };
}

export type Template = (facts: LeadFacts, at: number) => string;

const PLACEHOLDER = /\{([A-Za-z0-9_.]+)\}/g;

/** A reason template: each {field} is replaced by the lead's value of the field (blank when missing). */
export function compileTemplate(text: string, path: string, context: CompileContext): Template {
  const pieces: (string | FieldReader)[] = [];
  let last = 0;
  for (const match of text.matchAll(PLACEHOLDER)) {
    const read = fieldReader(match[1], path, context);
    pieces.push(text.slice(last, match.index), read ?? "");
    last = match.index + match[0].length;
  }
  if (pieces.length === 0) return () => text;
  pieces.push(text.slice(last));
  return (facts, at) => {
    let out = "";
    for (const piece of pieces) out += typeof piece === "string" ? piece : (piece(facts, at) ?? "");
    return out;
  };
}
