// The portal's thread (docs/portal.md "Its own thread"): renders every /portal page off the thread
// that answers intake. It runs the portal's handler (portal/server.ts) as the main thread would,
// on connections of its own (store.ts), with the configuration the main thread validated at start
// (sent once, in "start"). Its log lines go to the main thread's logger.
import type { Config } from "../config/index.ts";
import { createClientAddress } from "../http/client-address.ts";
import { errorText, type Logger } from "../log/index.ts";
import { loadPolicyInForce } from "../policy-in-force/loader.ts";
import { createPortal } from "../portal/server.ts";
import type { FromThread, PlainRequest, PlainResponse, ToThread } from "./protocol.ts";
import { openPortalStore } from "./store.ts";

declare const self: Worker;

const say = (message: FromThread, transfer: ArrayBuffer[] = []) => self.postMessage(message, transfer);

const log: Logger = {
  info: (event, fields) => say({ kind: "log", level: "info", event, fields }),
  warn: (event, fields) => say({ kind: "log", level: "warn", event, fields }),
  error: (event, fields) => say({ kind: "log", level: "error", event, fields }),
  // The main thread writes the lines; nothing here waits on them.
  flush: async () => {},
};

interface Running {
  answer(request: PlainRequest): Promise<PlainResponse>;
  close(): Promise<void>;
}

let running: Running | null = null;

async function start(config: Config): Promise<Running> {
  const store = await openPortalStore(config);
  try {
    const policy = await loadPolicyInForce(store.store, {
      onError: (error) => log.error("policy_reload_failed", { error: errorText(error), action: "keeping the policy in force; retrying every second" }),
    });
    // The client is worked out from the socket's peer the main thread saw, as it would be there (sign-in throttling).
    const peers = new WeakMap<Request, string>();
    const clientAddress = createClientAddress(config.trustedProxies, (request) => peers.get(request));
    const portal = createPortal({ config, store: store.store, log, clock: Date.now, clientAddress, policy });
    return {
      async answer(plain) {
        const request = new Request(plain.url, { method: plain.method, headers: plain.headers, body: plain.body });
        if (plain.peer !== undefined) peers.set(request, plain.peer);
        const response = await portal(request);
        return { status: response.status, headers: [...response.headers], body: await response.arrayBuffer() };
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
    case "request": {
      const response = await running!.answer(message.request);
      say({ kind: "answer", id: message.id, response }, [response.body]);
      return;
    }
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
