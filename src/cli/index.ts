// The command line: `lead-ingress [serve] [flags]`, `migrate`, `vendors …`.
import { ConfigError, describeOptions, loadConfig, type Config } from "../config/index.ts";
import { openDatabase } from "../db/client.ts";
import { VendorError } from "../auth/vendors.ts";
import { createLogger } from "../log/index.ts";
import { startServer } from "../server.ts";
import { UsageError } from "./args.ts";
import { vendorsCommand, VENDORS_HELP } from "./vendors.ts";
import { leadsCommand, LEADS_HELP } from "./leads.ts";
import { MOCK_RECEIVER_HELP, mockReceiverCommand } from "../mock-receiver/cli.ts";

const HELP = `lead-ingress: takes sales leads over HTTP, checks, stores and decides them, and calls vendors back.

Usage:
  lead-ingress [serve] [options]     Start the service (the default command).
  lead-ingress migrate [options]     Create or migrate the database, then exit.
  lead-ingress vendors add|list      Manage vendors (see: lead-ingress vendors --help).
  lead-ingress leads decide ID accept|reject [--reason TEXT]
                                     Record an operator decision during a lead's hold.
  lead-ingress mock-receiver         A mock vendor callback receiver for testing (see --help).

Options (flag / environment variable):
${describeOptions()}`;

const COMMAND_HELP: Record<string, string> = { vendors: VENDORS_HELP, leads: LEADS_HELP, "mock-receiver": MOCK_RECEIVER_HELP };

export interface CliIo {
  env: Record<string, string | undefined>;
  print: (line: string) => void;
  printError: (line: string) => void;
}

/** Runs one command; resolves to the exit code (serve resolves when the server has stopped). */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const args = [...argv];
  const command = args[0] !== undefined && !args[0].startsWith("--") ? args.shift()! : "serve";
  const config = (rest: string[]): Config => loadConfig(io.env, rest);
  try {
    if (args.includes("--help") || args.includes("-h") || command === "help") {
      io.print(COMMAND_HELP[command] ?? HELP);
      return 0;
    }
    switch (command) {
      case "serve":
        return await serve(config(args));
      case "migrate": {
        const handle = openDatabase(config(args).databasePath);
        handle.close();
        io.print("Database is migrated.");
        return 0;
      }
      case "vendors":
        return await vendorsCommand(args, config, io.print);
      case "leads":
        return await leadsCommand(args, config, io.print);
      case "mock-receiver":
        return await mockReceiverCommand(args, io.print);
      default:
        throw new UsageError(`Unknown command: ${command}\n\n${HELP}`);
    }
  } catch (error) {
    if (error instanceof ConfigError || error instanceof UsageError || error instanceof VendorError) {
      io.printError(error.message);
      return 2;
    }
    throw error;
  }
}

async function serve(config: Config): Promise<number> {
  const log = createLogger(config.logLevel);
  const server = await startServer(config, log);
  return new Promise((resolve) => {
    const shutdown = (signal: string) => {
      log.info("shutting_down", { signal });
      server.stop().then(() => resolve(0));
    };
    process.once("SIGTERM", () => shutdown("SIGTERM"));
    process.once("SIGINT", () => shutdown("SIGINT"));
  });
}
