#!/usr/bin/env bun
// Entry point of the service and its operator CLI (also the entry of the compiled binary).
import { runCli } from "./cli/index.ts";

const code = await runCli(process.argv.slice(2), {
  env: process.env,
  print: (line) => console.log(line),
  printError: (line) => console.error(line),
}).catch((error: unknown) => {
  // What the CLI did not foresee still ends in one line an operator can act on, not a stack trace.
  console.error(`lead-ingress: ${error instanceof Error ? error.message : String(error)}`);
  return 1;
});
process.exit(code);
