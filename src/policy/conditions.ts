// Conditions and reason templates, compiled once into closures. Each walk both checks the document
// (what its schema cannot say: a field's name and stage, an operator's value, a pattern RE2 compiles)
// and builds the evaluator, so the checker and the evaluator never disagree. The walk tolerates a
// malformed part (the schema's walk names it) by skipping it.
import { RE2JS } from "re2js";
import { FIELD_SLOTS, type FieldReader, type FieldStage, type LeadFacts, type ResolvedField, resolveField } from "./fields.ts";
import { isPlainObject, type Problem, pointer } from "./problems.ts";
import { OPERATORS, type Operator } from "./schema.ts";

export type Predicate = (facts: LeadFacts, at: number) => boolean;

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
const NEVER: Predicate = () => false;
const NUMBER = /^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?$/;

/** Text compared as the contract says: ignoring case (the value is already trimmed). */
const fold = (value: string | undefined): string => (value === undefined ? "" : value.toLowerCase());
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

/** What one operator tests: the field's text folded (most), or as read (numbers, patterns). */
type OperatorTest = { folded: true; test: (folded: string) => boolean } | { folded: false; test: (text: string | undefined) => boolean };
const onFolded = (test: (folded: string) => boolean): OperatorTest => ({ folded: true, test });
const onText = (test: (text: string | undefined) => boolean): OperatorTest => ({ folded: false, test });

/** The test one operator makes of a field's value, or a message saying why `value` does not suit it. */
function operatorTest(op: Operator, value: unknown, hasValue: boolean): OperatorTest | string {
  switch (op) {
    case "blank":
    case "not_blank": {
      if (hasValue) return `${op} takes no value`;
      return op === "blank" ? onFolded((text) => text === "") : onFolded((text) => text !== "");
    }
    case "in":
    case "not_in": {
      if (!Array.isArray(value) || value.length === 0 || !value.every(isScalar)) return `${op} needs a non-empty list of values`;
      const set = new Set(value.map(foldExpected));
      return op === "in" ? onFolded((text) => set.has(text)) : onFolded((text) => !set.has(text));
    }
    case "less_than":
    case "greater_than": {
      if (typeof value !== "number" || !Number.isFinite(value)) return `${op} needs a number`;
      return op === "less_than" ? onText((text) => numberOf(text) < value) : onText((text) => numberOf(text) > value);
    }
    case "matches": {
      if (typeof value !== "string") return "matches needs a regular expression as text";
      let pattern: RE2JS;
      try {
        pattern = RE2JS.compile(value, RE2JS.CASE_INSENSITIVE);
      } catch (error) {
        return `not a regular expression RE2 accepts: ${(error as Error).message}`;
      }
      // RE2's own match: what RE2JS.test does for a text, without asking whether it is bytes.
      const re2 = pattern.re2();
      return onText((text) => re2.match(text ?? ""));
    }
    default: {
      if (!isScalar(value)) return `${op} needs one value (a text, number or true/false)`;
      const expected = foldExpected(value);
      if (op === "equals") return onFolded((text) => text === expected);
      if (op === "not_equals") return onFolded((text) => text !== expected);
      if (op === "starts_with") return onFolded((text) => text.startsWith(expected));
      return onFolded((text) => text.includes(expected));
    }
  }
}

// A field's folded text, folded once per evaluation however many conditions read it: kept at the
// field's slot (fields.ts resolveField) with the evaluation's number, so that nothing is allocated per
// lead. An evaluation is one lead's facts at one instant (beginEvaluation), and runs synchronously.
// The reader is kept too: once the fields' memo restarts, two fields may share a slot.
let evaluation = 1;
const foldedAt: string[] = new Array(FIELD_SLOTS);
const foldedIn = new Float64Array(FIELD_SLOTS);
const foldedBy: (FieldReader | undefined)[] = new Array(FIELD_SLOTS);

/** Starts an evaluation of conditions over one lead's facts at one instant: nothing an earlier one folded is reused. */
export const beginEvaluation = (): void => {
  evaluation++;
};

function foldedValue({ read, slot }: ResolvedField, facts: LeadFacts, at: number): string {
  if (foldedIn[slot] === evaluation && foldedBy[slot] === read) return foldedAt[slot]!;
  const folded = fold(read(facts, at));
  foldedAt[slot] = folded;
  foldedIn[slot] = evaluation;
  foldedBy[slot] = read;
  return folded;
}

function compileLeaf(leaf: Record<string, unknown>, path: string, context: CompileContext): Predicate {
  const field = fieldAt(leaf.field, pointer(path, "field"), context);
  if (!(OPERATORS as readonly unknown[]).includes(leaf.op)) return NEVER;
  const operator = operatorTest(leaf.op as Operator, leaf.value, leaf.value !== undefined);
  if (typeof operator === "string") context.problems.push({ path: pointer(path, "value"), message: operator });
  if (field === undefined || typeof operator === "string") return NEVER;
  if (operator.folded) {
    const test = operator.test;
    return (facts, at) => test(foldedValue(field, facts, at));
  }
  const { test } = operator;
  const { read } = field;
  return (facts, at) => test(read(facts, at));
}

/** The predicate of condition `condition` at JSON path `path`. */
export function compileCondition(condition: unknown, path: string, context: CompileContext): Predicate {
  if (!isPlainObject(condition)) return NEVER;
  if ("field" in condition) return compileLeaf(condition, path, context);
  if ("not" in condition) {
    const inner = compileCondition(condition.not, pointer(path, "not"), context);
    return (facts, at) => !inner(facts, at);
  }
  const kind = "all" in condition ? "all" : "any" in condition ? "any" : undefined;
  const list = kind === undefined ? undefined : condition[kind];
  if (kind === undefined || !Array.isArray(list)) return NEVER;
  const parts = list.map((item, index) => compileCondition(item, pointer(pointer(path, kind), index), context));
  if (parts.length === 1) return parts[0]!;
  return kind === "all"
    ? (facts, at) => {
        for (const part of parts) if (!part(facts, at)) return false;
        return true;
      }
    : (facts, at) => {
        for (const part of parts) if (part(facts, at)) return true;
        return false;
      };
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
