// `bun bench/check-host.ts [seconds] [REPO_DIR…]`: what a checked lead costs intake's thread on the
// host side of the checks' thread (src/checks/thread-host.ts and checks/intake.ts: the cache, the
// body, the batch's message, the deadline, the answer's settling and judging), without the server,
// the service's wait or the thread's sockets: 40 leads a turn, each with one check, answered `pass`
// at once by this file run as the thread. Prints intake's thread's CPU per lead (/proc, this
// thread alone), for each REPO_DIR in turn, twice (default this checkout): run it on two checkouts
// to compare them, e.g. `git worktree add /tmp/old <commit>` (bench/README.md, issue 28).
import { resolve } from "node:path";
import { cpuSeconds } from "./cpu.ts";
import { type FromThread, REQUEST_FIELDS, type ToThread } from "../src/checks/thread-messages.ts";

declare const self: Worker;
const LEADS_A_TURN = 40;

if (!Bun.isMainThread) {
  // The thread: every request of a batch answered `pass` in one message.
  self.onmessage = ({ data }: MessageEvent<ToThread>) => {
    if (data.kind === "start") return self.postMessage({ kind: "started" } satisfies FromThread);
    const answers: (number | string)[] = [];
    for (let at = 0; at < data.requests.length; at += REQUEST_FIELDS) answers.push(data.requests[at]!, "pass", "clean", "request");
    self.postMessage({ kind: "answers", answers } satisfies FromThread);
  };
} else {
  const seconds = Number(process.argv[2] ?? 3);
  const trees = process.argv.slice(3).map((dir) => resolve(dir));
  if (trees.length === 0) trees.push(resolve(import.meta.dir, ".."));
  /** This thread's CPU (user + system) in µs, at /proc's 10 ms resolution: run for seconds, not less. */
  const threadMicros = () => cpuSeconds(process.pid, process.pid) * 1e6;
  async function measure(tree: string): Promise<number> {
    const { createCheckThread } = await import(`${tree}/src/checks/thread-host.ts`);
    const { intakeChecks } = await import(`${tree}/src/checks/intake.ts`);
    const { compileCheck } = await import(`${tree}/src/checks/index.ts`);
    const { factsOfLead } = await import(`${tree}/src/policy/index.ts`);
    const log = { info() {}, warn() {}, error: (event: string, fields: unknown) => console.error(event, fields) };
    const secret = () => "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    const thread = createCheckThread({ secret, clock: Date.now, allowPrivate: true, log, threadUrl: new URL(import.meta.url) });
    const checks = intakeChecks(thread, () => {});
    const check = compileCheck({
      name: "answers-in-20ms",
      url: "http://127.0.0.1:9/pass",
      send: ["phone_number", "state"],
      timeout_ms: 800,
      on_error: "accept",
    });
    const leads = Array.from({ length: 1_000 }, (_, n) =>
      factsOfLead("bench", { phoneE164: `+1212${5_550_000 + n}`, state: "NY", vendorCampaignName: "solar" }),
    );
    thread.prepare();
    await Bun.sleep(300);
    let asked = 0;
    const turns = async (ms: number) => {
      for (const until = performance.now() + ms; performance.now() < until; ) {
        const turn = Array.from({ length: LEADS_A_TURN }, () =>
          checks.run([check], leads[asked++ % leads.length]).then((answer: { answers: object }) => JSON.stringify(answer.answers)),
        );
        await Promise.all(turn);
      }
    };
    await turns(500);
    asked = 0;
    const before = threadMicros();
    await turns(seconds * 1_000);
    const perLead = (threadMicros() - before) / asked;
    thread.close();
    return perLead;
  }
  for (let round = 0; round < 2; round++)
    for (const tree of trees)
      console.log(`${tree}: ${(await measure(tree)).toFixed(2)} µs of intake's thread per checked lead (host side, ${LEADS_A_TURN} leads a turn)`);
  process.exit(0);
}
