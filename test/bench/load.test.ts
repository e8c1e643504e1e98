// The benchmark's load process sends each accept-path request with a body of its own: it puts the
// workload's next body into a request autocannon built once (through a method autocannon does not
// document), so a change in autocannon could send repeats or broken bodies. A receiver records what
// arrives.
import { expect, test } from "bun:test";
import { invalidLead, PHONE_SLOT, validLeadTemplate, workloadLeadTemplate } from "../../bench/bodies.ts";
import { formattedPhone } from "../../bench/phones.mjs";
import { createWorkload } from "../../bench/workload.mjs";

const LOAD = new URL("../../bench/load.mjs", import.meta.url).pathname;

/** Runs load.mjs for a second against a receiver started here; returns its result and what arrived. */
async function runLoadAgainstReceiver(body: Record<string, unknown>) {
  const bodies: string[] = [];
  const receiver = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      bodies.push(await request.text());
      return new Response("{}", { headers: { "content-type": "application/json" } });
    },
  });
  try {
    const options = { url: `http://127.0.0.1:${receiver.port}`, path: "/v1/postLead", headers: {}, connections: 4, duration: 1, warmup: 0, ...body };
    const load = Bun.spawn(["node", LOAD, JSON.stringify(options)], { stdout: "pipe", stderr: "inherit" });
    expect(await load.exited).toBe(0);
    const result = JSON.parse((await new Response(load.stdout).text()).trim().split("\n").at(-1)!);
    expect(result.total).toBeGreaterThan(10);
    expect(bodies.length).toBeGreaterThanOrEqual(result.total);
    return bodies;
  } finally {
    receiver.stop(true);
  }
}

test("every templated request carries the template with the next unused phone of its block", async () => {
  const phoneStart = 5_000;
  const bodies = await runLoadAgainstReceiver({ template: validLeadTemplate, slot: PHONE_SLOT, phoneStart, phoneCount: 1_000_000 });
  const expected = new Set(Array.from({ length: bodies.length }, (_, i) => validLeadTemplate.replace(PHONE_SLOT, formattedPhone(phoneStart + i))));
  expect(new Set(bodies).size).toBe(bodies.length);
  expect(bodies.filter((body) => !expected.has(body))).toEqual([]);
});

test("with a workload, the requests carry the workload's bodies, duplicates and invalid leads included", async () => {
  const workload = {
    template: workloadLeadTemplate,
    slot: PHONE_SLOT,
    invalidBody: invalidLead,
    phoneStart: 9_000,
    callbackBase: "http://127.0.0.1:9090",
    shares: { duplicate: 0.1, invalid: 0.1 },
    seed: 7,
  };
  const bodies = await runLoadAgainstReceiver({ workload });
  // The same seed replays the same bodies (a request cut off at the end may leave a gap; the
  // connections may deliver them in another order).
  const replay = createWorkload(workload);
  const expected = new Set(Array.from({ length: bodies.length + 50 }, () => replay.next().body));
  expect(bodies.filter((body) => !expected.has(body))).toEqual([]);
  expect(bodies.filter((body) => body === invalidLead).length).toBeGreaterThan(0);
});
