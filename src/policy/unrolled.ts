// A rule list unrolled into one function, as intake/validate.ts unrolls the lead's validator: each
// rule's condition written out as one expression of &&, || and !, each operator's test inline, and
// each field read and folded at most once per lead, into a local. A tree of closures calling
// closures took 2.2 µs a lead for bench/policy.json's 16 rules in scope, this function 0.9 µs
// (bench/README.md, "The policy's evaluation"). The source holds only operators and generated
// names: every value (readers, sets, texts, patterns, the rules) is passed in, never written into it.
import { type Condition, fold, type LeafTest, numberOf } from "./conditions.ts";
import { type LeadFacts, type ResolvedField, textOf } from "./fields.ts";

/** The rules of a list that fail for a lead's facts at an instant, in the list's order: a shared empty list when none does. */
export type FailingRules<Rule> = (facts: LeadFacts, at: number) => readonly Rule[];

const NONE: readonly never[] = Object.freeze([]);
/** A text local's value before its field is read (a field's text may be undefined). */
const UNREAD = Symbol("unread");

/**
 * Rules per generated function: JavaScriptCore optimises a function only below a size. 2,000 rules
 * as one function took 149 µs a lead, 2.3x the closures' 64 µs; as 32-rule pieces, 31 µs. Each
 * piece reads its own fields.
 */
const RULES_PER_FUNCTION = 32;

export function unrolled<Rule extends { condition: Condition }>(rules: readonly Rule[]): FailingRules<Rule> {
  if (rules.length <= RULES_PER_FUNCTION) return unrolledPiece(rules);
  const pieces: FailingRules<Rule>[] = [];
  for (let start = 0; start < rules.length; start += RULES_PER_FUNCTION) pieces.push(unrolledPiece(rules.slice(start, start + RULES_PER_FUNCTION)));
  return (facts, at) => {
    let failing: Rule[] | undefined;
    for (const piece of pieces) {
      const failed = piece(facts, at);
      if (failed.length > 0) (failing ??= []).push(...failed);
    }
    return failing ?? NONE;
  };
}

function unrolledPiece<Rule extends { condition: Condition }>(rules: readonly Rule[]): FailingRules<Rule> {
  const constants: unknown[] = [];
  const constant = (value: unknown): string => `k${constants.push(value) - 1}`;
  // Each field's locals, made on first use: its text as read (t), folded (f), as a number (n).
  const fields = new Map<ResolvedField, number>();
  const local = (field: ResolvedField, kind: "t" | "f" | "n"): string => {
    let index = fields.get(field);
    if (index === undefined) fields.set(field, (index = fields.size));
    return `${kind}${index}`;
  };
  const readers = new Map<ResolvedField, string>();
  const read = (field: ResolvedField): string => {
    // A lead field is read by its name: a reader shared by every lead field reads by a computed one.
    if (field.leadKey !== undefined) return `textOf(facts.lead[${JSON.stringify(field.leadKey)}])`;
    let reader = readers.get(field);
    if (reader === undefined) readers.set(field, (reader = constant(field.read)));
    return `${reader}(facts, at)`;
  };
  const text = (field: ResolvedField): string => {
    const t = local(field, "t");
    return `(${t} === UNREAD ? (${t} = ${read(field)}) : ${t})`;
  };
  const folded = (field: ResolvedField): string => `(${local(field, "f")} ??= fold(${text(field)}))`;
  const number = (field: ResolvedField): string => `(${local(field, "n")} ??= numberOf(${text(field)}))`;

  const leaf = (field: ResolvedField, test: LeafTest): string => {
    switch (test.op) {
      case "blank":
        return `${folded(field)} === ""`;
      case "not_blank":
        return `${folded(field)} !== ""`;
      case "in":
        return `${constant(test.values)}.has(${folded(field)})`;
      case "not_in":
        return `!${constant(test.values)}.has(${folded(field)})`;
      case "equals":
        return `${folded(field)} === ${constant(test.expected)}`;
      case "not_equals":
        return `${folded(field)} !== ${constant(test.expected)}`;
      case "starts_with":
        return `${folded(field)}.startsWith(${constant(test.expected)})`;
      case "contains":
        return `${folded(field)}.includes(${constant(test.expected)})`;
      case "less_than":
        return `${number(field)} < ${constant(test.bound)}`;
      case "greater_than":
        return `${number(field)} > ${constant(test.bound)}`;
      case "matches":
        return `${constant(test.pattern)}.match(${text(field)} ?? "")`;
    }
  };
  const expression = (condition: Condition): string => {
    switch (condition.kind) {
      case "never":
        return "false";
      case "leaf":
        return `(${leaf(condition.field, condition.test)})`;
      case "not":
        return `!${expression(condition.inner)}`;
      case "all":
      case "any": {
        const parts = condition.parts.map(expression);
        if (parts.length === 0) return condition.kind === "all" ? "true" : "false";
        return `(${parts.join(condition.kind === "all" ? " && " : " || ")})`;
      }
    }
  };

  const checks = rules.map((rule) => `if (!${expression(rule.condition)}) (failing ??= []).push(${constant(rule)});`);
  const locals = [...fields.values()]
    .flatMap((index) => [`t${index} = UNREAD`, `f${index}`, `n${index}`])
    .concat("failing")
    .join(", ");
  const names = constants.map((_, i) => `k${i}`).join(", ");
  const source = `const [${names}] = k;\nreturn (facts, at) => {\nlet ${locals};\n${checks.join("\n")}\nreturn failing ?? NONE;\n};`;
  return new Function("fold", "numberOf", "textOf", "NONE", "UNREAD", "k", source)(fold, numberOf, textOf, NONE, UNREAD, constants);
}
