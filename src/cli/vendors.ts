// `lead-ingress vendors …`: manage vendor credentials without touching the database by hand.
import { addVendor, listVendors, rotatePassword, rotateSigningSecret, rotationConsequence, setVendorEnabled, signingSecretStatus } from "../auth/vendors.ts";
import { overlapEnd } from "../callbacks/signing-secrets.ts";
import { loadConfig } from "../config/index.ts";
import { findVendorOverview, type VendorOverview } from "../operations/vendors.ts";
import { createSignInLink, portalOrigin } from "../portal-access/sessions.ts";
import type { CommandContext, CommandGroup, Subcommand } from "./command.ts";
import { OperatorError, takeFlag, takeRequired, takeSwitch } from "./args.ts";
import { count, isoTime, json, renderFields, renderListing, tableTime } from "./output.ts";

/** Secrets are printed once, as aligned lines, followed by why they must be kept now. */
function printSecrets(context: CommandContext, fields: [string, string][], note: string): number {
  for (const line of renderFields(fields, "")) context.print(line);
  context.print(note);
  return 0;
}

function enabling(enabled: boolean): Subcommand {
  return {
    args: "NAME",
    about: enabled ? "Lets a disabled vendor authenticate again." : "Locks a vendor out at once (401), even in the running service; its data stays.",
    async run(args, context) {
      const name = takeRequired(args, "NAME");
      await context.useDatabase(args, (database) => setVendorEnabled(database.store, name, enabled, context.actor));
      context.print(`Vendor ${name} is ${enabled ? "enabled" : "disabled"}.`);
      return 0;
    },
  };
}

export const vendorsGroup: CommandGroup = {
  name: "vendors",
  about: "Add, list and show vendors, disable and enable them; rotate their passwords and signing secrets.",
  subcommands: {
    add: {
      args: "NAME [--password PASSWORD]",
      about: "Creates a vendor and prints its password (generated unless given) and signing secret, once.",
      async run(args, context) {
        const name = takeRequired(args, "NAME");
        const password = takeFlag(args, "--password");
        const created = await context.useDatabase(args, (database) => addVendor(database.store, name, context.actor, password));
        return printSecrets(
          context,
          [
            ["vendor:", created.vendor.name],
            ["password:", created.password],
            ["signing secret:", created.vendor.signingSecret],
          ],
          "Store these now: the password is not shown again.",
        );
      },
    },
    list: {
      args: "[--json]",
      about:
        "Lists vendors by name: enabled or disabled, created, last changed, and until when a rotated signing secret's old one still signs (- when none does). Never shows secrets.",
      async run(args, context) {
        const asJson = takeSwitch(args, "--json");
        const vendors = await context.useDatabase(args, (database) => listVendors(database.store));
        const now = Date.now();
        const lines = renderListing(vendors, {
          asJson,
          asJsonValue: (v) => ({
            name: v.name,
            enabled: v.enabled,
            created_at: isoTime(v.createdAt),
            updated_at: isoTime(v.updatedAt),
            old_secret_signs_until: isoTime(overlapEnd(v, now)),
          }),
          empty: "No vendors. Add one with: lead-ingress vendors add NAME",
          headers: ["NAME", "STATUS", "CREATED", "UPDATED", "OLD SECRET SIGNS UNTIL"],
          row: (v) => [v.name, v.enabled ? "enabled" : "disabled", tableTime(v.createdAt), tableTime(v.updatedAt), tableTime(overlapEnd(v, now))],
        });
        for (const line of lines) context.print(line);
        return 0;
      },
    },
    show: {
      args: "NAME [--json]",
      about:
        "Shows a vendor (enabled or disabled, created, last changed, its signing secret's status: whether a rotation's old secret still signs and until when; never its secrets) and how many of its leads are pending, accepted and rejected.",
      async run(args, context) {
        const name = takeRequired(args, "NAME");
        const asJson = takeSwitch(args, "--json");
        const overview = await context.useDatabase(args, (database) => findVendorOverview(database.store, name));
        if (!overview) throw new OperatorError(`No such vendor: ${name}`);
        const now = Date.now();
        if (asJson) context.print(json(overviewAsJson(overview, now)));
        else for (const line of describeVendor(overview, now)) context.print(line);
        return 0;
      },
    },
    disable: enabling(false),
    enable: enabling(true),
    "rotate-password": {
      args: "NAME [--password PASSWORD]",
      about: "Replaces a vendor's password (generated unless given) and prints it once; the old one stops working at once.",
      async run(args, context) {
        const name = takeRequired(args, "NAME");
        const password = takeFlag(args, "--password");
        const rotated = await context.useDatabase(args, (database) => rotatePassword(database.store, name, context.actor, password));
        return printSecrets(
          context,
          [
            ["vendor:", name],
            ["password:", rotated.password],
          ],
          "Store it now: it is not shown again. The old password no longer works.",
        );
      },
    },
    "rotate-secret": {
      args: "NAME [--signing-secret-overlap DURATION]",
      about:
        "Makes a new callback signing secret for a vendor and prints it once, with when the old one stops signing: until then every callback carries both signatures (the overlap: --signing-secret-overlap, else $LEAD_INGRESS_SIGNING_SECRET_OVERLAP, else 24h; 0s stops the old one at once). Rotating again during an overlap drops the oldest secret at once.",
      async run(args, context) {
        const name = takeRequired(args, "NAME");
        const { signingSecretOverlapMs } = configWithFlags(args, context, ["--signing-secret-overlap"]);
        const rotated = await context.useDatabase(args, (database) => rotateSigningSecret(database.store, name, context.actor, signingSecretOverlapMs));
        return printSecrets(
          context,
          [
            ["vendor:", name],
            ["signing secret:", rotated.signingSecret],

            // To the millisecond: the moment a receiver's clock is compared against.
            ["old secret signs until:", isoTime(rotated.oldSecretStopsAt) ?? "-"],
          ],
          `Store it now and give it to the vendor: it is not shown again. ${rotationConsequence(rotated, isoTime)}`,
        );
      },
    },
    "portal-link": {
      args: "NAME [--public-url URL] [--portal-link-lifetime DURATION]",
      about:
        "Prints a one-time link that signs the vendor in to its portal (/portal on the API's listener), valid for --portal-link-lifetime (else $LEAD_INGRESS_PORTAL_LINK_LIFETIME, else 15m) and only once. The link starts with --public-url (else $LEAD_INGRESS_PUBLIC_URL, else the listener's own address from --host and --port). Audited.",
      async run(args, context) {
        const name = takeRequired(args, "NAME");
        const config = configWithFlags(args, context, ["--public-url", "--portal-link-lifetime"]);
        const link = await context.useDatabase(args, (database) => createSignInLink(database.store, name, context.actor, config.portalLinkLifetimeMs));
        return printSecrets(
          context,
          [
            ["vendor:", name],
            ["sign-in link:", `${portalOrigin(config)}${link.path}`],
            ["valid until:", isoTime(link.expiresAt) ?? "-"],
          ],
          "Give it to the vendor by a channel you trust: anyone with it can sign in as the vendor until it is used or expires.",
        );
      },
    },
  },
};

/** The service's configuration from the environment and these of the service's flags, taken from `args`. */
function configWithFlags(args: string[], context: CommandContext, flags: string[]) {
  const given = flags.flatMap((flag) => {
    const value = takeFlag(args, flag);
    return value === undefined ? [] : [flag, value];
  });
  return loadConfig(context.env, given);
}

function overviewAsJson({ vendor, leadsByStatus }: VendorOverview, now: number) {
  return {
    name: vendor.name,
    enabled: vendor.enabled,
    created_at: isoTime(vendor.createdAt),
    updated_at: isoTime(vendor.updatedAt),
    old_secret_signs_until: isoTime(overlapEnd(vendor, now)),
    leads: leadsByStatus,
  };
}

function describeVendor({ vendor, leadsByStatus }: VendorOverview, now: number): string[] {
  const leads = Object.entries(leadsByStatus)
    .map(([status, n]) => `${count(n)} ${status}`)
    .join(", ");
  return renderFields(
    [
      ["vendor:", vendor.name],
      ["status:", vendor.enabled ? "enabled" : "disabled"],
      ["created:", isoTime(vendor.createdAt)],
      ["updated:", isoTime(vendor.updatedAt)],
      ["signing secret:", signingSecretStatus(vendor, now, isoTime)],
      ["leads:", leads],
    ],
    "",
  );
}
