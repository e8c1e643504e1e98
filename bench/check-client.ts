// `bun bench/check-client.ts [requests] [in-flight] [answer-ms] [rounds]`: where a check's CPU goes,
// in one process (bench/README.md, "External checks' cost"). A stand-in check service runs in a
// child process (its CPU is not counted here): check-service.ts, a raw keep-alive HTTP/1.1 server
// answering a fixed body after answer-ms. Against it, in alternating rounds, `in-flight` loops send
// `requests` POSTs of a check's size through each candidate client, and the whole check runner with ours and with
// fetch; each line is this process's CPU (process.cpuUsage: every thread, fetch's HTTP thread
// included) per request, and the calling thread's alone (/proc: intake's share). Then the pure parts of a check, each over many iterations: signing, the
// answer's parsing, the cache, the guard, the address, the timers.
//
// `bun bench/check-client.ts exchanges OTHER_DIR [thread] [requests] [in-flight] [answer-ms] [rounds]`: the
// checks' thread's own work (thread.ts: each request signed and sent through createCheckExchanges,
// run.ts) on this thread, this checkout's against OTHER_DIR's (another checkout, e.g. `git worktree
// add /tmp/old <commit>`), in alternating rounds: CPU µs per check of each, and their ratio. With
// `--cpu-prof` before the script, a profile of both. With `thread`, each through the checks' thread
// (this checkout's thread-host.ts posting to each checkout's thread.ts): the process's CPU per check.
import { createHmac } from "node:crypto";
import http from "node:http";
import { loadavg } from "node:os";
import { checkAddresses } from "../src/checks/address.ts";
import { createAnswerCache } from "../src/checks/cache.ts";
import { AnswerReader } from "../src/checks/http-answer.ts";
import { httpTarget } from "../src/checks/address.ts";
import { Cancel } from "../src/checks/cancel.ts";
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

const exchangesOf = process.argv[2] === "exchanges" ? process.argv[3]! : null;
const viaThread = exchangesOf !== null && process.argv[4] === "thread";
const args = process.argv.slice(exchangesOf === null ? 2 : viaThread ? 5 : 4);
const requests = Number(args[0] ?? 20_000);
const inFlight = Number(args[1] ?? 50);
const answerMs = Number(args[2] ?? 20);
const rounds = Number(args[3] ?? 3);

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
const never = new Cancel();
const ourClient = () => ours.post(target, signed.headers, signed.body, never, LIMIT);

/** The HttpClient interface over fetch, as send.ts used fetch before (for the runner's before/after). */
function fetchClient(): HttpClient {
  return {
    async post(to: HttpTarget, headers, body, cancel) {
      const [, path, host] = /^POST (\S+) HTTP\/1\.1\r\nhost: (.*)\r\n$/.exec(to.head)!;
      const response = await fetch(`${to.tls ? "https" : "http"}://${to.address}:${to.port}${path}`, {
        method: "POST",
        headers: { ...headers, host: host! },
        body,
        signal: cancel.signal(),
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

/** Intake's path today: the lead's checks handed to the checks' thread (thread-host.ts, thread.ts of checkout `dir`), in batches per turn. */
function checksThread(dir = `${import.meta.dir}/..`) {
  const threadUrl = Bun.pathToFileURL(`${dir}/src/checks/thread.ts`);
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

/** What a request's end cost before cancel.ts's Cancel, and what it costs now. */
const listener = { handleEvent() {} };
function abortListened() {
  const signal = new AbortController().signal;
  signal.addEventListener("abort", listener);
  signal.removeEventListener("abort", listener);
}
const waiter = { cancelled() {} };
function cancelWaited() {
  const cancel = new Cancel();
  cancel.waiting = waiter;
  if (cancel.waiting === waiter) cancel.waiting = null;
}

/** µs of CPU per call of a synchronous piece, over `n` calls. */
function cpuOf(n: number, piece: () => unknown): number {
  for (let i = 0; i < n / 10; i++) piece();
  const before = process.cpuUsage();
  for (let i = 0; i < n; i++) piece();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / n;
}

/** The checks' thread's work per request (thread.ts's send) with the modules of checkout `dir`. */
async function threadWork(dir: string): Promise<() => Promise<unknown>> {
  const run: typeof import("../src/checks/run.ts") = await import(`${dir}/src/checks/run.ts`);
  const request: typeof import("../src/checks/request.ts") = await import(`${dir}/src/checks/request.ts`);
  const exchanges = run.createCheckExchanges({ clock: Date.now, allowPrivate: true });
  const threadCheck = { id: 1, name: check.name, url: check.url, timeoutMs: check.timeoutMs };
  return () => exchanges.exchange(threadCheck, request.signCheckBody(request.checkMessageId(threadCheck), signed.body, SECRET, Date.now()));
}

/**
 * This checkout's thread work against `other`'s, alternating; CPU per check (every thread: the
 * service is another process). With "thread" after OTHER_DIR, through the checks' thread
 * (thread-host.ts handing over to each checkout's thread.ts) instead.
 */
async function compareExchanges(other: string, viaThread: boolean): Promise<void> {
  const here = `${import.meta.dir}/..`;
  const sides: [string, () => Promise<unknown>][] = viaThread
    ? [
        [`this checkout (${here})`, checksThread(here)],
        [other, checksThread(other)],
      ]
    : [
        [`this checkout (${here})`, await threadWork(here)],
        [other, await threadWork(other)],
      ];
  const what = viaThread ? "the checks' thread (createCheckThread, thread.ts)" : "thread work on this thread (sign, createCheckExchanges)";
  console.log(`${what}: ${requests} requests per round, ${inFlight} in flight, answer after ${answerMs} ms`);
  const figures: number[][] = [[], []];
  for (let round = 0; round < rounds; round++)
    for (const side of round % 2 === 0 ? [0, 1] : [1, 0]) figures[side]!.push((await cpuPerRequest(sides[side]![1], requests))[0]);
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
  sides.forEach(([name], side) =>
    console.log(`${median(figures[side]!).toFixed(1).padStart(6)} µs CPU/check  ${name} (rounds ${figures[side]!.map((v) => v.toFixed(1)).join(", ")})`),
  );
  const ratios = figures[0]!.map((value, round) => value / figures[1]![round]!);
  console.log(
    `this / other: ${median(ratios).toFixed(2)} (per round ${ratios.map((r) => r.toFixed(2)).join(", ")}); load ${loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}`,
  );
}

try {
  if (exchangesOf !== null) {
    await compareExchanges(exchangesOf, viaThread);
    service.kill();
    process.exit(0);
  }
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
    ["AbortController, a listener added and removed", () => abortListened()],
    ["Cancel, its waiting step set and cleared", () => cancelWaited()],
  ];
  for (const [name, piece] of pieces) console.log(`${name.padEnd(48)} ${cpuOf(200_000, piece).toFixed(2).padStart(6)} µs`);
  await Bun.sleep(50);
} finally {
  ours.close();
  service.kill();
}
process.exit(0);
