import { closeSync, fsyncSync, openSync } from "node:fs";

/**
 * Writes a file's dirty pages to disk now. A database written or copied just before a measured run
 * would otherwise be written back by the kernel during it (a gigabyte for the seeded one), and the
 * server's own fsyncs would wait behind that.
 */
export function flushToDisk(path: string): void {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
