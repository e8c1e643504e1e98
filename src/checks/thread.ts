// The checks' thread (started by thread-host.ts; listed in package.json's "build" so the compiled
// binary carries it): intake's check requests sent off intake's event loop. Each request arrives
// as its body, written on intake's thread; here it is signed, sent through its check's guard to
// the address checked (run.ts createCheckExchanges: guard, address rules, the HTTP client, the
// check's own timeout), and its answer judged. What the main thread needs back: each answer (one
// message per turn, thread-messages.ts) and the guard's pauses as log lines.
import { checkMessageId, signCheckBody } from "./request.ts";
import { type CheckExchanges, createCheckExchanges, type Exchanged, notSigned } from "./run.ts";
import { type FromThread, REQUEST_FIELDS, type ThreadCheck, type ToThread } from "./thread-messages.ts";

declare const self: Worker;

const post = (message: FromThread) => self.postMessage(message);

let exchanges: CheckExchanges | null = null;
let secret = "";
const checks = new Map<number, ThreadCheck>();

/**
 * Answers are posted together, ANSWER_WINDOW_MS after the first: answers come one socket read at a
 * time, each in a turn of its own, and a message per turn cost the process more CPU than the
 * requests did in intake's thread (bench/README.md, issue 28: 84 → 58 µs a check with the window).
 */
const ANSWER_WINDOW_MS = 1;
let answers: (number | string)[] = [];
function answer(id: number, { answer, source }: Exchanged) {
  if (answers.length === 0) setTimeout(sendAnswers, ANSWER_WINDOW_MS);
  const text = answer.outcome === "error" ? answer.error : answer.reason;
  // The cache and the guard's own answers are the main thread's and this one's: no other source comes from here.
  answers.push(id, answer.outcome, text, source === "cache" ? "request" : source);
}
function sendAnswers() {
  const batch = answers;
  answers = [];
  post({ kind: "answers", answers: batch });
}

function send(exchanges: CheckExchanges, id: number, check: ThreadCheck, body: string) {
  let request: ReturnType<typeof signCheckBody>;
  try {
    request = signCheckBody(checkMessageId(check), body, secret, Date.now());
  } catch (error) {
    return answer(id, { answer: notSigned(error), source: "request", durationMs: 0 });
  }
  exchanges.exchange(check, request).then((exchanged) => answer(id, exchanged));
}

self.onmessage = ({ data }: MessageEvent<ToThread>) => {
  if (data.kind === "start") {
    exchanges = createCheckExchanges({
      clock: Date.now,
      allowPrivate: data.allowPrivate,
      maxSlowPerCheck: data.maxSlowPerCheck,
      // The guard names a check's endpoint "check:<name>" (guard.ts).
      onPause: ({ endpoint, pausedUntil, failures, lastError }) => {
        const line = { check: endpoint.vendorId.replace(/^check:/, ""), target: endpoint.target };
        if (pausedUntil === null) post({ kind: "log", level: "info", event: "check_resumed", fields: line });
        else
          post({
            kind: "log",
            level: "warn",
            event: "check_paused",
            fields: { ...line, failures, until: new Date(pausedUntil).toISOString(), error: lastError },
          });
      },
    });
    post({ kind: "started" });
    return;
  }
  if (exchanges === null) throw new Error("a batch came before start");
  for (const check of data.checks) checks.set(check.id, check);
  if (data.secret !== null) secret = data.secret;
  const { requests } = data;
  for (let at = 0; at < requests.length; at += REQUEST_FIELDS) {
    send(exchanges, requests[at] as number, checks.get(requests[at + 1] as number)!, requests[at + 2] as string);
  }
};
