import { accessSync, constants, readFileSync, statSync } from "node:fs";
import { isIP } from "node:net";
import { VENDOR_NAME } from "../auth/vendor-name.ts";

// Parsers for config values. Each returns the value or throws an Error whose message says what
// was expected; loadConfig adds which setting it was.

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** "500ms", "60s", "5m", "2h", "30d" → milliseconds. */
export function parseDuration(raw: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/.exec(raw.trim());
  if (!match) throw new Error(`expected a duration such as 500ms, 60s, 5m, 2h or 30d`);
  return Math.round(Number(match[1]) * DURATION_UNITS[match[2]!]!);
}

/** A list of durations separated by commas: "5s,5m,30m". */
export function parseDurationList(raw: string): number[] {
  const parts = raw.split(",").map((p) => p.trim());
  if (parts.length === 0 || parts.some((p) => p === "")) throw new Error(`expected durations separated by commas, such as 5s,5m,30m`);
  return parts.map(parseDuration);
}

const SIZE_UNITS: Record<string, number> = { "": 1, b: 1, kib: 1024, kb: 1000, mib: 1024 ** 2, mb: 1000 ** 2 };

/** "65536", "64KiB", "1MiB" → bytes. */
export function parseSize(raw: string): number {
  const match = /^(\d+)\s*([a-z]*)$/i.exec(raw.trim());
  const unit = match ? SIZE_UNITS[match[2]!.toLowerCase()] : undefined;
  if (!match || unit === undefined) throw new Error(`expected a size such as 65536, 64KiB or 1MiB`);
  return Number(match[1]) * unit;
}

export function parseInteger(min: number, max: number) {
  return (raw: string): number => {
    const value = Number(raw.trim());
    if (!/^-?\d+$/.test(raw.trim()) || value < min || value > max) {
      throw new Error(`expected a whole number from ${min} to ${max}`);
    }
    return value;
  };
}

export function parsePositiveNumber(raw: string): number {
  const value = Number(raw.trim());
  if (raw.trim() === "" || !Number.isFinite(value) || value <= 0) throw new Error(`expected a number greater than 0`);
  return value;
}

export function parseBoolean(raw: string): boolean {
  const value = raw.trim().toLowerCase();
  if (["1", "true", "yes", "on"].includes(value)) return true;
  if (["0", "false", "no", "off"].includes(value)) return false;
  throw new Error(`expected true or false`);
}

/** An http(s) URL without credentials (a base URL requests are sent under). */
export function parseHttpUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new Error("expected an http:// or https:// URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error("expected an http:// or https:// URL");
  if (url.username || url.password) throw new Error("the URL must not carry a user or password");
  return url.href;
}

export function parseNonEmpty(raw: string): string {
  if (raw.trim() === "") throw new Error(`must not be empty`);
  return raw;
}

/** "10.0.0.0/8", "fd00::/8", "192.0.2.7" or "::1" → its parts; throws when it is none of these. */
export function parseAddressRange(raw: string): { address: string; prefix: number; family: "ipv4" | "ipv6" } {
  const [address = "", prefixText, ...rest] = raw.trim().split("/");
  const version = isIP(address);
  const bits = version === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? bits : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : NaN;
  if (version === 0 || rest.length > 0 || !(prefix >= 0 && prefix <= bits)) throw new Error(`expected an IP address or CIDR range such as 10.0.0.0/8`);
  return { address, prefix, family: version === 4 ? "ipv4" : "ipv6" };
}

/** "10.0.0.0/8, 192.0.2.7" → each range as written (checked now, so a typo stops the start). */
export function parseAddressRanges(raw: string): string[] {
  const ranges = raw.split(",").map((range) => range.trim());
  for (const range of ranges) parseAddressRange(range);
  return ranges;
}

/** "name:password" for the bootstrap vendor. */
export function parseCredentials(raw: string): { name: string; password: string } {
  const colon = raw.indexOf(":");
  const name = raw.slice(0, colon);
  const password = raw.slice(colon + 1);
  if (colon < 1 || !VENDOR_NAME.test(name) || password.length < 8) {
    throw new Error(`expected NAME:PASSWORD: a name of letters, digits, '.', '_' or '-', and a password of at least 8 characters`);
  }
  return { name, password };
}

/** A path to a file this process can read (checked now, so a typo stops the start). */
export function parseReadableFile(raw: string): string {
  try {
    accessSync(raw, constants.R_OK);
    if (!statSync(raw).isFile()) throw new Error();
  } catch {
    throw new Error(`expected a readable file`);
  }
  return raw;
}

/** A parser whose result must lie in [min, max]; `describe` shows the bounds in the message. */
export function within<T extends number>(parse: (raw: string) => T, min: number, max: number, describe: (n: number) => string = String) {
  return (raw: string): T => {
    const value = parse(raw);
    if (value < min || value > max) throw new Error(`must be from ${describe(min)} to ${describe(max)}`);
    return value;
  };
}

const HOST_NAME = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i;

/** An IP address or a host name to listen on; "999.1.1.1" is neither (a name's last label has a letter). */
export function parseHost(raw: string): string {
  const host = raw.trim();
  if (isIP(host) === 0 && !(HOST_NAME.test(host) && /[a-z]/i.test(host.split(".").at(-1)!))) {
    throw new Error(`expected an IP address of this machine (such as 127.0.0.1, 0.0.0.0 or ::) or a host name`);
  }
  return host;
}

/** A SQLite file's path or a postgres:// URL; another scheme (mysql://) would otherwise become a file's name. */
export function parseDatabaseSetting(raw: string): string {
  const value = parseNonEmpty(raw);
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(value)?.[1];
  if (scheme !== undefined && !/^postgres(ql)?$/i.test(scheme)) {
    throw new Error(`expected a SQLite file's path or a postgres:// URL (${scheme}:// is not supported)`);
  }
  return value;
}

/** A readable PEM certificate (chain) file, checked now so a wrong file stops the start naming it. */
export function parseCertificateFile(raw: string): string {
  return parsePemFile(raw, /-----BEGIN CERTIFICATE-----/, "a PEM certificate (-----BEGIN CERTIFICATE-----)");
}

/** A readable PEM private key file (a certificate given by mistake is refused here, not by TLS later). */
export function parsePrivateKeyFile(raw: string): string {
  return parsePemFile(raw, /-----BEGIN (RSA |EC |ENCRYPTED )?PRIVATE KEY-----/, "a PEM private key (-----BEGIN PRIVATE KEY-----)");
}

function parsePemFile(raw: string, marker: RegExp, what: string): string {
  const path = parseReadableFile(raw);
  let text: string;
  try {
    text = readFileSync(path, "latin1");
  } catch (error) {
    throw new Error(`expected a readable file (${(error as Error).message})`);
  }
  if (!marker.test(text)) throw new Error(`expected ${what}; ${path} holds none`);
  return path;
}
