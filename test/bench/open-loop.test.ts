// The open-loop generator (bench/open-loop.ts) keeps its schedule whatever the answers do, and
// measures each latency from the request's intended send time (coordinated omission corrected).
// The generator runs in this process against a server started here, so the server can stall it.
import { afterEach, expect, test } from "bun:test";
import { invalidLead, PHONE_SLOT, prePingTemplate } from "../../bench/bodies.ts";
import { runOpenLoop } from "../../bench/open-loop.ts";
import { checkPhoneNumber } from "../../src/intake/phone.ts";

let server: ReturnType<typeof Bun.serve> | undefined;
afterEach(() => server?.stop(true));

const json = (status: number) => new Response("{}", { status, headers: { "content-type": "application/json" } });
const workload = { template: prePingTemplate, slot: PHONE_SLOT, invalidBody: invalidLead, phoneStart: 5_000, callbackBase: "http://127.0.0.1:1" };

test("every scheduled request is sent while none is answered, and the wait counts in its latency", async () => {
  const rate = 200;
  const total = rate; // one second
  const bodies: string[] = [];
  let releaseAll!: () => void;
  const allArrived = new Promise<void>((resolve) => (releaseAll = resolve));
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      bodies.push(await request.text());
      if (bodies.length === total) releaseAll();
      // No answer until the last request is in (a closed-loop generator would wait forever); a
      // deadline turns that into 503s instead of a hung test.
      const released = await Promise.race([allArrived.then(() => true), Bun.sleep(10_000).then(() => false)]);
      return json(released ? 200 : 503);
    },
  });
  const result = await runOpenLoop({ url: server.url.origin, path: "/v1/prePing", headers: {}, connections: 256, rate, duration: 1, warmup: 0, workload });

  expect(result).toMatchObject({ sent: total, answered: total, unanswered: 0, errors: 0, unexpected: 0, statuses: { "valid:200": total } });
  // The first request waited for the last, about a second; half of them at least a third of it.
  expect(result.maxMs).toBeGreaterThan(700);
  expect(result.p50Ms).toBeGreaterThan(300);
  const phones = bodies.map((body) => checkPhoneNumber(JSON.parse(body).phone_number));
  expect(phones.every((phone) => phone.ok)).toBe(true);
  expect(new Set(bodies).size).toBe(total);
});

test("requests the generator sends late are measured from when they were due", async () => {
  let stalled = false;
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch() {
      // The first request blocks this process (server and generator alike) for half a second, so
      // the hundred requests due meanwhile go out late; answered at once after that.
      if (!stalled) {
        stalled = true;
        Bun.sleepSync(500);
      }
      return json(200);
    },
  });
  const result = await runOpenLoop({
    url: server.url.origin,
    path: "/v1/prePing",
    headers: {},
    connections: 256,
    rate: 200,
    duration: 2,
    warmup: 0,
    body: "{}",
  });

  expect(result).toMatchObject({ sent: 400, answered: 400, unexpected: 0 });
  expect(result.sendLagMaxMs).toBeGreaterThan(400);
  // Timed from when they were sent, only the stalled request would be slow (the 400th value of
  // 400); from when they were due, the twenty due in the stall's first 100 ms waited over 400 ms.
  expect(result.p99Ms).toBeGreaterThan(300);
});

test("no more connections are opened than allowed; requests beyond them wait, and the wait counts", async () => {
  let concurrent = 0;
  let mostConcurrent = 0;
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch() {
      mostConcurrent = Math.max(mostConcurrent, ++concurrent);
      await Bun.sleep(100);
      concurrent--;
      return json(200);
    },
  });
  // 100 requests in half a second over 4 connections that each answer 10 a second: 2.5 s to answer all.
  const result = await runOpenLoop({ url: server.url.origin, path: "/x", headers: {}, connections: 4, rate: 200, duration: 0.5, warmup: 0, body: "{}" });

  expect(result).toMatchObject({ sent: 100, answered: 100, errors: 0, unexpected: 0 });
  expect(mostConcurrent).toBe(4);
  expect(result.maxMs).toBeGreaterThan(1_500);
});

test("a connection the server closes is replaced, and a chunked answer is read to its end", async () => {
  let n = 0;
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch() {
      n++;
      if (n % 3 === 0) return new Response("{}", { headers: { connection: "close" } });
      if (n % 3 === 1)
        return new Response(
          new ReadableStream({
            start(c) {
              c.enqueue(new TextEncoder().encode('{"a":'));
              c.enqueue(new TextEncoder().encode("1}"));
              c.close();
            },
          }),
        );
      return json(200);
    },
  });
  const result = await runOpenLoop({ url: server.url.origin, path: "/x", headers: {}, connections: 2, rate: 100, duration: 1, warmup: 0, body: "{}" });

  expect(result).toMatchObject({ sent: 100, answered: 100, errors: 0, unexpected: 0, statuses: { "valid:200": 100 } });
});
