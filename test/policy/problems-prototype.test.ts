// A document's keys are data: a key named like an Object.prototype member is an unknown property
// like any other (found by the property test with the seed 989756457: `{"toString": null}`).
import { expect, test } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import { type Problem, schemaProblems } from "../../src/policy/problems.ts";
import { PolicyDocument, REFERENCES } from "../../src/policy/schema.ts";

test.each(["toString", "constructor", "hasOwnProperty", "__proto__"])("a key named %s is not a known property, as TypeBox's check says", (key) => {
  const value = JSON.parse(`{"rules": [], "${key}": null}`);
  const problems: Problem[] = [];
  schemaProblems(PolicyDocument, value, "", problems, REFERENCES);
  expect(problems.map((problem) => problem.path)).toEqual([`/${key}`]);
  expect(Value.Check(PolicyDocument, value)).toBe(false);
});
