// `bun bench/policy-eval.ts [OLD_CHECKOUT] [rounds] [leads]`: the policy's own cost per request,
// without a server: bench/policy.json compiled, then what intake asks the policy per postLead and
// per prePing (policy-in-force/intake.ts: the schedule, the rules in scope, the caps' slots in their
// windows) timed over `leads` validated leads of the bench's workload (workload.mjs, phones.mjs),
// the clock moving at 3,000 requests a second as in a loaded server (so minute and hour boundaries
// are crossed). Prints ns per request for each round after a warm-up. With OLD_CHECKOUT (e.g. a
// `git worktree add` of the commit before a change), its modules are timed too, in alternating
// rounds in this one process, and the medians' ratio is printed: an A/B that survives a busy machine.
// `-` for OLD_CHECKOUT times this checkout alone.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { validateLead, validatePrePing } from "../src/intake/validate.ts";
import type { IntakePolicy, ValidPing } from "../src/intake/policy-port.ts";
import type { ValidLead } from "../src/intake/lead-schema.ts";
import { PHONE_SLOT, workloadLeadTemplate } from "./bodies.ts";
import { createWorkload } from "./workload.mjs";
import { formattedPhone } from "./phones.mjs";

const [oldArg, roundsText = "7", leadsText = "20000"] = process.argv.slice(2);
const oldDir = oldArg === "" || oldArg === "-" ? undefined : oldArg;
const rounds = Number(roundsText);
const leadCount = Number(leadsText);
const VENDOR = "bench";
/** A Wednesday 15:00 UTC (open in the schedule's America/Chicago), advancing 1/3 ms a request. */
const START = Date.UTC(2026, 10, 25, 15, 0, 0);
const STEP_MS = 1 / 3;

const document = JSON.parse(readFileSync(new URL("./policy.json", import.meta.url), "utf8"));

/** intakePolicy over bench/policy.json, from the checkout at `dir`. */
async function policyOf(dir: string): Promise<IntakePolicy> {
  const { compilePolicy } = await import(resolve(dir, "src/policy/index.ts"));
  const { intakePolicy } = await import(resolve(dir, "src/policy-in-force/intake.ts"));
  const compiled = compilePolicy(document);
  return intakePolicy({ current: () => compiled });
}

const workload = createWorkload({ template: workloadLeadTemplate, slot: PHONE_SLOT, invalidBody: "{}", phoneStart: 1, callbackBase: "https://bench.example" });
const leads: ValidLead[] = [];
for (let i = 0; i < leadCount; i++) {
  const validation = validateLead(JSON.parse(workload.next().body), { allowPrivateCallbacks: false });
  if (!validation.ok) throw new Error(`the workload's lead is invalid: ${validation.errors.join("; ")}`);
  leads.push(validation.value);
}
// prePings as the bench sends them (a number alone) and with the campaign (which the rules then judge).
const pings: ValidPing[] = leads.map((_, i) => {
  const body = i % 2 === 0 ? { phone_number: formattedPhone(i + 1) } : { phone_number: formattedPhone(i + 1), vendor_campaign_name: "bench" };
  const validation = validatePrePing(body);
  if (!validation.ok) throw new Error(validation.errors.join("; "));
  return validation.value;
});

let clock = START;
/** Keeps the answers alive, so that no call is optimised away. */
let sink = 0;

/** ns per request of `ask` over every lead (or ping). */
function time<T>(items: readonly T[], ask: (item: T, at: number) => unknown): number {
  const started = Bun.nanoseconds();
  for (const item of items) {
    const answer = ask(item, clock);
    clock += STEP_MS;
    if (answer !== null) sink++;
  }
  return (Bun.nanoseconds() - started) / items.length;
}

const sides: [string, IntakePolicy][] = [["this", await policyOf(resolve(import.meta.dir, ".."))]];
if (oldDir !== undefined) sides.unshift(["old", await policyOf(oldDir)]);

// Both answer the same (a change to the evaluator must not change an answer), a second apart.
for (const [name, policy] of sides.slice(1)) {
  const [, reference] = sides[0]!;
  for (const [i, lead] of leads.slice(0, 2_000).entries()) {
    const at = START + i * 1000;
    const same =
      JSON.stringify(policy.postLead(VENDOR, lead, at)) === JSON.stringify(reference.postLead(VENDOR, lead, at)) &&
      JSON.stringify(policy.prePing(VENDOR, pings[i]!, at)) === JSON.stringify(reference.prePing(VENDOR, pings[i]!, at));
    if (!same) throw new Error(`${name} answers lead ${i} differently from ${sides[0]![0]}`);
  }
}

const figures = new Map(sides.map(([name]) => [name, { postLead: [] as number[], prePing: [] as number[] }]));
const measure = (name: string, policy: IntakePolicy) => {
  const postLead = time(leads, (lead, at) => policy.postLead(VENDOR, lead, at));
  const prePing = time(pings, (ping, at) => policy.prePing(VENDOR, ping, at));
  figures.get(name)!.postLead.push(postLead);
  figures.get(name)!.prePing.push(prePing);
  return `${name} postLead ${postLead.toFixed(0)} ns, prePing ${prePing.toFixed(0)} ns`;
};

// Warm-up: JavaScriptCore optimises a function after some thousands of calls, a long one later.
const WARM_UP_REQUESTS = 100_000;
for (const [name, policy] of sides) for (let i = 0; i < Math.ceil(WARM_UP_REQUESTS / leadCount); i++) measure(name, policy);
for (const figure of figures.values()) [figure.postLead.length, figure.prePing.length] = [0, 0];
for (let round = 0; round < rounds; round++) {
  const order = round % 2 === 0 ? sides : [...sides].reverse();
  console.log(`round ${round + 1}: ${order.map(([name, policy]) => measure(name, policy)).join("; ")}`);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
for (const [name, { postLead, prePing }] of figures)
  console.log(
    `${name}: median ns per request: postLead ${median(postLead).toFixed(0)}, prePing ${median(prePing).toFixed(0)} (${leadCount} leads, ${rounds} rounds)`,
  );
if (oldDir !== undefined) {
  const [old, now] = [figures.get("old")!, figures.get("this")!];
  console.log(
    `this / old: postLead ${(median(now.postLead) / median(old.postLead)).toFixed(2)}, prePing ${(median(now.prePing) / median(old.prePing)).toFixed(2)}`,
  );
}
if (sink === 0) console.log("(no answers)");
