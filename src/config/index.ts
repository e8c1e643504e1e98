// Configuration: compiled-in defaults, then LEAD_INGRESS_* environment variables, then command-line
// flags. Loaded and validated once at start, then passed down; nothing else reads process.env.
import { parseBoolean, parseCredentials, parseDuration, parseInteger, parseNonEmpty, parseSize } from "./parse.ts";

export interface Config {
  host: string;
  port: number;
  databasePath: string;
  bodyLimitBytes: number;
  duplicateWindowMs: number;
  /** Requests per second per vendor; 0 turns the limit off. */
  rateLimitPerSecond: number;
  rateLimitBurst: number;
  holdPeriodMs: number;
  bootstrapVendor: { name: string; password: string } | undefined;
  logLevel: "info" | "error" | "silent";
  shutdownTimeoutMs: number;
  /** Mounts POST /bench/noop, the baseline route of the benchmark. Never on in production. */
  benchNoopRoute: boolean;
}

interface Option<K extends keyof Config> {
  key: K;
  flag: string;
  env: string;
  default: Config[K];
  /** Shown in --help and the README's configuration table. */
  doc: string;
  parse: (raw: string) => Config[K];
}

const option = <K extends keyof Config>(o: Option<K>) => o as unknown as Option<keyof Config>;

function oneOf<T extends string>(...values: T[]) {
  return (raw: string): T => {
    if (!values.includes(raw as T)) throw new Error(`expected one of ${values.join(", ")}`);
    return raw as T;
  };
}

export const OPTIONS: Option<keyof Config>[] = [
  option({ key: "host", flag: "--host", env: "LEAD_INGRESS_HOST", default: "127.0.0.1", parse: parseNonEmpty, doc: "Address to listen on (0.0.0.0 for all interfaces)." }),
  option({ key: "port", flag: "--port", env: "LEAD_INGRESS_PORT", default: 8080, parse: parseInteger(0, 65535), doc: "TCP port; 0 picks a free one." }),
  option({ key: "databasePath", flag: "--database", env: "LEAD_INGRESS_DATABASE", default: "lead-ingress.db", parse: parseNonEmpty, doc: "SQLite database file, created and migrated at start." }),
  option({ key: "bodyLimitBytes", flag: "--body-limit", env: "LEAD_INGRESS_BODY_LIMIT", default: 65536, parse: parseSize, doc: "Largest request body accepted (413 above it)." }),
  option({ key: "duplicateWindowMs", flag: "--duplicate-window", env: "LEAD_INGRESS_DUPLICATE_WINDOW", default: 30 * 86_400_000, parse: parseDuration, doc: "How long an accepted lead blocks its phone number." }),
  option({ key: "rateLimitPerSecond", flag: "--rate-limit", env: "LEAD_INGRESS_RATE_LIMIT", default: 100, parse: parseInteger(0, 1_000_000), doc: "Requests per second per vendor (0 = no limit)." }),
  option({ key: "rateLimitBurst", flag: "--rate-limit-burst", env: "LEAD_INGRESS_RATE_LIMIT_BURST", default: 200, parse: parseInteger(1, 10_000_000), doc: "Requests a vendor may send at once before the rate applies." }),
  option({ key: "holdPeriodMs", flag: "--hold-period", env: "LEAD_INGRESS_HOLD_PERIOD", default: 60_000, parse: parseDuration, doc: "Time between acceptance and the final result." }),
  option({ key: "bootstrapVendor", flag: "--bootstrap-vendor", env: "LEAD_INGRESS_BOOTSTRAP_VENDOR", default: undefined, parse: parseCredentials, doc: "NAME:PASSWORD of a vendor created at start when no vendor has that name." }),
  option({ key: "logLevel", flag: "--log-level", env: "LEAD_INGRESS_LOG_LEVEL", default: "info", parse: oneOf("info", "error", "silent"), doc: "info: a JSON line per request; error: failures only; silent: none." }),
  option({ key: "shutdownTimeoutMs", flag: "--shutdown-timeout", env: "LEAD_INGRESS_SHUTDOWN_TIMEOUT", default: 10_000, parse: parseDuration, doc: "How long SIGTERM waits for in-flight work." }),
  option({ key: "benchNoopRoute", flag: "--bench-noop-route", env: "LEAD_INGRESS_BENCH_NOOP_ROUTE", default: false, parse: parseBoolean, doc: "Mount POST /bench/noop for the benchmark's baseline." }),
];

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
  }
}

export function defaultConfig(): Config {
  return Object.fromEntries(OPTIONS.map((o) => [o.key, o.default])) as unknown as Config;
}

/**
 * Builds the config from the environment and flags (`--port 9000` or `--port=9000`; a boolean flag
 * alone means true). Throws ConfigError listing every problem; unknown flags are problems too.
 */
export function loadConfig(env: Record<string, string | undefined>, argv: string[]): Config {
  const problems: string[] = [];
  const config = defaultConfig() as unknown as Record<string, unknown>;
  const set = (opt: Option<keyof Config>, raw: string, source: string) => {
    try {
      config[opt.key] = opt.parse(raw);
    } catch (error) {
      problems.push(`${source}=${JSON.stringify(raw)}: ${(error as Error).message}`);
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
    const isBoolean = typeof opt.default === "boolean";
    const next = argv[i + 1];
    const raw = inline ?? (isBoolean && (next === undefined || next.startsWith("--")) ? "true" : argv[++i]);
    if (raw === undefined) problems.push(`${name}: needs a value`);
    else set(opt, raw, name);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze(config) as unknown as Config;
}

/** The options as a text table, for --help. */
export function describeOptions(): string {
  return OPTIONS.map((o) => `  ${`${o.flag} / ${o.env}`.padEnd(62)} ${o.doc} (default: ${formatDefault(o.default)})`).join("\n");
}

function formatDefault(value: unknown): string {
  return value === undefined ? "none" : String(value);
}
