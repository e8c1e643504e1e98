// The portal's thread (docs/architecture.md, "Off intake's thread: the portal"): renders every
// /portal page off the thread that answers intake. It runs the portal's handler (portal/server.ts)
// as the main thread would, on connections of its own (store.ts), with the configuration the main
// thread validated at start (sent once, in "start"), at a lower CPU priority (priority.ts). Its
// log lines go to the main thread's logger.
import type { Config } from "../config/index.ts";
import { createClientAddress } from "../http/client-address.ts";
import { errorText, type Logger } from "../log/index.ts";
import { loadPolicyInForce } from "../policy-in-force/loader.ts";
import { createPortal } from "../portal/server.ts";
import type { FromThread, PlainRequest, ToThread } from "./protocol.ts";
import { lowerThisThreadsPriority } from "./priority.ts";
import { openPortalStore } from "./store.ts";

declare const self: Worker;

const say = (message: FromThread) => self.postMessage(message);

const log: Logger = {
  info: (event, fields) => say({ kind: "log", level: "info", event, fields }),
  warn: (event, fields) => say({ kind: "log", level: "warn", event, fields }),
  error: (event, fields) => say({ kind: "log", level: "error", event, fields }),
  // The main thread writes the lines; nothing here waits on them.
  flush: async () => {},
};

interface Running {
  answer(request: PlainRequest): Promise<Response>;
  close(): Promise<void>;
}

let running: Running | null = null;

async function start(config: Config): Promise<Running> {
  lowerThisThreadsPriority(log);
  const store = await openPortalStore(config);
  try {
    // No reload loop of its own: each request carries the version intake applies, and the policy is
    // read again when that is newer (answer, below). An idle portal then reads nothing, and a
    // reader a second fewer lets the checkpointer restart the WAL as often as before the thread.
    const policy = await loadPolicyInForce(store.store, { reloadMs: null });
    // The client is worked out from the socket's peer the main thread saw, as it would be there (sign-in throttling).
    const peers = new WeakMap<Request, string>();
    const clientAddress = createClientAddress(config.trustedProxies, (request) => peers.get(request));
    const portal = createPortal({ config, store: store.store, log, clock: Date.now, clientAddress, policy });
    return {
      async answer(plain) {
        if (policy.version() < plain.policyVersion) {
          await policy
            .refresh()
            .catch((error: unknown) => log.error("policy_reload_failed", { error: errorText(error), action: "answering with the policy this thread has" }));
        }
        const request = new Request(plain.url, { method: plain.method, headers: plain.headers, body: plain.body });
        if (plain.peer !== undefined) peers.set(request, plain.peer);
        return portal(request);
      },
      async close() {
        policy.stop();
        await store.close();
      },
    };
  } catch (error) {
    await store.close();
    throw error;
  }
}

/** What is used of an answer's body reader. */
interface BodyReader {
  read(): Promise<{ done: true; value?: undefined } | { done: false; value: Uint8Array }>;
  cancel(): Promise<void>;
}

/** The bodies being streamed, each with its next chunk read ahead (so the last one can say it is). */
const streams = new Map<number, { reader: BodyReader; ahead: Uint8Array }>();

/** Reads `id`'s next chunk ahead; true when there is none. */
async function readAhead(id: number, reader: BodyReader): Promise<boolean> {
  const next = await reader.read();
  if (next.done) streams.delete(id);
  else streams.set(id, { reader, ahead: next.value });
  return next.done;
}

/** The answer with its body's first chunk: most pages are one chunk, so they go whole in one message. */
async function reply(id: number, response: Response): Promise<void> {
  const reader = response.body?.getReader();
  const first = reader ? await reader.read() : null;
  const body = first?.value ?? new Uint8Array(0);
  const end = !reader || first!.done || (await readAhead(id, reader));
  say({ kind: "answer", id, response: { status: response.status, headers: [...response.headers], body }, end });
}

async function pull(id: number): Promise<void> {
  const stream = streams.get(id);
  if (!stream) return say({ kind: "chunk", id, bytes: new Uint8Array(0), end: true });
  say({ kind: "chunk", id, bytes: stream.ahead, end: await readAhead(id, stream.reader) });
}

async function handle(message: ToThread): Promise<void> {
  switch (message.kind) {
    case "start":
      try {
        running = await start(message.config);
        say({ kind: "started" });
      } catch (error) {
        say({ kind: "startFailed", error: errorText(error) });
      }
      return;
    case "request":
      return reply(message.id, await running!.answer(message.request));
    case "pull":
      return pull(message.id);
    case "cancel":
      await streams.get(message.id)?.reader.cancel();
      streams.delete(message.id);
      return;
    case "close":
      await running?.close();
      running = null;
      say({ kind: "closed" });
  }
}

self.onmessage = ({ data }: MessageEvent<ToThread>) => {
  handle(data).catch((error: unknown) => {
    // Not a page's failure (those are answered: console/guarded.ts) but the thread's own: it ends,
    // and the main thread starts another (portal-thread/index.ts).
    log.error("portal_thread_failed", { error: errorText(error) });
    process.exit(1);
  });
};
