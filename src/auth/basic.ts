/** The `Authorization` header value for HTTP Basic credentials. */
export function basicAuthorization(name: string, password: string): string {
  return `Basic ${Buffer.from(`${name}:${password}`).toString("base64")}`;
}

/** Parses `Authorization: Basic <base64(name:password)>` (RFC 7617); null when malformed. */
export function parseBasicAuthorization(header: string | null): { name: string; password: string } | null {
  if (header === null) return null;
  const match = /^basic[ ]+([A-Za-z0-9+/]+={0,2})[ ]*$/i.exec(header);
  if (!match) return null;
  const decoded = Buffer.from(match[1]!, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 1) return null;
  return { name: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}
