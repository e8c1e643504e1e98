// CPU accounting from /proc (Linux): how much CPU a process used, and how busy the machine was;
// and a process's resident memory.
// On this 2-core VM the server, the receiver and the load generator share two cores (and other
// work on the machine shares them too), so these numbers tell a slow service from a busy machine.
import { readFileSync } from "node:fs";
import { cpus } from "node:os";

const TICKS_PER_SECOND = 100; // USER_HZ, 100 on Linux
export const CORES = cpus().length;

/** /proc/<pid>/stat's fields (or a thread's, /proc/<pid>/task/<tid>/stat) after the ")" that ends the command name (field 3 is index 0). */
function statFields(pid: number | "self", thread?: number): number[] {
  const stat = readFileSync(thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`, "utf8");
  return stat
    .slice(stat.lastIndexOf(")") + 2)
    .split(" ")
    .map(Number);
}

/** User + system CPU seconds a process (or one of its threads: its main thread's id is the pid) has used so far (0 once it is gone). */
export function cpuSeconds(pid: number, thread?: number): number {
  try {
    const f = statFields(pid, thread);
    return (f[11]! + f[12]!) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** Resident memory of a process in MiB, from /proc/<pid>/status (0 once it is gone). */
export function rssMiB(pid: number): number {
  try {
    const kib = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return kib ? Number(kib[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** CPU seconds of this process plus its children that have exited (the load generator, for one). */
export function ownAndChildrenCpuSeconds(): number {
  const f = statFields("self");
  return (f[11]! + f[12]! + f[13]! + f[14]!) / TICKS_PER_SECOND;
}

export interface MachineSample {
  busy: number;
  /** Interrupt and softirq time (loopback networking is mostly here) and steal: no process is charged for it. */
  unattributed: number;
  total: number;
}

/** Jiffies spent busy and in total over all cores since boot (/proc/stat's first line). */
export function machineSample(): MachineSample {
  const [, ...values] = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/);
  // user nice system idle iowait irq softirq steal; guest time is already counted in user.
  const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = values.slice(0, 8).map(Number);
  const total = user + nice + system + idle + iowait + irq + softirq + steal;
  return { busy: total - idle - iowait, unattributed: irq + softirq + steal, total };
}

/** Share of all cores busy between two samples (1 = every core at 100%). */
export function busyShare(from: MachineSample, to: MachineSample): number {
  return to.total === from.total ? 0 : (to.busy - from.busy) / (to.total - from.total);
}

/** CPU seconds the machine spent between two samples: on processes, and not charged to any. */
export function busySeconds(from: MachineSample, to: MachineSample): { processes: number; unattributed: number } {
  const unattributed = (to.unattributed - from.unattributed) / TICKS_PER_SECOND;
  return { processes: (to.busy - from.busy) / TICKS_PER_SECOND - unattributed, unattributed };
}

/**
 * Waits (at most `maxMs`) for a second in which the machine is at most `threshold` busy, so a run
 * does not start while something else uses the cores. Returns the last second's busy share.
 */
export async function waitForQuiet(threshold: number, maxMs: number): Promise<number> {
  const deadline = Date.now() + maxMs;
  let share = 1;
  while (Date.now() < deadline) {
    const from = machineSample();
    await Bun.sleep(1_000);
    share = busyShare(from, machineSample());
    if (share <= threshold) break;
  }
  return share;
}

/** CPU of the server, the receiver, this process and its exited children, and the whole machine. */
export function cpuSnapshot(serverPid: number, receiverPid: number) {
  return { server: cpuSeconds(serverPid), receiver: cpuSeconds(receiverPid), own: ownAndChildrenCpuSeconds(), machine: machineSample(), at: Date.now() };
}
export type CpuSnapshot = ReturnType<typeof cpuSnapshot>;

/**
 * CPU seconds used between two snapshots. `other` is what other processes on the machine used;
 * `kernel` is interrupt, softirq (loopback networking) and steal time, which no process is charged.
 */
export function cpuUsed(from: CpuSnapshot, to: CpuSnapshot) {
  const server = to.server - from.server;
  const receiver = to.receiver - from.receiver;
  const own = to.own - from.own;
  const machine = busySeconds(from.machine, to.machine);
  return {
    seconds: (to.at - from.at) / 1000,
    server,
    receiver,
    benchAndLoad: own,
    other: Math.max(0, machine.processes - server - receiver - own),
    kernel: machine.unattributed,
    machineBusy: busyShare(from.machine, to.machine),
  };
}
export type CpuUsed = ReturnType<typeof cpuUsed>;

/** Other processes used more than a quarter of a core meanwhile: the figures are skewed. */
export const disturbed = (cpu: CpuUsed) => cpu.other / cpu.seconds > 0.25;
