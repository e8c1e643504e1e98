// `bun bench/check-client.ts [requests] [in-flight] [answer-ms] [rounds]`: where a check's CPU goes,
// in one process (bench/README.md, "External checks' cost"). A stand-in check service runs in a
// child process (its CPU is not counted here): check-service.ts, a raw keep-alive HTTP/1.1 server
// answering a fixed body after answer-ms. Against it, in alternating rounds, `in-flight` loops send
// `requests` POSTs of a check's size through each candidate client, and the whole check runner with ours and with
// fetch; each line is this process's CPU (process.cpuUsage: every thread, fetch's HTTP thread
// included) per request, and the calling thread's alone (/proc: intake's share). Then the pure parts of a check, each over many iterations: signing, the
// answer's parsing, the cache, the guard, the address, the timers.
import { createHmac } from "node:crypto";
import http from "node:http";
import { checkAddresses } from "../src/checks/address.ts";
import { createAnswerCache } from "../src/checks/cache.ts";
import { AnswerReader } from "../src/checks/http-answer.ts";
import { httpTarget } from "../src/checks/address.ts";
import { createHttpClient, type HttpClient, type HttpTarget } from "../src/checks/http-client.ts";
import { compileCheck, createCheckGuard, createCheckRunner, parseAnswer, signedCheckRequest } from "../src/checks/index.ts";
import { createCheckThread } from "../src/checks/thread-host.ts";
import { factsOfLead } from "../src/policy/index.ts";
import { cpuSeconds } from "./cpu.ts";
import { startCheckService } from "./check-service.ts";

if (process.argv[2] === "serve") {
  console.log(startCheckService(Number(process.argv[3])).port);
  await new Promise(() => {});
}

const requests = Number(process.argv[2] ?? 20_000);
const inFlight = Number(process.argv[3] ?? 50);
const answerMs = Number(process.argv[4] ?? 20);
const rounds = Number(process.argv[5] ?? 3);

const service = Bun.spawn([process.execPath, import.meta.path, "serve", String(answerMs)], { stdout: "pipe", stderr: "inherit" });
/** The service's port: the first line it prints. */
async function firstLine(stream: ReadableStream<Uint8Array>): Promise<string> {
  let text = "";
  for await (const chunk of stream) {
    text += Buffer.from(chunk).toString();
    if (text.includes("\n")) break;
  }
  return text.trim();
}
const port = Number(await firstLine(service.stdout));

const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const check = compileCheck({ name: "scrub", url: `http://127.0.0.1:${port}/check`, send: ["phone_number", "state"], timeout_ms: 1_000 });
const facts = factsOfLead("acme", { phoneE164: "+12125550123", state: "NY", vendorCampaignName: "Solar-Q4" });
const signed = signedCheckRequest({ check, facts, secret: SECRET, now: Date.now() });
const target = httpTarget(new URL(check.url), `127.0.0.1:${port}`, undefined);
const url = new URL(check.url);
const LIMIT = 16 * 1024;
const KEY = Buffer.from(SECRET.slice("whsec_".length), "base64");
const KEYED = new Bun.CryptoHasher("sha256", KEY);

/** fetch as the checks used it before their own client: pinned init (Host, no redirects, no proxy), a signal, text(). */
const fetchAsBefore = () =>
  fetch(url, {
    method: "POST",
    headers: { ...signed.headers, host: target.head.split("host: ")[1]!.trim() },
    body: signed.body,
    redirect: "manual",
    proxy: false,
    signal: AbortSignal.timeout(1_000),
  }).then((r) => r.text());
/** fetch with the cheapest options: keepalive, no decompression, one prebuilt headers object, a string body, no signal. */
const cheapHeaders = { ...signed.headers, host: `127.0.0.1:${port}` };
const fetchCheapest = () =>
  fetch(url, { method: "POST", headers: cheapHeaders, body: signed.body, keepalive: true, decompress: false, redirect: "manual" }).then((r) => r.text());
const agent = new http.Agent({ keepAlive: true, maxSockets: 1024 });
const nodeHttp = () =>
  new Promise<string>((resolve, reject) => {
    const request = http.request(
      { host: "127.0.0.1", port, path: "/check", method: "POST", headers: { ...signed.headers, "content-length": Buffer.byteLength(signed.body) }, agent },
      (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk) => (text += chunk));
        response.on("end", () => resolve(text));
      },
    );
    request.on("error", reject);
    request.end(signed.body);
  });
const ours = createHttpClient();
const never = new AbortController().signal;
const ourClient = () => ours.post(target, signed.headers, signed.body, never, LIMIT);

/** The HttpClient interface over fetch, as send.ts used fetch before (for the runner's before/after). */
function fetchClient(): HttpClient {
  return {
    async post(to: HttpTarget, headers, body, signal) {
      const [, path, host] = /^POST (\S+) HTTP\/1\.1\r\nhost: (.*)\r\n$/.exec(to.head)!;
      const response = await fetch(`${to.tls ? "https" : "http"}://${to.address}:${to.port}${path}`, {
        method: "POST",
        headers: { ...headers, host: host! },
        body,
        signal,
        redirect: "manual",
        proxy: false,
      });
      return { status: response.status, body: await response.text(), reusable: true };
    },
    close: () => {},
  };
}
const runnerWith = (client: HttpClient) => {
  const runner = createCheckRunner({ secret: () => SECRET, clock: Date.now, allowPrivate: true, client });
  return () => runner.run([check], facts);
};

const candidates: [string, () => Promise<unknown>][] = [
  ["fetch, as the checks used it", fetchAsBefore],
  ["fetch, cheapest options", fetchCheapest],
  ["node:http, Agent keepAlive", nodeHttp],
  ["ours (src/checks/http-client.ts)", ourClient],
  [
    "ours, each request signed and its answer judged",
    async () => {
      const request = signedCheckRequest({ check, facts, secret: SECRET, now: Date.now() });
      return parseAnswer((await ours.post(target, request.headers, request.body, never, LIMIT)).body ?? "", check.name);
    },
  ],
  ["whole check runner, over fetch", runnerWith(fetchClient())],
  ["whole check runner, over ours", runnerWith(createHttpClient())],
  ["the checks' thread (thread-host.ts)", checksThread()],
];

/** Intake's path today: the lead's checks handed to the checks' thread (thread-host.ts), in batches per turn. */
function checksThread() {
  const threadUrl = new URL("../src/checks/thread.ts", import.meta.url);
  const thread = createCheckThread({ secret: () => SECRET, clock: Date.now, allowPrivate: true, log: { info() {}, warn() {}, error() {} }, threadUrl });
  return () => thread.run([check], facts);
}

/** CPU µs per request: this process's (every thread), and this thread's alone (/proc, 10 ms ticks). */
async function cpuPerRequest(send: () => Promise<unknown>, count: number): Promise<[number, number]> {
  const loop = async (n: number) => {
    for (let i = 0; i < n; i++) await send();
  };
  await Promise.all(Array.from({ length: inFlight }, () => loop(Math.max(1, Math.floor(count / inFlight / 10))))); // warm: connections open, code compiled
  const before = process.cpuUsage();
  const thisThreadBefore = cpuSeconds(process.pid, process.pid);
  await Promise.all(Array.from({ length: inFlight }, () => loop(Math.floor(count / inFlight))));
  const used = process.cpuUsage(before);
  const sent = Math.floor(count / inFlight) * inFlight;
  return [(used.user + used.system) / sent, ((cpuSeconds(process.pid, process.pid) - thisThreadBefore) * 1e6) / sent];
}

/** µs of CPU per call of a synchronous piece, over `n` calls. */
function cpuOf(n: number, piece: () => unknown): number {
  for (let i = 0; i < n / 10; i++) piece();
  const before = process.cpuUsage();
  for (let i = 0; i < n; i++) piece();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / n;
}

try {
  console.log(
    `stand-in service: raw Bun.listen in a child process, answers after ${answerMs} ms; ${requests} requests per candidate, ${inFlight} in flight, ${rounds} rounds`,
  );
  const figures = new Map<string, [number, number][]>(candidates.map(([name]) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? candidates : [...candidates].reverse();
    for (const [name, send] of order) figures.get(name)!.push(await cpuPerRequest(send, requests));
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
  for (const [name, values] of figures) {
    const all = values.map(([every]) => every);
    console.log(
      `${name.padEnd(36)} ${median(all).toFixed(1).padStart(6)} µs CPU/request, ${median(values.map(([, own]) => own))
        .toFixed(1)
        .padStart(5)} on the calling thread (rounds ${all.map((v) => v.toFixed(1)).join(", ")})`,
    );
  }

  const cache = createAnswerCache();
  const guard = createCheckGuard();
  const addresses = checkAddresses({ allowPrivate: true });
  await addresses.target(check.url, never);
  const settled = Promise.resolve({ outcome: "pass" as const, reason: "" });
  const response = Buffer.from(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 35\r\n\r\n{"outcome":"pass","reason":"clean"}`);
  const reader = new AnswerReader();
  const pieces: [string, () => unknown][] = [
    ["signing: body JSON, webhook-id, HMAC, headers", () => signedCheckRequest({ check, facts, secret: SECRET, now: Date.now() })],
    ["HMAC-SHA256 of a request, createHmac each time", () => createHmac("sha256", KEY).update(signed.body).digest("base64")],
    ["HMAC-SHA256 of a request, keyed state copied", () => KEYED.copy().update(signed.body).digest("base64")],
    ["answer's validation (parseAnswer)", () => parseAnswer('{"outcome":"pass","reason":"clean"}', "scrub")],
    ["answer's bytes read (AnswerReader)", () => (reader.reset(LIMIT), reader.push(response))],
    [
      "cache: get and set",
      () => (cache.get(check.cacheKey, "+12125550123", 1), cache.set(check.cacheKey, "+12125550123", { outcome: "pass", reason: "" }, 1_000, 1)),
    ],
    ["guard: admit and settle", () => guard.guard(check, Date.now, () => settled).answer],
    ["address: the kept target", () => addresses.target(check.url, never)],
    ["timers: a deadline set and cleared", () => clearTimeout(setTimeout(() => {}, 1_000))],
    ["AbortController", () => new AbortController()],
  ];
  for (const [name, piece] of pieces) console.log(`${name.padEnd(48)} ${cpuOf(200_000, piece).toFixed(2).padStart(6)} µs`);
  await Bun.sleep(50);
} finally {
  ours.close();
  service.kill();
}
process.exit(0);
