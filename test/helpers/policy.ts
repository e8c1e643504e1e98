// Installing a policy document while a service runs, as the operator does, and waiting until the
// service applies it: the document gains a rule only a prePing with a campaign of its own falls
// under, which prePing judges (refused: the new document is in force).
import { importPolicy } from "../../src/policy-in-force/manage.ts";
import type { Store } from "../../src/store/index.ts";
import { prePing } from "./api.ts";
import { uniquePhone } from "./leads.ts";

let probes = 0;

/** Answers how long the servers took to apply it, in ms (from the import to the last one's refusal). */
export async function installPolicy(store: Store, servers: { url: string }[], authorization: string, document: Record<string, unknown>): Promise<number> {
  const campaign = `probe-${process.pid}-${++probes}`;
  const probe = { name: campaign, campaigns: [campaign], require: { field: "campaign", op: "equals", value: "never" }, reason: campaign };
  const rules = [...((document.rules as unknown[] | undefined) ?? []), probe];
  const outcome = await importPolicy(store, JSON.stringify({ ...document, rules }), "cli:test");
  if (outcome.kind !== "imported") throw new Error(`not imported: ${JSON.stringify(outcome)}`);
  const started = Date.now();
  for (const server of servers) {
    for (;;) {
      const answer = await prePing(server, authorization, { phone_number: uniquePhone(), vendor_campaign_name: campaign });
      if (answer.status === 422) break;
      if (Date.now() - started > 5_000) throw new Error(`${server.url} did not apply the imported policy within 5 s`);
      await Bun.sleep(25);
    }
  }
  return Date.now() - started;
}
