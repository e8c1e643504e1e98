// The floor of an HTTP/2 check client in JavaScript on Bun (bench/h2-exchange.ts, variant d): h2c
// with prior knowledge over one Bun.connect socket, every request a stream, the frames of all
// requests made in one turn written in one socket.write. Only what the bench needs: no TLS; on the
// sending side the connection's flow-control window only (a request waits until the peer's window
// takes its body; a body, ~300 bytes, always fits a stream's initial window); no HPACK decoding (an answer's status is read only when the server sends it as the static table's
// ":status: 200", 0x88; anything else counts as not 200), ASCII bodies. Not a product client: what
// one would add (TLS and ALPN, send windows, header decoding, GOAWAY and reconnects, deadlines and
// RST_STREAM, limits) is the cost of building one, and adds CPU to the figure it measures.
import type { Socket } from "bun";

const PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
const [DATA, HEADERS, RST_STREAM, SETTINGS, PING, GOAWAY, WINDOW_UPDATE] = [0, 1, 3, 4, 6, 7, 8];
const [END_STREAM, ACK, END_HEADERS, PADDED, PRIORITY] = [1, 1, 4, 8, 0x20];
/** Our receive window, connection and streams: large, so WINDOW_UPDATE is rare. */
const WINDOW = 2 ** 30;

/** A frame's 9-byte header as latin1 text. */
function frameHead(length: number, type: number, flags: number, stream: number): string {
  return String.fromCharCode(
    length >>> 16,
    (length >>> 8) & 255,
    length & 255,
    type,
    flags,
    stream >>> 24,
    (stream >>> 16) & 255,
    (stream >>> 8) & 255,
    stream & 255,
  );
}
const u32 = (value: number) => String.fromCharCode(value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255);

/** An HPACK integer with an n-bit prefix (RFC 7541 §5.1) after `first`'s high bits. */
function hpackInteger(first: number, bits: number, value: number): string {
  const max = (1 << bits) - 1;
  if (value < max) return String.fromCharCode(first | value);
  let text = String.fromCharCode(first | max);
  for (value -= max; value >= 128; value >>>= 7) text += String.fromCharCode((value & 127) | 128);
  return text + String.fromCharCode(value);
}
const hpackString = (text: string) => hpackInteger(0, 7, text.length) + text;

interface Pending {
  resolve(body: string): void;
  reject(error: Error): void;
  body: string;
  ok: boolean;
}

export class RawH2Client {
  private socket: Socket<undefined> | undefined;
  private readonly streams = new Map<number, Pending>();
  private nextStream = 1;
  private out = "";
  private flushing = false;
  private unread: Buffer | undefined;
  private consumed = 0;
  /** The peer's connection window for our DATA, and the requests (frames without a stream id yet) waiting for it. */
  private sendWindow = 65_535;
  private readonly waiting: [block: string, body: string, pending: Pending][] = [];
  /** The connection being made; none after the server closed one (Bun.serve does after 10 s idle): the next request makes another. */
  private ready: Promise<void> | undefined;
  /** ":method: POST" (static 3), ":scheme: http" (static 6), :path and :authority literal without indexing. */
  private readonly head: string;

  constructor(
    private readonly port: number,
    authority: string,
    path: string,
  ) {
    this.head = `\x83\x86\x04${hpackString(path)}\x01${hpackString(authority)}`;
  }

  private async connect(): Promise<void> {
    this.nextStream = 1;
    this.unread = undefined;
    this.consumed = 0;
    this.sendWindow = 65_535;
    this.socket = await Bun.connect({
      hostname: "127.0.0.1",
      port: this.port,
      socket: {
        data: (_socket, chunk) => this.read(chunk),
        close: () => this.fail(new Error("connection closed")),
        error: (_socket, error) => this.fail(error),
      },
    });
    // SETTINGS_INITIAL_WINDOW_SIZE (4), and the connection window raised by a WINDOW_UPDATE.
    this.write(`${PREFACE}${frameHead(6, SETTINGS, 0, 0)}\x00\x04${u32(WINDOW)}${frameHead(4, WINDOW_UPDATE, 0, 0)}${u32(WINDOW - 65_535)}`);
  }

  async post(headers: Record<string, string>, body: string): Promise<{ ok: boolean; body: string }> {
    if (this.socket === undefined) await (this.ready ??= this.connect());
    let block = this.head;
    for (const name in headers) block += `\x00${hpackString(name)}${hpackString(headers[name]!)}`;
    block += `\x00${hpackString("content-length")}${hpackString(String(body.length))}`;
    const { promise, resolve, reject } = Promise.withResolvers<string>();
    const pending: Pending = { resolve, reject, body: "", ok: false };
    if (this.waiting.length === 0 && body.length <= this.sendWindow) this.send(block, body, pending);
    else this.waiting.push([block, body, pending]);
    return { body: await promise, ok: pending.ok };
  }

  /** A request's HEADERS and DATA; stream ids are given in the order requests go out, as HTTP/2 requires. */
  private send(block: string, body: string, pending: Pending): void {
    const stream = this.nextStream;
    this.nextStream += 2;
    this.sendWindow -= body.length;
    this.streams.set(stream, pending);
    this.write(`${frameHead(block.length, HEADERS, END_HEADERS, stream)}${block}${frameHead(body.length, DATA, END_STREAM, stream)}${body}`);
  }

  /** Frames made in one turn go out in one write. */
  private write(frames: string): void {
    this.out += frames;
    if (this.flushing) return;
    this.flushing = true;
    queueMicrotask(() => {
      this.flushing = false;
      const bytes = Buffer.from(this.out, "latin1");
      this.out = "";
      const written = this.socket?.write(bytes) ?? 0;
      if (written < bytes.length) this.fail(new Error("not written: the socket is closed, or full (a floor client does not queue)"));
    });
  }

  private read(chunk: Buffer): void {
    let bytes = this.unread === undefined ? chunk : Buffer.concat([this.unread, chunk]);
    this.unread = undefined;
    while (bytes.length >= 9) {
      const length = (bytes[0]! << 16) | (bytes[1]! << 8) | bytes[2]!;
      if (bytes.length < 9 + length) break;
      this.frame(bytes[3]!, bytes[4]!, bytes.readUInt32BE(5) & 0x7fffffff, bytes.subarray(9, 9 + length));
      bytes = bytes.subarray(9 + length);
    }
    if (bytes.length > 0) this.unread = Buffer.from(bytes);
  }

  private frame(type: number, flags: number, id: number, payload: Buffer): void {
    const padding = flags & PADDED && (type === DATA || type === HEADERS) ? payload[0]! : 0;
    const start = flags & PADDED && (type === DATA || type === HEADERS) ? 1 : 0;
    if (type === DATA || type === HEADERS) {
      const stream = this.streams.get(id);
      const content = payload.subarray(start + (type === HEADERS && flags & PRIORITY ? 5 : 0), payload.length - padding);
      if (stream !== undefined && type === DATA) stream.body += content.toString("latin1");
      if (stream !== undefined && type === HEADERS && stream.body === "") stream.ok = content[0] === 0x88;
      if (stream !== undefined && flags & END_STREAM) {
        this.streams.delete(id);
        stream.resolve(stream.body);
      }
      if (type === DATA) this.received(payload.length);
    } else if (type === SETTINGS && !(flags & ACK)) this.write(frameHead(0, SETTINGS, ACK, 0));
    else if (type === PING && !(flags & ACK)) this.write(frameHead(8, PING, ACK, 0) + payload.toString("latin1", 0, 8));
    else if (type === RST_STREAM) {
      this.streams.get(id)?.reject(new Error(`stream reset, code ${payload.readUInt32BE(0)}`));
      this.streams.delete(id);
    } else if (type === GOAWAY) this.fail(new Error(`GOAWAY ${payload.readUInt32BE(4)}`));
    else if (type === WINDOW_UPDATE && id === 0) {
      this.sendWindow += payload.readUInt32BE(0) & 0x7fffffff;
      while (this.waiting.length > 0 && this.waiting[0]![1].length <= this.sendWindow) this.send(...this.waiting.shift()!);
    }
  }

  /** Gives the connection window back once a quarter of it is used (streams get far less than theirs). */
  private received(bytes: number): void {
    this.consumed += bytes;
    if (this.consumed < WINDOW / 4) return;
    this.write(frameHead(4, WINDOW_UPDATE, 0, 0) + u32(this.consumed));
    this.consumed = 0;
  }

  private fail(error: Error): void {
    this.socket?.end();
    this.socket = undefined;
    this.ready = undefined;
    this.out = "";
    for (const stream of this.streams.values()) stream.reject(error);
    for (const [, , pending] of this.waiting) pending.reject(error);
    this.streams.clear();
    this.waiting.length = 0;
  }

  close(): void {
    this.socket?.end();
  }
}
