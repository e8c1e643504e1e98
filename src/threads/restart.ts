// When a helper thread that ended is started again (the checks', the portal's, the worker's):
// soon enough that its work resumes by itself, not so often that a thread that cannot start
// (a broken database, no memory) fills the log and the CPU.

/** The longest wait between two starts. */
export const RESTART_MAX_MS = 30_000;

/** The wait before a thread's restart after `failures` restarts in a row that failed: at once, then 1 s, doubling up to RESTART_MAX_MS. */
export const restartDelayMs = (failures: number): number => (failures === 0 ? 0 : Math.min(RESTART_MAX_MS, 1_000 * 2 ** (failures - 1)));
