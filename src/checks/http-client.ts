// The checks' HTTP client: HTTP/1.1 POSTs over Bun.connect, keep-alive connections pooled per
// pinned address. Why not fetch (measured by `bun bench/check-client.ts`, bench/README.md
// "External checks' cost"): a check is one small POST per lead, on intake's path, and Bun's fetch
// costs 40-50 µs of CPU per request (40 with its cheapest options; its HTTP thread, the
// Request/Response/Headers objects, the body stream), node:http 60, against 22-24 µs here: one
// string written per request, the answer parsed from the socket's bytes (http-answer.ts), no
// object a check does not use. A client of our own was worth its code only at about half fetch's
// CPU or less, and it is.
//
// What fetch gave that is kept: the connection goes to the checked address (HttpTarget, from
// address.ts) with the URL's host as Host and, for https, as SNI and the name the certificate is
// verified against (Bun's TLS, with its CA store; `ca` for tests); redirects are answers, never
// followed; the caller's cancel (its deadline) ends an exchange at once. A connection that errs,
// times out, is aborted, or carries an answer not framed exactly is destroyed, never reused. A connection idle
// for IDLE_MS is not reused (servers commonly close theirs after 5 s: we stop first, so they rarely
// close one under a request) and is closed by its socket's timeout (Bun's ticks are 4 s); a request on a reused connection that the server closed before any byte of the answer is sent
// once more on a new one (the webhook-id is the same, so a service can drop a duplicate).
import type { Socket, SocketHandler } from "bun";
import { type Cancel, type Cancellable, cancelledError } from "./cancel.ts";
import { type HttpAnswer, AnswerReader } from "./http-answer.ts";

/** Where requests go: built once per pinned URL (address.ts), shared by every request to it. */
export interface HttpTarget {
  /** The pool's key: address, port, scheme and TLS name. */
  key: string;
  /** The checked IP address (no brackets). */
  address: string;
  port: number;
  /** https: the name the certificate is verified against and sent as SNI (the address itself for an IP-literal URL); null for http. */
  tls: { serverName?: string } | null;
  /** "POST <path> HTTP/1.1\r\nhost: <URL's host>\r\n". */
  head: string;
}

export interface HttpClientOptions {
  /** Certificates trusted besides Bun's CA store: tests' own CA. */
  ca?: string;
  /** Idle connections kept per target at most. */
  maxIdle?: number;
  /** How long an idle connection may wait for its next request. */
  idleMs?: number;
}

export interface HttpClient {
  /** POSTs `body` with `headers` to `target`; the answer's body past `limit` bytes is not read (body null). Rejects on a network error or when `cancel` is cancelled. */
  post(target: HttpTarget, headers: Record<string, string>, body: string, cancel: Cancel, limit: number): Promise<HttpAnswer>;
  /** Closes every idle connection (the service stops). */
  close(): void;
}

export const IDLE_MS = 3_000;
export const MAX_IDLE_PER_TARGET = 256;
/** A header value we write: visible ASCII and spaces only, so no value can end the line or the head. */
const HEADER_VALUE = /^[\t\x20-\x7e]*$/;

function networkError(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

/** One request's wait: settled once, by its answer, an error, or its cancel (no closure per request). */
class Exchange implements Cancellable {
  readonly settled = Promise.withResolvers<HttpAnswer>();
  connection: Connection | undefined;
  retried = false;
  constructor(
    readonly target: HttpTarget,
    readonly request: string,
    readonly bytes: number,
    readonly cancel: Cancel,
    readonly limit: number,
  ) {}

  finish(answer: HttpAnswer | Error): void {
    if (this.cancel.waiting === this) this.cancel.waiting = null;
    if (answer instanceof Error) this.settled.reject(answer);
    else this.settled.resolve(answer);
  }

  cancelled(): void {
    const connection = this.connection;
    if (connection?.exchange === this) {
      connection.exchange = undefined;
      connection.destroy();
    }
    this.finish(cancelledError());
  }
}

class Connection {
  socket: Socket<Connection> | undefined;
  exchange: Exchange | undefined;
  readonly reader = new AnswerReader();
  reused = false;
  idle = false;
  /** When it was last put back to wait (performance.now()). */
  idleSince = 0;
  closed = false;
  private unsent: Buffer | undefined;
  constructor(
    readonly pool: Pool,
    readonly target: HttpTarget,
  ) {}

  start(exchange: Exchange): void {
    this.exchange = exchange;
    exchange.connection = this;
    this.reader.reset(exchange.limit);
  }

  /** Connected (and for https, the certificate accepted): the request goes out, in one write when the socket takes it all. */
  send(): void {
    const exchange = this.exchange;
    const socket = this.socket;
    if (exchange === undefined || socket === undefined) return;
    const written = socket.write(exchange.request);
    if (written < exchange.bytes) this.unsent = Buffer.from(exchange.request).subarray(Math.max(0, written));
  }

  flush(): void {
    if (this.unsent === undefined || this.socket === undefined) return;
    const written = this.socket.write(this.unsent);
    this.unsent = written < this.unsent.length ? this.unsent.subarray(Math.max(0, written)) : undefined;
  }

  received(chunk: Buffer): void {
    const exchange = this.exchange;
    if (exchange === undefined) {
      this.destroy(); // bytes nobody asked for: the stream cannot be trusted
      return;
    }
    let answer: HttpAnswer | undefined;
    try {
      answer = this.reader.push(chunk);
    } catch (error) {
      this.fail(error as Error);
      return;
    }
    if (answer === undefined) return;
    this.exchange = undefined;
    if (answer.reusable && answer.body !== null && this.unsent === undefined) this.pool.release(this);
    else this.destroy();
    exchange.finish(answer);
  }

  /** The server closed the connection: an answer that runs to the end is complete; otherwise an error, or one retry. */
  ended(): void {
    const exchange = this.exchange;
    this.exchange = undefined;
    this.destroy();
    if (exchange === undefined) return;
    try {
      exchange.finish(this.reader.closed());
    } catch (error) {
      this.retryOrFail(exchange, error as Error);
    }
  }

  fail(error: Error): void {
    const exchange = this.exchange;
    this.exchange = undefined;
    this.destroy();
    if (exchange !== undefined) this.retryOrFail(exchange, error);
  }

  /** A reused connection the server had closed before any byte of the answer: the request goes once more, on a new one. */
  private retryOrFail(exchange: Exchange, error: Error): void {
    if (this.reused && !this.reader.received && !exchange.retried && !exchange.cancel.isCancelled) {
      exchange.retried = true;
      this.pool.open(exchange);
    } else exchange.finish(error);
  }

  destroy(): void {
    if (this.closed) return;
    this.closed = true;
    this.pool.forget(this);
    this.socket?.terminate();
  }
}

const handlers: SocketHandler<Connection> = {
  open(socket) {
    const connection = socket.data;
    connection.socket = socket;
    if (connection.closed) socket.terminate();
    else if (connection.target.tls === null) connection.send();
  },
  handshake(socket, success, authorizationError) {
    if (success) {
      socket.data.send();
      return;
    }
    const code = (authorizationError as { code?: string } | null)?.code ?? "ECERT";
    socket.data.fail(networkError(`certificate not accepted: ${authorizationError?.message ?? code}`, code));
  },
  data: (socket, chunk) => socket.data.received(chunk),
  drain: (socket) => socket.data.flush(),
  end: (socket) => socket.data.ended(),
  close: (socket) => socket.data.ended(),
  error: (socket, error) => socket.data.fail(error),
  connectError: (socket, error) => socket.data.fail(error),
  // Only idle connections have a timeout (a request's deadline is its cancel).
  timeout: (socket) => socket.data.destroy(),
};

class Pool {
  private readonly idle = new Map<string, Connection[]>();
  private readonly idleMs: number;
  constructor(private readonly options: HttpClientOptions) {
    this.idleMs = options.idleMs ?? IDLE_MS;
  }

  /** An idle connection to the target, the most recently used first; one idle too long is closed instead. */
  take(target: HttpTarget): Connection | undefined {
    const connections = this.idle.get(target.key);
    if (connections === undefined) return undefined;
    const now = performance.now();
    for (let connection = connections.pop(); connection !== undefined; connection = connections.pop()) {
      connection.idle = false;
      if (now - connection.idleSince < this.idleMs) {
        connection.socket?.timeout(0);
        return connection;
      }
      connection.destroy();
    }
    return undefined;
  }

  release(connection: Connection): void {
    const connections = this.idle.get(connection.target.key) ?? [];
    if (connections.length >= (this.options.maxIdle ?? MAX_IDLE_PER_TARGET)) {
      connection.destroy();
      return;
    }
    this.idle.set(connection.target.key, connections);
    connection.reused = true;
    connection.idle = true;
    connection.idleSince = performance.now();
    connection.socket?.timeout(Math.ceil(this.idleMs / 1000));
    connections.push(connection);
  }

  forget(connection: Connection): void {
    if (!connection.idle) return;
    connection.idle = false;
    const connections = this.idle.get(connection.target.key);
    const index = connections?.indexOf(connection) ?? -1;
    if (index >= 0) connections!.splice(index, 1);
  }

  /** A new connection for `exchange`; the request goes out once it is open (https: once the certificate is accepted). */
  open(exchange: Exchange): void {
    const connection = new Connection(this, exchange.target);
    connection.start(exchange);
    const { address, port, tls } = exchange.target;
    Bun.connect({ hostname: address, port, tls: tls === null ? undefined : { ...tls, ca: this.options.ca }, socket: handlers, data: connection }).catch(
      (error: Error) => connection.fail(error),
    );
  }

  closeAll(): void {
    for (const connections of this.idle.values()) for (const connection of [...connections]) connection.destroy();
    this.idle.clear();
  }
}

export function createHttpClient(options: HttpClientOptions = {}): HttpClient {
  const pool = new Pool(options);
  return {
    post(target, headers, body, cancel, limit) {
      if (cancel.isCancelled) return Promise.reject(cancelledError());
      let head = target.head;
      for (const name in headers) {
        const value = headers[name]!;
        if (!HEADER_VALUE.test(value)) return Promise.reject(new TypeError(`header ${name} has a character a header cannot carry`));
        head += `${name}: ${value}\r\n`;
      }
      const bodyBytes = Buffer.byteLength(body);
      head += `content-length: ${bodyBytes}\r\n\r\n`;
      const exchange = new Exchange(target, head + body, head.length + bodyBytes, cancel, limit);
      cancel.waiting = exchange;
      const connection = pool.take(target);
      if (connection === undefined) pool.open(exchange);
      else {
        connection.start(exchange);
        connection.send();
      }
      return exchange.settled.promise;
    },
    close: () => pool.closeAll(),
  };
}
