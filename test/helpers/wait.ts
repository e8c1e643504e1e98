/**
 * Polls `condition` until it holds; fails after `timeoutMs` (bounded, so a broken worker fails the
 * test). The default is generous: it only delays a failure, and a busy 2-core machine running the
 * suite can take several seconds for what takes milliseconds alone.
 */
export async function waitUntil(condition: () => boolean | Promise<boolean>, timeoutMs = 15_000, intervalMs = 10): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await condition())) {
    if (performance.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms: ${condition.toString().slice(0, 200)}`);
    await Bun.sleep(intervalMs);
  }
}
