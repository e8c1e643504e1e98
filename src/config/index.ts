// Configuration: compiled-in defaults, then LEAD_INGRESS_* environment variables, then command-line
// flags. Loaded and validated once at start, then passed down; nothing else reads process.env.
import {
  parseAddressRanges,
  parseCertificateFile,
  parseDatabaseSetting,
  parseHost,
  parsePrivateKeyFile,
  within,
  parseBoolean,
  parseCredentials,
  parseDuration,
  parseDurationList,
  parseHttpUrl,
  parseNonEmpty,
  parseInteger,
  parsePositiveNumber,
  parseSize,
} from "./parse.ts";
import { LOG_LEVELS, type LogLevel } from "../log/index.ts";
import { SQLITE_CACHE_BYTES } from "../db/client.ts";

export interface Config {
  host: string;
  port: number;
  /** A SQLite file's path, or a postgres:// URL (see db/kind.ts). */
  databasePath: string;
  /** PostgreSQL connections per instance (unused on SQLite). */
  databasePoolSize: number;
  /** SQLite's page cache of the server's connection, in bytes. */
  sqliteCacheBytes: number;
  bodyLimitBytes: number;
  duplicateWindowMs: number;
  /** How long the refusal log keeps a refused postLead (worker/maintenance.ts purges older ones). */
  refusalRetentionMs: number;
  /** Requests per second per vendor; 0 turns the limit off. */
  rateLimitPerSecond: number;
  rateLimitBurst: number;
  holdPeriodMs: number;
  /** A test lead's hold (docs/contract.md §12 "Test mode"). */
  testHoldPeriodMs: number;
  bootstrapVendor: { name: string; password: string } | undefined;
  logLevel: LogLevel;
  shutdownTimeoutMs: number;
  /** After SIGTERM, how long the listener stays open answering 503 (within the shutdown timeout). */
  shutdownDrainMs: number;
  /** Free disk space kept for deciding and calling back accepted leads: below it intake gets 503. */
  diskReserveBytes: number;
  /** PEM files; with both set the service speaks HTTPS itself. */
  tlsCertFile: string | undefined;
  tlsKeyFile: string | undefined;
  /** Mounts POST /bench/noop, the baseline route of the benchmark. Never on in production. */
  benchNoopRoute: boolean;
  /** Runs the in-process worker (final results and callbacks). */
  worker: boolean;
  /** Runs the worker on a thread of its own, with its own database connection (worker/thread.ts). */
  workerThread: boolean;
  workerPollIntervalMs: number;
  policyReloadMs: number;
  /** Callback deliveries in flight at once. */
  callbackConcurrency: number;
  callbackTimeoutMs: number;
  /** Waits between attempts: after failed attempt n the next waits schedule[n-1]. */
  callbackRetrySchedule: number[];
  /** Multiplies the schedule (0.001 runs it in milliseconds, for tests). */
  callbackRetryScale: number;
  /** After a vendor's signing secret is rotated, how long the old one still signs beside the new (callbacks/signing-secrets.ts). */
  signingSecretOverlapMs: number;
  /** Allows callbacks (and certificate checks) to loopback and private addresses. */
  allowPrivateCallbacks: boolean;
  verifyCertificates: boolean;
  certificateTimeoutMs: number;
  /** The operator's TrustedForm API key: set, TrustedForm certificates are verified during the hold (certificates/). Never logged. */
  trustedFormApiKey: string | undefined;
  /** Where TrustedForm's certificate API is asked (the mock receiver's /trustedform in tests). */
  trustedFormBaseUrl: string;
  /** A TrustedForm certificate still unanswered when its lead is decided: rejected, or accepted marked unverified. */
  trustedFormUnreachable: "reject" | "accept";
  /** TrustedForm requests in flight at once. */
  trustedFormConcurrency: number;
  /** Proxies (addresses or CIDR ranges) whose X-Forwarded-For names the client; empty: the peer is the client. */
  trustedProxies: string[];
  /** The operator's console: its own listener, never the vendors' (src/console/). */
  consoleHost: string;
  /** undefined: no console (the default); 0 picks a free port. */
  consolePort: number | undefined;
  /** How long a console sign-in lasts, however active. */
  consoleSessionLifetimeMs: number;
  /** How long a vendor's portal sign-in lasts (src/portal/). */
  portalSessionLifetimeMs: number;
  /** How long a one-time portal sign-in link is valid (`vendors portal-link`). */
  portalLinkLifetimeMs: number;
  /** Test callbacks a vendor may send from the portal at once; as many come back over the window (portal/test-callback-limit.ts). */
  portalTestCallbacks: number;
  portalTestCallbackWindowMs: number;
  /** Where vendors reach the API (a proxy's address): the portal's links and endpoint URLs; undefined: this listener's own. */
  publicUrl: string | undefined;
}

interface Option<K extends keyof Config> {
  key: K;
  flag: string;
  env: string;
  /**
   * The default as an operator writes it (`60s`, `64KiB`, `off`): --help prints it and the value
   * is parsed from it like any other, so the two cannot disagree. Absent: unset by default.
   */
  default?: string;
  /** The value when the option is unset and has no default (undefined unless given). */
  unset?: Config[K];
  /** Shown in --help and the configuration table (docs/configuration.md). */
  doc: string;
  /** Holds a password: a refused value is never echoed. */
  secret?: boolean;
  parse: (raw: string) => Config[K];
}

const option = <K extends keyof Config>(o: Option<K>) => o as unknown as Option<keyof Config>;

function oneOf<T extends string>(...values: T[]) {
  return (raw: string): T => {
    if (!values.includes(raw as T)) throw new Error(`expected one of ${values.join(", ")}`);
    return raw as T;
  };
}

/** Milliseconds as a person reads them in a bound. */
const ms = (n: number) => `${n}ms`;

// biome-ignore format: the options table, one row per option
export const OPTIONS: Option<keyof Config>[] = [
  option({ key: "host", flag: "--host", env: "LEAD_INGRESS_HOST", default: "127.0.0.1", parse: parseHost, doc: "Address to listen on (0.0.0.0 for all interfaces)." }),
  option({ key: "port", flag: "--port", env: "LEAD_INGRESS_PORT", default: "8080", parse: parseInteger(0, 65535), doc: "TCP port; 0 picks a free one." }),
  option({ key: "tlsCertFile", flag: "--tls-cert", env: "LEAD_INGRESS_TLS_CERT", parse: parseCertificateFile, doc: "PEM certificate (chain) file: serve HTTPS. Needs --tls-key." }),
  option({ key: "tlsKeyFile", flag: "--tls-key", env: "LEAD_INGRESS_TLS_KEY", parse: parsePrivateKeyFile, doc: "PEM private key file for --tls-cert." }),
  option({ key: "databasePath", flag: "--database", env: "LEAD_INGRESS_DATABASE", default: "lead-ingress.db", parse: parseDatabaseSetting, secret: true, doc: "SQLite database file, or a postgres:// URL; created (SQLite) and migrated at start." }),
  option({ key: "databasePoolSize", flag: "--database-pool-size", env: "LEAD_INGRESS_DATABASE_POOL_SIZE", default: "20", parse: parseInteger(1, 1_000), doc: "PostgreSQL connections per instance (ignored on SQLite)." }),
  option({ key: "sqliteCacheBytes", flag: "--sqlite-cache-size", env: "LEAD_INGRESS_SQLITE_CACHE_SIZE", default: `${SQLITE_CACHE_BYTES / 1024 ** 2}MiB`, parse: within(parseSize, 64 * 1024, 64 * 1024 ** 3, (n) => `${n} bytes`), doc: "SQLite's page cache (e.g. 8MiB): more keeps more of a large database's indexes in the process (resident memory), less reads them from the kernel's file cache more often." }),
  option({ key: "bodyLimitBytes", flag: "--body-limit", env: "LEAD_INGRESS_BODY_LIMIT", default: "64KiB", parse: within(parseSize, 1024, 64 * 1024 * 1024, (n) => `${n} bytes`), doc: "Largest request body accepted (413 above it)." }),
  option({ key: "duplicateWindowMs", flag: "--duplicate-window", env: "LEAD_INGRESS_DUPLICATE_WINDOW", default: "30d", parse: parseDuration, doc: "How long an accepted lead blocks its phone number." }),
  option({ key: "refusalRetentionMs", flag: "--refusal-retention", env: "LEAD_INGRESS_REFUSAL_RETENTION", default: "30d", parse: within(parseDuration, 60_000, 10 * 365 * 86_400_000, ms), doc: "How long the refusal log keeps a refused postLead (400 or 422) before the worker purges it." }),
  option({ key: "rateLimitPerSecond", flag: "--rate-limit", env: "LEAD_INGRESS_RATE_LIMIT", default: "100", parse: parseInteger(0, 1_000_000), doc: "Requests per second per vendor (0 = no limit)." }),
  option({ key: "rateLimitBurst", flag: "--rate-limit-burst", env: "LEAD_INGRESS_RATE_LIMIT_BURST", default: "200", parse: parseInteger(1, 10_000_000), doc: "Requests a vendor may send at once before the rate applies." }),
  option({ key: "trustedProxies", flag: "--trusted-proxies", env: "LEAD_INGRESS_TRUSTED_PROXIES", unset: [], parse: parseAddressRanges, doc: "Proxies (addresses or CIDRs, comma-separated) whose X-Forwarded-For names the client whose failed logins are throttled." }),
  option({ key: "holdPeriodMs", flag: "--hold-period", env: "LEAD_INGRESS_HOLD_PERIOD", default: "60s", parse: within(parseDuration, 0, 7 * 86_400_000, ms), doc: "Time between acceptance and the final result." }),
  option({ key: "testHoldPeriodMs", flag: "--test-hold-period", env: "LEAD_INGRESS_TEST_HOLD_PERIOD", default: "5s", parse: within(parseDuration, 0, 86_400_000, ms), doc: "Time between acceptance and the final result of a test lead (X-Test-Lead: true or a /v1/test/ route)." }),
  option({ key: "bootstrapVendor", flag: "--bootstrap-vendor", env: "LEAD_INGRESS_BOOTSTRAP_VENDOR", parse: parseCredentials, secret: true, doc: "NAME:PASSWORD of a vendor created at start when no vendor has that name." }),
  option({ key: "logLevel", flag: "--log-level", env: "LEAD_INGRESS_LOG_LEVEL", default: "info", parse: oneOf(...LOG_LEVELS), doc: "info: a JSON line per request; warn: what went wrong and was handled (callback retries) and worse; error: what needs an operator (dead callbacks, storage failures); silent: none." }),
  option({ key: "shutdownTimeoutMs", flag: "--shutdown-timeout", env: "LEAD_INGRESS_SHUTDOWN_TIMEOUT", default: "10s", parse: parseDuration, doc: "How long SIGTERM waits for in-flight work." }),
  option({ key: "shutdownDrainMs", flag: "--shutdown-drain", env: "LEAD_INGRESS_SHUTDOWN_DRAIN", default: "1s", parse: parseDuration, doc: "After SIGTERM, how long new requests still get 503 Service is shutting down before the listener closes (part of the shutdown timeout)." }),
  option({ key: "diskReserveBytes", flag: "--disk-reserve", env: "LEAD_INGRESS_DISK_RESERVE", default: "256MiB", parse: parseSize, doc: "Free disk space kept for deciding and calling back accepted leads; below it postLead gets 503 (0 keeps none)." }),
  option({ key: "worker", flag: "--worker", env: "LEAD_INGRESS_WORKER", default: "true", parse: parseBoolean, doc: "Run the worker that decides final results and delivers callbacks." }),
  option({ key: "workerThread", flag: "--worker-thread", env: "LEAD_INGRESS_WORKER_THREAD", default: "false", parse: parseBoolean, doc: "Run the worker on a thread of its own with its own database connection, off intake's event loop; false runs it on intake's thread." }),
  option({ key: "workerPollIntervalMs", flag: "--worker-poll-interval", env: "LEAD_INGRESS_WORKER_POLL_INTERVAL", default: "1s", parse: within(parseDuration, 10, 3_600_000, ms), doc: "How often the idle worker looks for due work." }),
  option({ key: "policyReloadMs", flag: "--policy-reload-interval", env: "LEAD_INGRESS_POLICY_RELOAD_INTERVAL", default: "1s", parse: within(parseDuration, 10, 1_000, ms), doc: "How often each instance reads the policy's version, so an import takes effect (at most 1s: docs/contract.md §10's 2 s)." }),
  option({ key: "callbackConcurrency", flag: "--callback-concurrency", env: "LEAD_INGRESS_CALLBACK_CONCURRENCY", default: "64", parse: parseInteger(1, 10_000), doc: "Callback deliveries in flight at once." }),
  option({ key: "callbackTimeoutMs", flag: "--callback-timeout", env: "LEAD_INGRESS_CALLBACK_TIMEOUT", default: "10s", parse: within(parseDuration, 100, 600_000, ms), doc: "Time a callback receiver has to answer one attempt." }),
  option({ key: "callbackRetrySchedule", flag: "--callback-retry-schedule", env: "LEAD_INGRESS_CALLBACK_RETRY_SCHEDULE", default: "5s,5m,30m,2h,5h,10h,10h", parse: parseDurationList, doc: "Waits between callback attempts (±20% jitter); after the last, the callback is dead." }),
  option({ key: "callbackRetryScale", flag: "--callback-retry-scale", env: "LEAD_INGRESS_CALLBACK_RETRY_SCALE", default: "1", parse: within(parsePositiveNumber, 0.000001, 1000), doc: "Multiplies the retry schedule and the cooldowns of paused endpoints (0.001 turns minutes into milliseconds for tests)." }),
  option({ key: "signingSecretOverlapMs", flag: "--signing-secret-overlap", env: "LEAD_INGRESS_SIGNING_SECRET_OVERLAP", default: "24h", parse: within(parseDuration, 0, 30 * 86_400_000, ms), doc: "After a vendor's signing secret is rotated, how long callbacks carry the old secret's signature beside the new one's (0s: the old one stops at once). Read by rotate-secret." }),
  option({ key: "allowPrivateCallbacks", flag: "--allow-private-callbacks", env: "LEAD_INGRESS_ALLOW_PRIVATE_CALLBACKS", default: "false", parse: parseBoolean, doc: "Allow callbacks to loopback and private addresses (development and tests only)." }),
  option({ key: "verifyCertificates", flag: "--verify-certificates", env: "LEAD_INGRESS_VERIFY_CERTIFICATES", default: "false", parse: parseBoolean, doc: "Reject leads whose certificate_url does not answer 2xx at decision time." }),
  option({ key: "certificateTimeoutMs", flag: "--certificate-timeout", env: "LEAD_INGRESS_CERTIFICATE_TIMEOUT", default: "5s", parse: within(parseDuration, 100, 600_000, ms), doc: "Time a certificate URL has to answer." }),
  option({ key: "trustedFormApiKey", flag: "--trustedform-api-key", env: "LEAD_INGRESS_TRUSTEDFORM_API_KEY", parse: parseNonEmpty, secret: true, doc: "TrustedForm API key: set, a certificate_url on cert.trustedform.com is verified with TrustedForm's certificate API during the hold (prefer the environment variable: a flag shows in the process list)." }),
  option({ key: "trustedFormBaseUrl", flag: "--trustedform-base-url", env: "LEAD_INGRESS_TRUSTEDFORM_BASE_URL", default: "https://cert.trustedform.com", parse: parseHttpUrl, doc: "TrustedForm's certificate API (the mock receiver's http://127.0.0.1:9090/trustedform for trying it)." }),
  option({ key: "trustedFormUnreachable", flag: "--trustedform-unreachable", env: "LEAD_INGRESS_TRUSTEDFORM_UNREACHABLE", default: "reject", parse: oneOf("reject", "accept"), doc: "A TrustedForm certificate TrustedForm has not answered for (down, 5xx, key refused) when its lead is decided: reject the lead, or accept it marked unverified." }),
  option({ key: "trustedFormConcurrency", flag: "--trustedform-concurrency", env: "LEAD_INGRESS_TRUSTEDFORM_CONCURRENCY", default: "16", parse: parseInteger(1, 1_000), doc: "TrustedForm requests in flight at once." }),
  option({ key: "consoleHost", flag: "--console-host", env: "LEAD_INGRESS_CONSOLE_HOST", default: "127.0.0.1", parse: parseHost, doc: "Address the operator's console listens on." }),
  option({ key: "consolePort", flag: "--console-port", env: "LEAD_INGRESS_CONSOLE_PORT", default: "off", parse: parseConsolePort, doc: "TCP port of the operator's console, a listener of its own (0 picks a free one; off or unset: no console)." }),
  option({ key: "consoleSessionLifetimeMs", flag: "--console-session-lifetime", env: "LEAD_INGRESS_CONSOLE_SESSION_LIFETIME", default: "12h", parse: within(parseDuration, 60_000, 30 * 86_400_000, ms), doc: "How long a console sign-in lasts before the operator signs in again." }),
  option({ key: "portalSessionLifetimeMs", flag: "--portal-session-lifetime", env: "LEAD_INGRESS_PORTAL_SESSION_LIFETIME", default: "12h", parse: within(parseDuration, 60_000, 30 * 86_400_000, ms), doc: "How long a vendor's portal sign-in lasts before it signs in again." }),
  option({ key: "portalLinkLifetimeMs", flag: "--portal-link-lifetime", env: "LEAD_INGRESS_PORTAL_LINK_LIFETIME", default: "15m", parse: within(parseDuration, 60_000, 86_400_000, ms), doc: "How long a one-time portal sign-in link (vendors portal-link) can be used." }),
  option({ key: "portalTestCallbacks", flag: "--portal-test-callbacks", env: "LEAD_INGRESS_PORTAL_TEST_CALLBACKS", default: "10", parse: parseInteger(1, 1_000), doc: "Test callbacks a vendor may send from the portal at once, one at a time; past them 429 until they come back, evenly over --portal-test-callback-window." }),
  option({ key: "portalTestCallbackWindowMs", flag: "--portal-test-callback-window", env: "LEAD_INGRESS_PORTAL_TEST_CALLBACK_WINDOW", default: "1m", parse: within(parseDuration, 1_000, 86_400_000, ms), doc: "The time over which a vendor's --portal-test-callbacks come back." }),
  option({ key: "publicUrl", flag: "--public-url", env: "LEAD_INGRESS_PUBLIC_URL", parse: parseHttpUrl, doc: "The API's address as vendors reach it (behind a proxy): portal sign-in links and the endpoint URLs the portal shows; unset: this listener's own." }),
  option({ key: "benchNoopRoute", flag: "--bench-noop-route", env: "LEAD_INGRESS_BENCH_NOOP_ROUTE", default: "false", parse: parseBoolean, doc: "Mount POST /bench/noop for the benchmark's baseline." }),
];

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
  }
}

/** Each option's default, parsed from its written form once. */
const DEFAULTS = Object.freeze(Object.fromEntries(OPTIONS.map((o) => [o.key, o.default === undefined ? o.unset : o.parse(o.default)])));

export function defaultConfig(): Config {
  return { ...DEFAULTS } as unknown as Config;
}

/**
 * Builds the config from the environment and flags (`--port 9000` or `--port=9000`; a boolean flag
 * alone means true). Throws ConfigError listing every problem; unknown flags are problems too.
 */
export function loadConfig(env: Record<string, string | undefined>, argv: string[]): Config {
  const problems: string[] = [];
  const config = defaultConfig() as unknown as Record<string, unknown>;
  const given = new Set<keyof Config>();
  const set = (opt: Option<keyof Config>, raw: string, source: string) => {
    given.add(opt.key);
    try {
      config[opt.key] = opt.parse(raw);
    } catch (error) {
      problems.push(`${opt.secret ? source : `${source}=${JSON.stringify(raw)}`}: ${(error as Error).message}`);
    }
  };
  for (const opt of OPTIONS) {
    const raw = env[opt.env];
    if (raw !== undefined && raw !== "") set(opt, raw, opt.env);
  }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [name, inline] = arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined];
    const opt = OPTIONS.find((o) => o.flag === name);
    if (!opt) {
      problems.push(`unknown option ${JSON.stringify(arg)} (see --help)`);
      continue;
    }
    const isBoolean = typeof DEFAULTS[opt.key] === "boolean";
    const next = argv[i + 1];
    const nextIsValue = next !== undefined && !next.startsWith("--");
    const raw = inline ?? (nextIsValue ? argv[++i] : isBoolean ? "true" : undefined);
    if (raw === undefined) problems.push(`${name}: needs a value`);
    else set(opt, raw, name);
  }
  if ((config.holdPeriodMs as number) >= (config.duplicateWindowMs as number)) {
    // Otherwise a second lead could take over the number while the first is still pending.
    problems.push("--hold-period must be shorter than --duplicate-window");
  }
  // The console has its own listener, so the vendors' port never answers it (README: Console).
  if (config.consolePort !== undefined && config.consolePort !== 0 && config.consolePort === config.port)
    problems.push("--console-port must differ from --port: the console has a listener of its own");
  if (given.has("tlsCertFile") !== given.has("tlsKeyFile")) problems.push("--tls-cert and --tls-key go together: set both or neither");
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze(config) as unknown as Config;
}

/** A port, or off: no console. */
function parseConsolePort(raw: string): number | undefined {
  return raw.trim().toLowerCase() === "off" ? undefined : parseInteger(0, 65535)(raw);
}

/** The options as a text table, for --help: each default as the operator would write it. */
export function describeOptions(): string {
  return OPTIONS.map((o) => `  ${`${o.flag} / ${o.env}`.padEnd(62)} ${o.doc} (${o.default === undefined ? "unset by default" : `default: ${o.default}`})`).join(
    "\n",
  );
}
