// `bun bench/h2-exchange.ts [exchanges] [in-flight] [answer-ms] [rounds]`: CPU per check exchange,
// HTTP/1.1 (our client) against HTTP/2 (many in-flight checks as streams of one connection), issue 28
// (bench/README.md, "HTTP/2 to check services"). The stand-in services run in a child process (this
// script with `serve`); the client is this process. Each round, for each variant in turn (order
// reversed every other round), `in-flight` loops send `exchanges` signed check POSTs (~300 bytes of
// JSON, the Standard Webhooks headers), each answered after answer-ms with a small JSON body; before
// each, an eighth as many to warm up. Per exchange: this process's CPU (process.cpuUsage, every
// thread: fetch's HTTP thread included) and the service process's (its process.cpuUsage, asked over
// IPC; one variant runs at a time, so the delta is that variant's server), and the exchanges per
// second. `bun bench/h2-exchange.ts memory 2000000 200 0`: this process's memory while one node:http2
// session carries 2 M exchanges.
import { readFileSync } from "node:fs";
import http2 from "node:http2";
import { loadavg } from "node:os";
import { CALLBACK_TEST_CERT as CERT, CALLBACK_TEST_KEY as KEY } from "../test/callbacks/tls-fixture.ts";
import { httpTarget } from "../src/checks/address.ts";
import { Cancel } from "../src/checks/cancel.ts";
import { createHttpClient } from "../src/checks/http-client.ts";
import { compileCheck, signedCheckRequest } from "../src/checks/index.ts";
import { factsOfLead } from "../src/policy/index.ts";
import { RawH2Client } from "./h2-raw-client.ts";

const ANSWER = JSON.stringify({ outcome: "pass", reason: "clean" });
const cpuNow = () => {
  const used = process.cpuUsage();
  return used.user + used.system;
};

/** The services, one port each: HTTP/1.1 Bun.serve (cleartext, TLS), HTTP/2 Bun.serve (cleartext prior knowledge, TLS), node:http2 (h2c, TLS); variant d's own h2c ports. */
function serve(answerMs: number): Record<string, number> {
  const later = async (request: Request) => {
    await request.text();
    await Bun.sleep(answerMs);
    return new Response(ANSWER, { headers: { "content-type": "application/json" } });
  };
  const tls = { key: KEY, cert: CERT };
  const onStream = (stream: http2.ServerHttp2Stream) => {
    stream.on("data", () => {});
    stream.on("end", () =>
      setTimeout(() => {
        if (stream.destroyed) return;
        stream.respond({ ":status": 200, "content-type": "application/json" });
        stream.end(ANSWER);
      }, answerMs),
    );
  };
  const settings = { maxConcurrentStreams: 1_000 };
  const h2cServer = () => http2.createServer({ settings }).on("stream", onStream).listen(0, "127.0.0.1");
  const [h2c, h2cRaw] = [h2cServer(), h2cServer()];
  const h2tls = http2
    .createSecureServer({ ...tls, settings })
    .on("stream", onStream)
    .listen(0, "127.0.0.1");
  const bun = (options: object) => Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: later, ...options }).port!;
  process.on("message", () => process.send!(cpuNow()));
  return {
    bunH1: bun({}),
    bunH1Tls: bun({ tls }),
    bunH2c: bun({ http2: true }),
    bunH2Tls: bun({ tls, http2: true }),
    bunH2cRaw: bun({ http2: true }),
    nodeH2c: (h2c.address() as { port: number }).port,
    nodeH2cRaw: (h2cRaw.address() as { port: number }).port,
    nodeH2Tls: (h2tls.address() as { port: number }).port,
  };
}

if (process.argv[2] === "serve") {
  const ports = serve(Number(process.argv[3]));
  await Bun.sleep(100); // node:http2's listen settles on the next turns
  console.log(JSON.stringify(ports));
  await new Promise(() => {});
}

const memory = process.argv[2] === "memory";
const [exchanges = 15_000, inFlight = 200, answerMs = 20, rounds = 3] = process.argv.slice(memory ? 3 : 2).map(Number);
let serverCpu: (value: number) => void = () => {};
const service = Bun.spawn([process.execPath, import.meta.path, "serve", String(answerMs)], {
  stdout: "pipe",
  stderr: "inherit",
  ipc: (message) => serverCpu(message as number),
});
process.on("exit", () => service.kill()); // also when a variant throws
const askServerCpu = () => {
  const { promise, resolve } = Promise.withResolvers<number>();
  serverCpu = resolve;
  service.send("cpu");
  return promise;
};
const firstLine = async (stream: ReadableStream<Uint8Array>) => {
  let text = "";
  for await (const chunk of stream) if ((text += Buffer.from(chunk).toString()).includes("\n")) break;
  return text;
};
const ports: Record<string, number> = JSON.parse(await firstLine(service.stdout));

// A check's request as the checks send it, with more fields so the body is ~300 bytes.
const lead = { phoneE164: "+12125550123", customerName: "Jane Doe", state: "NY", city: "New York", zip: "10001", street: "1 Main St" };
const more = { certificateUrl: "https://cert.example.com/0f6c3a1e-2b7d-4c1e-9d1a-5b6e7f8a9b0c", utility: "ConEd", vendorCampaignName: "Solar-Q4" };
const check = compileCheck({
  name: "scrub",
  url: "http://127.0.0.1/check",
  send: ["phone_number", "customer_name", "state", "city", "zip", "street", "certificate_url", "utility"],
  timeout_ms: 1_000,
});
const signed = signedCheckRequest({
  check,
  facts: factsOfLead("acme", { ...lead, ...more }),
  secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
  now: Date.now(),
});
const h2Headers = (authority: string) => ({ ":method": "POST", ":path": "/check", ":authority": authority, ...signed.headers });

/** (a) Our HTTP/1.1 client: one keep-alive Bun.connect socket per in-flight request. */
function ours(port: number, tls: boolean): () => Promise<unknown> {
  const client = createHttpClient({ ca: CERT });
  const scheme = tls ? "https" : "http";
  const target = httpTarget(new URL(`${scheme}://127.0.0.1:${port}/check`), `callback.test:${port}`, tls ? "callback.test" : undefined);
  const never = new Cancel();
  return () => client.post(target, signed.headers, signed.body, never, 16 * 1024).then((answer) => answer.body);
}

/**
 * (b) node:http2: every request a stream of one session; the answer's body read as text. A session
 * the server closed (Bun.serve ends an idle one after its idleTimeout, 10 s, with a GOAWAY) is
 * replaced by a new one, as a product client would have to: `reconnects` counts them.
 */
const reconnects = new Map<number, number>();
function nodeH2(port: number, tls: boolean): () => Promise<unknown> {
  const open = () =>
    (tls ? http2.connect(`https://127.0.0.1:${port}`, { ca: CERT, servername: "callback.test" }) : http2.connect(`http://127.0.0.1:${port}`))
      .on("error", (error) => console.error(`session to ${port}:`, error.message))
      .on("goaway", (code) => console.error(`session to ${port}: GOAWAY ${code}`));
  let session = open();
  reconnects.set(port, 0);
  const headers = { ...h2Headers(`callback.test:${port}`), "content-length": String(Buffer.byteLength(signed.body)) };
  return () =>
    new Promise<string>((resolve, reject) => {
      if (session.closed || session.destroyed) {
        session = open();
        reconnects.set(port, reconnects.get(port)! + 1);
      }
      const stream = session.request(headers);
      let text = "";
      stream.setEncoding("utf8");
      stream.on("data", (chunk: string) => (text += chunk));
      stream.on("end", () => resolve(text));
      stream.on("error", reject);
      stream.end(signed.body);
    });
}

/** (d) The floor: a minimal h2c client of our own over Bun.connect (h2-raw-client.ts), one connection, a turn's frames in one write. */
function rawH2(port: number): () => Promise<unknown> {
  const client = new RawH2Client(port, `callback.test:${port}`, "/check");
  return () => client.post(signed.headers, signed.body).then((answer) => (answer.ok ? answer.body : `status not 200: ${answer.body}`));
}

/** (c) Bun's fetch with `protocol: "http2"` (experimental; https only): its pool multiplexes one origin's requests on one connection. */
function fetchH2(port: number): () => Promise<unknown> {
  const url = `https://127.0.0.1:${port}/check`;
  const init = { method: "POST", headers: signed.headers, body: signed.body, tls: { ca: CERT, serverName: "callback.test" }, protocol: "http2" };
  return () => fetch(url, init as RequestInit).then((response) => response.text());
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
if (memory) await memoryOfOneSession();

const variants: [string, number, () => Promise<unknown>][] = [
  ["a  HTTP/1.1 ours -> Bun.serve", ports.bunH1!, ours(ports.bunH1!, false)],
  ["a' HTTP/1.1 ours, TLS -> Bun.serve TLS", ports.bunH1Tls!, ours(ports.bunH1Tls!, true)],
  ["b  node:http2 h2c -> node:http2", ports.nodeH2c!, nodeH2(ports.nodeH2c!, false)],
  ["b' node:http2 TLS -> node:http2 TLS", ports.nodeH2Tls!, nodeH2(ports.nodeH2Tls!, true)],
  ['b" node:http2 h2c -> Bun.serve http2', ports.bunH2c!, nodeH2(ports.bunH2c!, false)],
  ["c  fetch http2, TLS -> Bun.serve http2 TLS", ports.bunH2Tls!, fetchH2(ports.bunH2Tls!)],
  ["d  minimal h2c, ours -> Bun.serve http2", ports.bunH2cRaw!, rawH2(ports.bunH2cRaw!)],
  ["d' minimal h2c, ours -> node:http2", ports.nodeH2cRaw!, rawH2(ports.nodeH2cRaw!)],
];

/** Established connections to a port (this machine's /proc/net/tcp; the client's side of each has the port as its remote one). */
function connectionsTo(port: number): number {
  const remote = `:${port.toString(16).toUpperCase().padStart(4, "0")}`;
  return readFileSync("/proc/net/tcp", "utf8")
    .split("\n")
    .map((line) => line.trim().split(/\s+/))
    .filter(([, , to, state]) => to?.endsWith(remote) && state === "01").length;
}

/** One round of a variant: CPU µs per exchange of this process and of the service, exchanges/s, and the connections it used. */
async function measure(port: number, send: () => Promise<unknown>): Promise<[number, number, number, number]> {
  const answer = await send();
  if (answer !== ANSWER) throw new Error(`unexpected answer ${String(answer)}`);
  const loop = async (n: number) => {
    for (let i = 0; i < n; i++) await send();
  };
  const each = Math.floor(exchanges / inFlight);
  await Promise.all(Array.from({ length: inFlight }, () => loop(Math.max(1, each >> 3))));
  const [client, server, start] = [cpuNow(), await askServerCpu(), performance.now()];
  await Promise.all(Array.from({ length: inFlight }, () => loop(each)));
  const [clientAfter, serverAfter, end] = [cpuNow(), await askServerCpu(), performance.now()];
  const sent = each * inFlight;
  return [(clientAfter - client) / sent, (serverAfter - server) / sent, (sent * 1000) / (end - start), connectionsTo(port)];
}

console.log(
  `${exchanges} exchanges per variant and round, ${inFlight} in flight, answered after ${answerMs} ms, ${rounds} rounds; request body ${signed.body.length} B; Bun ${Bun.version}; load ${load()}`,
);
/** `memory [exchanges] [in-flight] [answer-ms]`: this process's memory while one node:http2 session carries every exchange (oven-sh/bun #30415: closed streams kept). */
async function memoryOfOneSession(): Promise<never> {
  const send = nodeH2(ports.bunH2c!, false);
  const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(0);
  const usage = () => `RSS ${mib(process.memoryUsage().rss)} MiB, heap ${mib(process.memoryUsage().heapUsed)} MiB`;
  let sent = 0;
  const loop = async () => {
    while (sent < exchanges) {
      if (++sent % 200_000 === 0) console.log(`${sent} exchanges: ${usage()}`);
      await send();
    }
  };
  await Promise.all(Array.from({ length: inFlight }, loop));
  Bun.gc(true);
  console.log(`after ${sent} exchanges and a full GC: ${usage()}; sessions replaced: ${reconnects.get(ports.bunH2c!)}; load ${load()}`);
  service.kill();
  process.exit(0);
}

const figures = new Map(variants.map(([name]) => [name, [] as [number, number, number, number][]]));
for (let round = 0; round < rounds; round++)
  for (const [name, port, send] of round % 2 === 0 ? variants : [...variants].reverse()) {
    console.error(`round ${round + 1}: ${name}`);
    figures.get(name)!.push(await measure(port, send));
  }
const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
console.log(`${"variant (medians of the rounds)".padEnd(42)} client µs  server µs  client / a's  both / a's  exchanges/s  connections  (client per round)`);
const baseline = figures.get(variants[0]![0])!;
for (const [name, values] of figures) {
  const [client, server, rate, connections] = [0, 1, 2, 3].map((i) => median(values.map((v) => v[i]!)));
  // Per round, against variant a's in the same round (the machine's speed drifts between rounds).
  const clientRatio = median(values.map(([c], round) => c / baseline[round]![0]));
  const bothRatio = median(values.map(([c, s], round) => (c + s) / (baseline[round]![0] + baseline[round]![1])));
  console.log(
    `${name.padEnd(42)} ${client!.toFixed(1).padStart(9)}  ${server!.toFixed(1).padStart(9)}  ${clientRatio.toFixed(2).padStart(12)}  ${bothRatio.toFixed(2).padStart(10)}  ${rate!.toFixed(0).padStart(11)}  ${connections!.toFixed(0).padStart(11)}  (${values.map((v) => v[0].toFixed(1)).join(", ")})`,
  );
}
console.log(`node:http2 sessions replaced after the server closed one: ${[...reconnects.values()].join(", ")}; load after: ${load()}`);
service.kill();
process.exit(0);
