import { parseDuration, parseInteger } from "../config/parse.ts";

/** The command line is wrong (unknown command, missing or bad argument): exit 2, with usage. */
export class UsageError extends Error {}

/** The command is well-formed but names something that does not exist or cannot be done: exit 2. */
export class OperatorError extends Error {}

/** Removes `--name value` / `--name=value` from args and returns the value (undefined if absent). */
export function takeFlag(args: string[], name: string): string | undefined {
  const i = args.findIndex((a) => a === name || a.startsWith(`${name}=`));
  if (i < 0) return undefined;
  const arg = args[i]!;
  if (arg.includes("=")) {
    args.splice(i, 1);
    return arg.slice(name.length + 1);
  }
  const value = args[i + 1];
  if (value === undefined) throw new UsageError(`${name} needs a value`);
  args.splice(i, 2);
  return value;
}

/** Removes a `--name` switch (no value); true when it was given. */
export function takeSwitch(args: string[], name: string): boolean {
  const i = args.indexOf(name);
  if (i >= 0) args.splice(i, 1);
  return i >= 0;
}

/** Removes the leading positional arguments (those before the first --flag). */
export function takePositionals(args: string[], count: number): string[] {
  const out: string[] = [];
  while (out.length < count && args[0] !== undefined && !args[0].startsWith("--")) out.push(args.shift()!);
  return out;
}

/** Removes the next positional argument; a usage error names it when it is missing. */
export function takeRequired(args: string[], name: string): string {
  const [value] = takePositionals(args, 1);
  if (value === undefined) throw new UsageError(`Missing ${name}`);
  return value;
}

/** Removes `--name value` and checks the value is one of `choices`. */
export function takeChoice<T extends string>(args: string[], name: string, choices: readonly T[]): T | undefined {
  const value = takeFlag(args, name);
  if (value !== undefined && !choices.includes(value as T)) throw new UsageError(`${name} must be one of ${choices.join(", ")}; got ${JSON.stringify(value)}`);
  return value as T | undefined;
}

const parseLimit = parseInteger(1, 1_000_000);

/** Removes `--limit N` (1 to 1,000,000); `fallback` when absent. */
export function takeLimit(args: string[], fallback: number): number {
  const value = takeFlag(args, "--limit");
  if (value === undefined) return fallback;
  try {
    return parseLimit(value);
  } catch (error) {
    throw new UsageError(`--limit: ${(error as Error).message}`);
  }
}

/** A date-time needs its zone (Z or ±hh:mm), so the same text means the same instant on any machine. */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2}))?$/;

/** A time flag (--since, --until): a duration back from `now` (30m, 2h, 7d) or an ISO 8601 date or date-time. */
export function takeTime(args: string[], name: string, now: number): number | undefined {
  const text = takeFlag(args, name);
  if (text === undefined) return undefined;
  const at = ISO_TIME.test(text) ? Date.parse(text) : Number.NaN;
  if (!Number.isNaN(at)) return at;
  try {
    return now - parseDuration(text);
  } catch {
    throw new UsageError(`${name} must be a duration such as 30m, 2h or 7d, or an ISO 8601 time such as 2025-06-01T12:00:00Z; got ${JSON.stringify(text)}`);
  }
}
