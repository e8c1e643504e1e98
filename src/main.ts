#!/usr/bin/env bun
// Entry point of the service and its operator CLI (also the entry of the compiled binary).
import { runCli } from "./cli/index.ts";

const code = await runCli(process.argv.slice(2), {
  env: process.env,
  print: (line) => console.log(line),
  printError: (line) => console.error(line),
});
process.exit(code);
