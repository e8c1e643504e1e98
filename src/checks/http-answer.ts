// Reads one HTTP/1.1 answer from a connection's bytes as they arrive (http-client.ts): the status
// line, the headers, then a body of a declared Content-Length, a chunked one, or one that ends with
// the connection. Split reads are taken as they come; an answer is judged reusable (its connection
// may carry the next request) only when it was framed exactly and the server did not say close.
// The body is bounded: past `limit` bytes reading stops and the answer says so (body null), so a
// service cannot make us buffer without end. Anything malformed throws: the connection is dropped.

/** An answer as the checks need it: its status and body text (null: longer than the limit). */
export interface HttpAnswer {
  status: number;
  body: string | null;
  /** Framed exactly and not closed by the server: the connection may be reused. */
  reusable: boolean;
}

/**
 * The value of header `name` in `fields` (the head lower-cased, ending in CRLF), trimmed; undefined
 * when absent. A header sent twice must say the same both times (a second, different
 * Content-Length is how responses are smuggled); differing values throw.
 */
function field(fields: string, name: string): string | undefined {
  const key = `\r\n${name}:`;
  const at = fields.indexOf(key);
  if (at < 0) return undefined;
  const start = at + key.length;
  const value = fields.slice(start, fields.indexOf("\r\n", start)).trim();
  const again = fields.indexOf(key, start);
  if (again >= 0 && fields.slice(again + key.length, fields.indexOf("\r\n", again + key.length)).trim() !== value)
    throw new HttpAnswerError(`${name} sent twice`);
  return value;
}

/** Headers longer than this are not a check service's answer. */
export const MAX_HEAD_BYTES = 16 * 1024;
const CRLF = Buffer.from("\r\n");
const HEAD_END = Buffer.from("\r\n\r\n");
const STATUS_LINE = /^HTTP\/1\.([01]) (\d{3})/;

export class HttpAnswerError extends Error {
  readonly code = "EBADANSWER";
}

type Mode = "head" | "length" | "chunk-size" | "chunk-data" | "chunk-end" | "trailer" | "close";

export class AnswerReader {
  private mode: Mode = "head";
  private buffered: Buffer | null = null;
  private parts: Buffer[] = [];
  private size = 0;
  /** Bytes of body still due: of the Content-Length, or of the current chunk. */
  private due = 0;
  private status = 0;
  private keepAlive = true;
  private limit = 0;
  /** Whether any byte of this answer arrived (a reused connection closed before any may be retried). */
  received = false;

  /** Ready for the next answer, of at most `limit` body bytes. */
  reset(limit: number): void {
    this.mode = "head";
    this.buffered = null;
    this.parts = [];
    this.size = 0;
    this.due = 0;
    this.status = 0;
    this.keepAlive = true;
    this.limit = limit;
    this.received = false;
  }

  /** Takes the next bytes; the answer once complete (or known too large), else undefined. */
  push(chunk: Buffer): HttpAnswer | undefined {
    this.received = true;
    let bytes = this.buffered === null ? chunk : Buffer.concat([this.buffered, chunk]);
    this.buffered = null;
    for (;;) {
      const rest = this.step(bytes);
      if (rest === "done") return this.answer(true);
      if (rest === "too-large") return { status: this.status, body: null, reusable: false };
      if (rest === null) return undefined;
      bytes = rest;
    }
  }

  /** The connection ended: the answer, when it was one whose body runs to the end; otherwise throws. */
  closed(): HttpAnswer {
    if (this.mode === "close") return this.answer(false);
    throw new HttpAnswerError("connection closed before the answer was complete");
  }

  /** One step of the state machine: the bytes left to read, null to wait for more, or the answer's end. */
  private step(bytes: Buffer): Buffer | null | "done" | "too-large" {
    switch (this.mode) {
      case "head":
        return this.head(bytes);
      case "length": {
        const take = Math.min(this.due, bytes.length);
        if (take > 0) this.parts.push(bytes.subarray(0, take));
        this.due -= take;
        if (take < bytes.length) this.keepAlive = false; // bytes past the answer: the stream is not ours to trust
        return this.due === 0 ? "done" : null;
      }
      case "chunk-size": {
        const line = this.line(bytes);
        if (line === null) return null;
        const digits = line.text.split(";")[0]!.trim();
        if (!/^[0-9a-f]{1,12}$/i.test(digits)) throw new HttpAnswerError("malformed chunk size");
        const size = Number.parseInt(digits, 16);
        if (this.size + size > this.limit) return "too-large";
        this.due = size;
        this.mode = size === 0 ? "trailer" : "chunk-data";
        return line.rest;
      }
      case "chunk-data": {
        const take = Math.min(this.due, bytes.length);
        if (take > 0) this.parts.push(bytes.subarray(0, take));
        this.size += take;
        this.due -= take;
        if (this.due > 0) return null;
        this.mode = "chunk-end";
        return bytes.subarray(take);
      }
      case "chunk-end": {
        const line = this.line(bytes);
        if (line === null) return null;
        if (line.text !== "") throw new HttpAnswerError("malformed chunk end");
        this.mode = "chunk-size";
        return line.rest;
      }
      case "trailer": {
        const line = this.line(bytes);
        if (line === null) return null;
        if (line.text !== "") return line.rest; // a trailer field: ignored
        if (line.rest.length > 0) this.keepAlive = false;
        return "done";
      }
      case "close":
        if (bytes.length > 0) this.parts.push(bytes);
        this.size += bytes.length;
        return this.size > this.limit ? "too-large" : null;
    }
  }

  /** The status line and headers; decides how the body is framed. */
  private head(bytes: Buffer): Buffer | null | "done" | "too-large" {
    const end = bytes.indexOf(HEAD_END);
    if (end < 0) {
      if (bytes.length > MAX_HEAD_BYTES) throw new HttpAnswerError("answer's headers too large");
      this.buffered = bytes;
      return null;
    }
    // Headers are looked up in the head's text, lower-cased once, rather than split line by line.
    const head = bytes.toString("latin1", 0, end);
    const status = STATUS_LINE.exec(head);
    if (status === null) throw new HttpAnswerError("not an HTTP/1.x answer");
    const rest = bytes.subarray(end + 4);
    this.status = Number(status[2]);
    if (this.status >= 100 && this.status < 200 && this.status !== 101) return rest; // informational: the answer follows
    const fields = `${head.toLowerCase()}\r\n`;
    if (fields.includes("\n ") || fields.includes("\n\t")) throw new HttpAnswerError("folded header line");
    const length = field(fields, "content-length");
    if (length !== undefined && !/^\d{1,15}$/.test(length)) throw new HttpAnswerError("malformed content-length");
    const transfer = field(fields, "transfer-encoding");
    if (transfer !== undefined && transfer !== "chunked") throw new HttpAnswerError(`unsupported transfer-encoding ${transfer}`);
    const chunked = transfer === "chunked";
    const connection = field(fields, "connection") ?? "";
    this.keepAlive = connection.includes("close") ? false : status[1] === "1" || connection.includes("keep-alive");
    const encoding = field(fields, "content-encoding");
    // We send no Accept-Encoding: a compressed answer is not one we asked for.
    if (encoding !== undefined && encoding !== "identity") throw new HttpAnswerError(`unrequested content-encoding ${encoding}`);
    if (this.status === 101) throw new HttpAnswerError("unexpected protocol switch");
    if (this.status === 204 || this.status === 304) return this.emptyBody(rest);
    if (chunked) {
      if (length !== undefined) this.keepAlive = false; // both framings: chunked wins, and the connection is not trusted after
      this.mode = "chunk-size";
      return rest;
    }
    if (length !== undefined) {
      this.due = Number(length);
      if (this.due > this.limit) return "too-large";
      if (this.due === 0) return this.emptyBody(rest);
      this.mode = "length";
      return rest;
    }
    this.mode = "close";
    this.keepAlive = false;
    return rest;
  }

  private emptyBody(rest: Buffer): "done" {
    if (rest.length > 0) this.keepAlive = false;
    return "done";
  }

  /** A CRLF-ended line at the start of `bytes`, or null (the bytes kept) until it is whole. */
  private line(bytes: Buffer): { text: string; rest: Buffer } | null {
    const end = bytes.indexOf(CRLF);
    if (end < 0) {
      if (bytes.length > MAX_HEAD_BYTES) throw new HttpAnswerError("answer's chunk line too long");
      this.buffered = bytes;
      return null;
    }
    return { text: bytes.toString("latin1", 0, end), rest: bytes.subarray(end + 2) };
  }

  private answer(framed: boolean): HttpAnswer {
    const parts = this.parts;
    const body = parts.length === 0 ? "" : parts.length === 1 ? parts[0]!.toString("utf8") : Buffer.concat(parts).toString("utf8");
    return { status: this.status, body, reusable: framed && this.keepAlive };
  }
}
