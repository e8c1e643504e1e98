// `lead-ingress checks …`: what the operator needs to set up external check services
// (docs/checks.md): the secret that signs their requests.
import { ensureChecksSecret } from "../checks/secret.ts";
import type { CommandGroup } from "./command.ts";

export const checksGroup: CommandGroup = {
  name: "checks",
  about: "External checks of the policy: print the secret their requests are signed with.",
  subcommands: {
    secret: {
      args: "",
      about:
        "Prints the checks signing secret (whsec_…): give it to each check service, which verifies the requests' Standard Webhooks signature with it. " +
        "Generated once, on the service's first start or here, whichever comes first, and the same for every instance.",
      async run(args, context) {
        context.print(await context.useDatabase(args, (database) => ensureChecksSecret(database.store)));
        return 0;
      },
    },
  },
};
