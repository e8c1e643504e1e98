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

/** Removes the leading positional arguments (those before the first --flag). */
export function takePositionals(args: string[], count: number): string[] {
  const out: string[] = [];
  while (out.length < count && args[0] !== undefined && !args[0].startsWith("--")) out.push(args.shift()!);
  return out;
}

export class UsageError extends Error {}
