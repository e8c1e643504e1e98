// A stand-in for the portal's thread (src/portal-thread/thread.ts) speaking its protocol, for
// test/portal/thread.test.ts. What it does is chosen by the configuration's databasePath:
// "fail-start" refuses to start, "fail-while:FILE" refuses while FILE exists, "hang-start" never
// says it started, "slow-start" says so after 300 ms, "ignore-close" never answers "close"; any
// other answers requests:
// /portal/die exits, /portal/hang never answers, /portal/stream answers "a", "b", "c" a pull each,
// anything else is echoed.
import { existsSync } from "node:fs";
import type { FromThread, ToThread } from "../../src/portal-thread/protocol.ts";

declare const self: Worker;

let mode = "";
let started = false;
const say = (message: FromThread) => self.postMessage(message);
const bytes = (text: string) => new TextEncoder().encode(text);
/** What is left to send of each streamed answer. */
const streams = new Map<number, string[]>();

self.onmessage = async ({ data }: MessageEvent<ToThread>) => {
  if (data.kind === "start") {
    mode = data.config.databasePath;
    say({ kind: "log", level: "info", event: "stand_in_starting", fields: { mode } });
    if (mode === "hang-start") return;
    if (mode === "slow-start") await Bun.sleep(300);
    started = mode !== "fail-start" && !(mode.startsWith("fail-while:") && existsSync(mode.slice("fail-while:".length)));
    return say(started ? { kind: "started" } : { kind: "startFailed", error: "no database here" });
  }
  if (data.kind === "close") {
    if (mode === "ignore-close") return;
    say({ kind: "log", level: "info", event: "stand_in_closing", fields: { started } });
    return say({ kind: "closed" });
  }
  if (data.kind === "pull") {
    const left = streams.get(data.id)!;
    return say({ kind: "chunk", id: data.id, bytes: bytes(left.shift()!), end: left.length === 0 });
  }
  if (data.kind === "cancel") return;
  const { request } = data;
  const path = new URL(request.url).pathname;
  if (path === "/portal/die") process.exit(1);
  if (path === "/portal/hang") return;
  if (path === "/portal/stream") {
    streams.set(data.id, ["b", "c"]);
    return say({ kind: "answer", id: data.id, response: { status: 200, headers: [], body: bytes("a") }, end: false });
  }
  const echo = {
    method: request.method,
    url: request.url,
    cookie: request.headers.find(([name]) => name === "cookie")?.[1],
    peer: request.peer,
    body: request.body ? new TextDecoder().decode(request.body) : null,
  };
  const headers: [string, string][] = [
    ["content-type", "application/json"],
    ["set-cookie", "a=1; Path=/portal"],
    ["set-cookie", "b=2; Path=/portal"],
  ];
  say({ kind: "answer", id: data.id, response: { status: 201, headers, body: bytes(JSON.stringify(echo)) }, end: true });
};
