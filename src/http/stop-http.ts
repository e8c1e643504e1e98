// The API listener's part of shutdown (server.ts shutDown).

/**
 * Late requests get 503 `Service is shutting down` (with `Connection: close`) for `drainMs`, on
 * kept-alive and new connections alike, so a client or load balancer gets an answer it can act
 * on rather than a refused connection; then the listener closes and in-flight requests are
 * finished until the deadline, and what is left then is closed. True if it had to.
 */
export async function stopHttp(server: Bun.Server<unknown>, deadline: number, drainMs: number): Promise<boolean> {
  await Bun.sleep(Math.max(0, Math.min(drainMs, deadline - Date.now())));
  let timer: Timer | undefined;
  const timedOut = await Promise.race([
    server.stop(false).then(() => false),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), Math.max(0, deadline - Date.now())))),
  ]);
  clearTimeout(timer);
  if (timedOut) await server.stop(true);
  return timedOut;
}
