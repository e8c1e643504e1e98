// Why a listener could not start, in words that name the setting the operator must change: the
// API's --host/--port or the console's --console-host/--console-port, and the TLS files.

/** The service could not start for a reason the operator fixes in its settings: one line, exit 1. */
export class StartError extends Error {}

/** Which listener: the vendors' API or the operator's console. */
export interface ListenerSettings {
  /** Whose listener: the vendors' API's or the operator's console's. */
  role: "api" | "console";
  host: string;
  port: number;
  tls?: { certFile: string; keyFile: string };
}

const FLAGS = { api: { host: "--host", port: "--port" }, console: { host: "--console-host", port: "--console-port" } } as const;

/** Bun.serve, or a StartError naming the flag (and the address or file) to change. */
export function listenOrExplain<T>(settings: ListenerSettings, listen: () => T): T {
  try {
    return listen();
  } catch (error) {
    throw new StartError(listenFailure(settings, error), { cause: error });
  }
}

function listenFailure({ role, host, port, tls }: ListenerSettings, error: unknown): string {
  const flags = FLAGS[role];
  const where = `Cannot listen on ${host}:${port}${role === "console" ? " for the console" : ""}`;
  const code = (error as { code?: unknown }).code;
  const message = (error as Error).message;
  if (tls && typeof code === "string" && code.startsWith("ERR_OSSL")) {
    return `Cannot serve HTTPS with --tls-cert ${tls.certFile} and --tls-key ${tls.keyFile}: ${message} (a certificate and the private key that matches it, both PEM)`;
  }
  // Bun says EADDRINUSE also for some addresses that are not this machine's: a free port on the
  // same host tells the two apart.
  if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND" || !hostCanListen(host)) {
    return `${where}: ${host} is not an address of this machine (choose another with ${flags.host})`;
  }
  if (code === "EADDRINUSE") return `${where}: the port is in use by another process (choose another with ${flags.port})`;
  if (code === "EACCES") return `${where}: permission denied (ports below 1024 need privileges; choose another with ${flags.port})`;
  return `${where}: ${message} (check ${flags.host} and ${flags.port})`;
}

function hostCanListen(host: string): boolean {
  try {
    Bun.listen({ hostname: host, port: 0, socket: { data() {} } }).stop(true);
    return true;
  } catch {
    return false;
  }
}
