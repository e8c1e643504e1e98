// `mock-receiver` as a separate process: prints its URL, logs one JSON line per callback, and exits
// 0 on SIGTERM even with a hanging and an hour-long delayed request open.
import { expect, test } from "bun:test";
import { join } from "node:path";
import { Webhook } from "standardwebhooks";
import { UsageError } from "../../src/cli/args.ts";
import { mockReceiverCommand } from "../../src/cli/mock-receiver.ts";

const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

/** Hands out stdout lines one at a time, waiting for the next when none is buffered. */
function lineReader(stream: ReadableStream<Uint8Array>): () => Promise<string> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  return async () => {
    for (let reads = 0; !buffered.includes("\n"); reads++) {
      if (reads > 1000) throw new Error("no complete line after 1000 reads");
      const { value, done } = await reader.read();
      if (done) throw new Error(`stdout ended; unfinished output: ${JSON.stringify(buffered)}`);
      buffered += decoder.decode(value, { stream: true });
    }
    const end = buffered.indexOf("\n");
    const line = buffered.slice(0, end);
    buffered = buffered.slice(end + 1);
    return line;
  };
}

test("prints its URL, logs each callback as a JSON line, and exits 0 on SIGTERM", async () => {
  const child = Bun.spawn([process.execPath, join(import.meta.dir, "run-cli.ts"), "--port", "0", "--secret", SECRET], {
    stdout: "pipe",
    stderr: "pipe",
  });
  try {
    const nextLine = lineReader(child.stdout);
    const origin = /http:\/\/127\.0\.0\.1:\d+/.exec(await nextLine())?.[0];
    expect(origin).toBeDefined();

    const body = '{"lead_id":"L1"}';
    const now = new Date();
    const headers = {
      "webhook-id": "msg_1",
      "webhook-timestamp": String(Math.floor(now.getTime() / 1000)),
      "webhook-signature": new Webhook(SECRET).sign("msg_1", now, body),
    };
    await fetch(`${origin}/_mock/behaviour`, { method: "PUT", body: JSON.stringify({ path: "/cb/a", status: 503, failFirst: 1 }) });
    expect((await fetch(`${origin}/cb/a`, { method: "POST", body, headers })).status).toBe(503);
    expect(JSON.parse(await nextLine())).toMatchObject({
      event: "callback_received",
      path: "/cb/a",
      attempt: 1,
      webhook_id: "msg_1",
      signature_valid: true,
      answer: 503,
    });

    await fetch(`${origin}/_mock/behaviour`, { method: "PUT", body: JSON.stringify({ path: "/cb/hang", hang: true }) });
    await fetch(`${origin}/_mock/behaviour`, { method: "PUT", body: JSON.stringify({ path: "/cb/hour", delayMs: 3_600_000 }) });
    const open = ["/cb/hang", "/cb/hour"].map((path) =>
      fetch(`${origin}${path}`, { method: "POST", body }).then(
        () => "answered",
        () => "rejected",
      ),
    );
    expect(JSON.parse(await nextLine())).toMatchObject({ path: expect.stringMatching(/^\/cb\/(hang|hour)$/), signature_valid: false });
    await nextLine();

    child.kill("SIGTERM");
    expect(await child.exited).toBe(0);
    expect(await Promise.all(open)).toEqual(["rejected", "rejected"]);
  } finally {
    child.kill("SIGKILL");
  }
}, 20_000);

test("bad flags are usage errors, before anything listens", async () => {
  const print = () => {};
  await expect(mockReceiverCommand(["--port", "http"], print)).rejects.toThrow(UsageError);
  await expect(mockReceiverCommand(["--host", "0.0.0.0", "--port", "0"], print)).rejects.toThrow(UsageError);
  await expect(mockReceiverCommand(["--secret", "nope", "--port", "0"], print)).rejects.toThrow(UsageError);
  await expect(mockReceiverCommand(["--verbose"], print)).rejects.toThrow(UsageError);
});
