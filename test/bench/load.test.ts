// The benchmark's load process sends each accept-path request with a number of its own: it patches
// the phone into a request autocannon built once (through a method autocannon does not document),
// so a change in autocannon could send repeats or broken bodies. A receiver records what arrives.
import { expect, test } from "bun:test";
import { PHONE_SLOT, validLeadTemplate } from "../../bench/bodies.ts";
import { formattedPhone } from "../../bench/phones.mjs";

const LOAD = new URL("../../bench/load.mjs", import.meta.url).pathname;

test("every templated request carries the template with the next unused phone of its block", async () => {
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
    const phoneStart = 5_000;
    const options = { url: `http://127.0.0.1:${receiver.port}`, path: "/v1/postLead", headers: {}, connections: 4, duration: 1, warmup: 0, template: validLeadTemplate, slot: PHONE_SLOT, phoneStart, phoneCount: 1_000_000 };
    const load = Bun.spawn(["node", LOAD, JSON.stringify(options)], { stdout: "pipe", stderr: "inherit" });
    expect(await load.exited).toBe(0);
    const result = JSON.parse((await new Response(load.stdout).text()).trim().split("\n").at(-1)!);

    expect(result.total).toBeGreaterThan(10);
    expect(bodies.length).toBeGreaterThanOrEqual(result.total);
    const expected = new Set(Array.from({ length: bodies.length }, (_, i) => validLeadTemplate.replace(PHONE_SLOT, formattedPhone(phoneStart + i))));
    expect(new Set(bodies).size).toBe(bodies.length);
    expect(bodies.filter((body) => !expected.has(body))).toEqual([]);
  } finally {
    receiver.stop(true);
  }
});
