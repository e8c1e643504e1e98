// `lead-ingress vendors …`: manage vendor credentials without touching the database by hand.
import type { Config } from "../config/index.ts";
import { openDatabase } from "../db/client.ts";
import { createVendor, listVendors } from "../auth/vendors.ts";
import { takeFlag, takePositionals, UsageError } from "./args.ts";

export const VENDORS_HELP = `Usage:
  lead-ingress vendors add NAME [--password PASSWORD] [--database FILE]
      Creates a vendor and prints its password (generated unless given) and signing secret once.
  lead-ingress vendors list [--database FILE]`;

export async function vendorsCommand(args: string[], loadConfig: (rest: string[]) => Config, print: (line: string) => void): Promise<number> {
  const [action] = takePositionals(args, 1);
  if (action === "add") {
    const [name] = takePositionals(args, 1);
    if (!name) throw new UsageError(`vendors add needs a NAME\n${VENDORS_HELP}`);
    const password = takeFlag(args, "--password");
    const database = openDatabase(loadConfig(args).databasePath);
    try {
      const created = await createVendor(database.db, name, password);
      print(`vendor:         ${created.vendor.name}`);
      print(`password:       ${created.password}`);
      print(`signing secret: ${created.vendor.signingSecret}`);
      print("Store these now: the password is not shown again.");
    } finally {
      database.close();
    }
    return 0;
  }
  if (action === "list") {
    const database = openDatabase(loadConfig(args).databasePath);
    try {
      for (const v of listVendors(database.db)) print(`${v.name}\t${v.enabled ? "enabled" : "disabled"}\t${new Date(v.createdAt).toISOString()}`);
    } finally {
      database.close();
    }
    return 0;
  }
  throw new UsageError(VENDORS_HELP);
}
