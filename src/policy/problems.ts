// Every way a value breaks a TypeBox schema, each named by its JSON path (RFC 6901) with a message
// an operator can act on. TypeBox's own errors name a union's path without saying which branch was
// meant; this walk picks the branch a condition's keys point to and reports inside it.
import { Kind, type TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";

export interface Problem {
  /** A JSON Pointer into the document, e.g. /rules/2/require/any/0/op. */
  path: string;
  message: string;
}

export const pointer = (path: string, key: string | number): string => `${path}/${String(key).replaceAll("~", "~0").replaceAll("/", "~1")}`;

export const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

type Schema = TSchema & Record<string, unknown>;

/** The most objects and arrays a document may nest, the document itself being the first: conditions ~30 deep. */
export const MAX_DEPTH = 64;

/**
 * The path of the first value nested deeper than MAX_DEPTH, or null. Iterative, so that a hostile
 * document cannot overflow the stack that the recursive walks below use.
 */
export function tooDeep(value: unknown): string | null {
  const stack: [unknown, string, number][] = [[value, "", 1]];
  while (stack.length > 0) {
    const [item, path, depth] = stack.pop()!;
    if (item === null || typeof item !== "object") continue;
    if (depth > MAX_DEPTH) return path;
    for (const [key, child] of Object.entries(item)) stack.push([child, pointer(path, Array.isArray(item) ? Number(key) : key), depth + 1]);
  }
  return null;
}

const plural = (what: string): string =>
  /^an? /.test(what) ? `${what.replace(/^an? /, "")}s` : what.startsWith("{") ? `objects ${what}` : `values that are ${what}`;

/** What a schema admits, in words: "a text", "a list of texts", "one of a, b"; a schema's own `expected` says it better. */
export function describe(schema: Schema): string {
  if (typeof schema.expected === "string") return schema.expected;
  switch (schema[Kind]) {
    case "String":
      return "a text";
    case "Number":
      return "a number";
    case "Integer":
      return "a whole number";
    case "Boolean":
      return "true or false";
    case "Literal":
      return JSON.stringify(schema.const);
    case "Array":
      return `a list of ${plural(describe(schema.items as Schema))}`;
    case "Object":
      return `{${Object.keys(schema.properties as object).join(", ")}}`;
    case "Union":
      return (schema.anyOf as Schema[]).map(describe).join(", or ");
    default:
      return "a value";
  }
}

const literals = (schema: Schema): string[] | null => {
  const variants = schema.anyOf as Schema[];
  return variants.every((variant) => variant[Kind] === "Literal") ? variants.map((variant) => String(variant.const)) : null;
};

/** The object branch whose required keys the value has (a condition's field, all, any or not). */
function branchOf(variants: Schema[], value: Record<string, unknown>): Schema | undefined {
  return variants.find((variant) => ((variant.required as string[] | undefined) ?? []).every((key) => key in value));
}

/** Appends to `out` every problem of `value` against `schema`; `references` resolves recursive references. */
export function schemaProblems(schema: Schema, value: unknown, path: string, out: Problem[], references: ReadonlyMap<string, TSchema>): void {
  const at = path === "" ? "/" : path;
  const problem = (message: string): void => {
    out.push({ path: at, message });
  };
  switch (schema[Kind]) {
    case "This":
    case "Ref":
      schemaProblems(references.get(schema.$ref as string) as Schema, value, path, out, references);
      return;
    case "Object": {
      if (!isPlainObject(value)) {
        problem(`must be an object ${describe(schema)}`);
        return;
      }
      const properties = schema.properties as Record<string, Schema>;
      for (const key of (schema.required as string[] | undefined) ?? [])
        if (value[key] === undefined) out.push({ path: pointer(path, key), message: "is required" });
      for (const [key, item] of Object.entries(value)) {
        if (item === undefined) continue; // JSON has no undefined: a JavaScript caller's absent property
        // Own properties only: `toString` or `constructor` must not find Object.prototype's.
        const property = Object.hasOwn(properties, key) ? properties[key] : undefined;
        if (property === undefined) out.push({ path: pointer(path, key), message: `is not a known property (known: ${Object.keys(properties).join(", ")})` });
        else schemaProblems(property, item, pointer(path, key), out, references);
      }
      return;
    }
    case "Array": {
      if (!Array.isArray(value)) {
        problem(`must be ${describe(schema)}`);
        return;
      }
      const minItems = schema.minItems as number | undefined;
      if (minItems !== undefined && value.length < minItems) problem(`must have at least ${minItems} item${minItems === 1 ? "" : "s"}`);
      value.forEach((item, index) => schemaProblems(schema.items as Schema, item, pointer(path, index), out, references));
      return;
    }
    case "String": {
      if (typeof value !== "string") {
        problem("must be a text");
        return;
      }
      const { minLength, maxLength, pattern } = schema as { minLength?: number; maxLength?: number; pattern?: string };
      if (minLength !== undefined && value.length < minLength) problem(minLength === 1 ? "must not be empty" : `must have at least ${minLength} characters`);
      if (maxLength !== undefined && value.length > maxLength) problem(`must have at most ${maxLength} characters`);
      if (pattern !== undefined && !new RegExp(pattern).test(value)) problem(`must match ${pattern}`);
      return;
    }
    case "Integer":
    case "Number": {
      if (typeof value !== "number" || !Number.isFinite(value)) {
        problem(`must be ${describe(schema)}`);
        return;
      }
      if (schema[Kind] === "Integer" && !Number.isInteger(value)) {
        problem("must be a whole number");
        return;
      }
      const { minimum, maximum } = schema as { minimum?: number; maximum?: number };
      if (minimum !== undefined && value < minimum) problem(`must be at least ${minimum}`);
      if (maximum !== undefined && value > maximum) problem(`must be at most ${maximum}`);
      return;
    }
    case "Boolean":
      if (typeof value !== "boolean") problem("must be true or false");
      return;
    case "Union": {
      const variants = schema.anyOf as Schema[];
      const names = literals(schema);
      if (names !== null) {
        if (!names.includes(value as string)) problem(`must be one of ${names.join(", ")}`);
        return;
      }
      if (variants.every((variant) => variant[Kind] === "Object")) {
        const branch = isPlainObject(value) ? branchOf(variants, value) : undefined;
        if (branch === undefined) {
          problem(`must be one of ${variants.map(describe).join(", ")}`);
          return;
        }
        schemaProblems(branch, value, path, out, references);
        return;
      }
      if (!variants.some((variant) => Value.Check(variant, value))) problem(`must be ${describe(schema)}`);
      return;
    }
    default:
      return;
  }
}
