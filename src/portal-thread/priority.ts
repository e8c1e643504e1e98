// The portal's thread runs at a lower CPU priority than intake's: when the cores are all busy, a
// lead waiting is worse than a page waiting. Linux schedules threads one by one, and setpriority on
// a thread's id changes that thread alone (elsewhere it would change the whole process: left alone).
import { readlinkSync } from "node:fs";
import { getPriority, setPriority } from "node:os";
import { errorText, type Logger } from "../log/index.ts";

/** Niceness added to the thread's: 10 gives it about a tenth of the weight of intake's thread under contention. */
const LOWER_BY = 10;
const LOWEST = 19;

/** Lowers the calling thread's priority (Linux only); a failure is logged and changes nothing else. */
export function lowerThisThreadsPriority(log: Logger): void {
  if (process.platform !== "linux") return;
  try {
    // "<pid>/task/<tid>": the calling thread's own id.
    const thread = Number(readlinkSync("/proc/thread-self").split("/").at(-1));
    setPriority(thread, Math.min(LOWEST, getPriority(thread) + LOWER_BY));
  } catch (error) {
    log.warn("portal_thread_priority_unchanged", { error: errorText(error) });
  }
}
