import { closeSync, openSync, readSync } from "node:fs";

/** The WAL header's checkpoint sequence number: how many times the WAL was restarted (0 if none). */
export function walRestarts(walPath: string): number {
  const header = Buffer.alloc(16);
  const fd = openSync(walPath, "r");
  try {
    return readSync(fd, header, 0, 16, 0) === 16 ? header.readUInt32BE(12) : 0;
  } finally {
    closeSync(fd);
  }
}

/** A WAL syncer the test completes by hand (`waiting.shift()!(null)`), counting its releases. */
export function manualWalSync() {
  const waiting: ((error: Error | null) => void)[] = [];
  let released = 0;
  return {
    walSync: { sync: (done: (error: Error | null) => void) => void waiting.push(done), release: () => void released++ },
    waiting,
    released: () => released,
  };
}
