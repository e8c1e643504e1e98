// One delivery attempt against receivers on loopback: the answer's excerpt (the first 1 KiB, read
// whole when the answer declares a short length, streamed otherwise) and its wait, which a body
// that stalls must not outlast by much, whichever way it is read.
import { afterAll, describe, expect, test } from "bun:test";
import { attemptDelivery } from "../../src/callbacks/attempt.ts";
import type { DueCallback } from "../../src/store/callbacks/index.ts";

const LONG = "x".repeat(4096);
const answers: Record<string, () => Response> = {
  "/short": () => new Response("accepted, thanks", { status: 200 }),
  "/empty": () => new Response("", { status: 200 }),
  "/long": () => new Response(LONG, { status: 503 }),
  "/long-streamed": () => new Response(new ReadableStream({ start: (c) => (c.enqueue(new TextEncoder().encode(LONG)), c.close()) }), { status: 200 }),
  "/stall-streamed": () => new Response(new ReadableStream({ start: (c) => c.enqueue(new TextEncoder().encode("ok, and then nothing")) }), { status: 200 }),
};
const receiver = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (request) => answers[new URL(request.url).pathname]!() });
// Declares 100 bytes and sends 16, then nothing: a short declared length read whole, stalled.
const stallDeclared = Bun.listen({
  hostname: "127.0.0.1",
  port: 0,
  socket: { data: (socket) => void socket.write("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nok, then nothing"), open() {}, close() {} },
});
afterAll(() => {
  receiver.stop(true);
  stallDeclared.stop(true);
});

const callback = (url: string): DueCallback => ({
  id: "cb-1",
  leadId: "lead-1",
  vendorId: "vendor-1",
  url,
  payload: '{"lead_id":"lead-1"}',
  attemptCount: 0,
  signingSecret: `whsec_${Buffer.from("0123456789abcdef0123456789abcdef").toString("base64")}`,
  previousSigningSecret: null,
  previousSecretUntil: null,
});
const attempt = (url: string) => attemptDelivery(callback(url), { allowPrivate: true, timeoutMs: 10_000, clock: Date.now });
const at = (path: string) => `http://127.0.0.1:${receiver.port}${path}`;

describe("the excerpt of the answer", () => {
  test("is a short answer whole, and nothing for an empty one", async () => {
    expect(await attempt(at("/short"))).toMatchObject({ statusCode: 200, error: null, responseExcerpt: "accepted, thanks" });
    expect(await attempt(at("/empty"))).toMatchObject({ statusCode: 200, error: null, responseExcerpt: null });
  });

  test("is the first 1 KiB of a longer answer, of declared length or streamed", async () => {
    expect(await attempt(at("/long"))).toMatchObject({ statusCode: 503, error: "HTTP 503", responseExcerpt: LONG.slice(0, 1024) });
    expect(await attempt(at("/long-streamed"))).toMatchObject({ statusCode: 200, responseExcerpt: LONG.slice(0, 1024) });
  });

  test("of a body that stalls is waited for about a second, and the status line still decides", async () => {
    const streamed = await attempt(at("/stall-streamed"));
    expect(streamed).toMatchObject({ statusCode: 200, error: null, responseExcerpt: "ok, and then nothing" });
    const declared = await attempt(`http://127.0.0.1:${stallDeclared.port}/`);
    expect(declared).toMatchObject({ statusCode: 200, error: null, responseExcerpt: null });
    for (const result of [streamed, declared]) expect(result.durationMs).toBeGreaterThanOrEqual(900);
    for (const result of [streamed, declared]) expect(result.durationMs).toBeLessThan(3_000);
  });
});
