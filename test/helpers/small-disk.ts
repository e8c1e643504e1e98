// A small filesystem for disk-full tests: a tmpfs of a few MiB, which the test can fill and free.
// Mounting needs root; without it (or with LEAD_INGRESS_TEST_NO_TMPFS set, to try the other way)
// the caller falls back.
import { closeSync, mkdtempSync, openSync, rmdirSync, rmSync, statfsSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface SmallDisk {
  dir: string;
  /** Free bytes now. */
  free(): number;
  /** Writes a filler file until at most `leaveBytes` are free. */
  fill(leaveBytes?: number): void;
  /** Deletes the filler. */
  unfill(): void;
  unmount(): void;
}

/** Mounts a tmpfs of `mib` MiB, or returns the reason it could not. */
export function mountSmallDisk(mib: number): SmallDisk | string {
  if (Bun.env.LEAD_INGRESS_TEST_NO_TMPFS) return "LEAD_INGRESS_TEST_NO_TMPFS is set";
  const dir = mkdtempSync(join(tmpdir(), "lead-ingress-disk-"));
  const mounted = Bun.spawnSync(["mount", "-t", "tmpfs", "-o", `size=${mib}m`, "tmpfs", dir], { stderr: "pipe" });
  if (mounted.exitCode !== 0) {
    rmdirSync(dir);
    return `mount -t tmpfs failed: ${mounted.stderr.toString().trim()}`;
  }
  const filler = join(dir, "filler");
  const free = () => {
    const stats = statfsSync(dir);
    return stats.bavail * stats.bsize;
  };
  return {
    dir,
    free,
    fill(leaveBytes = 0) {
      const fd = openSync(filler, "a");
      const chunk = Buffer.alloc(64 * 1024);
      try {
        for (let room = free() - leaveBytes; room > 0; room -= chunk.length) writeSync(fd, chunk, 0, Math.min(chunk.length, room));
      } catch (error) {
        if ((error as { code?: string }).code !== "ENOSPC") throw error;
      } finally {
        closeSync(fd);
      }
    },
    unfill: () => rmSync(filler, { force: true }),
    unmount() {
      Bun.spawnSync(["umount", "-l", dir]);
      rmdirSync(dir);
    },
  };
}
