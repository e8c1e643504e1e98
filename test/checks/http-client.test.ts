// The checks' HTTP client (src/checks/http-client.ts) against raw servers on 127.0.0.1 (Bun.listen,
// so each test decides every byte and when the connection ends): the request as written, keep-alive
// reuse, split and chunked answers, a server closing, the timeout destroying the connection, a
// hanging server, a refused connection, non-2xx answers, the size bound, and https with the
// certificate verified against the URL's name.
import { afterEach, describe, expect, test } from "bun:test";
import type { Socket, TCPSocketListener } from "bun";
import { httpTarget } from "../../src/checks/address.ts";
import { createHttpClient, type HttpTarget } from "../../src/checks/http-client.ts";
import { CALLBACK_TEST_CERT, CALLBACK_TEST_KEY } from "../callbacks/tls-fixture.ts";
import { cancelAfter, never } from "./fixtures.ts";

interface Peer {
  /** The connection's number, from 1, in the order the server accepted them. */
  id: number;
  buffered: string;
  /** Requests read on this connection. */
  requests: number;
}
type Reply = (socket: Socket<Peer>, request: string) => void;

const servers: TCPSocketListener<Peer>[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.stop(true);
});

/** A server that calls `reply` with each whole request (our client always sends a Content-Length); it counts connections and closes. */
function serve(reply: Reply, tls?: { key: string; cert: string }) {
  const seen = { connections: 0, closed: 0, requests: [] as string[] };
  const server = Bun.listen<Peer>({
    hostname: "127.0.0.1",
    port: 0,
    tls,
    socket: {
      open(socket) {
        socket.data = { id: ++seen.connections, buffered: "", requests: 0 };
      },
      data(socket, chunk) {
        socket.data.buffered += chunk.toString("latin1");
        for (;;) {
          const end = socket.data.buffered.indexOf("\r\n\r\n");
          if (end < 0) return;
          const length = Number(/\r\ncontent-length: (\d+)/.exec(socket.data.buffered.slice(0, end))?.[1] ?? 0);
          if (socket.data.buffered.length < end + 4 + length) return;
          const request = socket.data.buffered.slice(0, end + 4 + length);
          socket.data.buffered = socket.data.buffered.slice(end + 4 + length);
          socket.data.requests++;
          seen.requests.push(request);
          reply(socket, request);
        }
      },
      close() {
        seen.closed++;
      },
    },
  });
  servers.push(server);
  return { port: server.port, seen };
}

const ok = (body: string, extra = "") =>
  `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`;
const PASS = '{"outcome":"pass"}';
const target = (port: number, scheme = "http", name = "check.test"): HttpTarget =>
  httpTarget(new URL(`${scheme}://127.0.0.1:${port}/v1/check?key=a%20b`), `${name}:${port}`, scheme === "https" ? name : undefined);
const HEADERS = { "content-type": "application/json", "webhook-id": "chk_1" };

describe("the exchange", () => {
  test("one write: the request line and Host of the URL, our headers, the body's length and the body; the answer's status and body", async () => {
    const { port, seen } = serve((socket) => socket.write(ok(PASS)));
    const answer = await createHttpClient().post(target(port), HEADERS, '{"phone":"+1 café"}', never(), 1024);
    expect(answer).toEqual({ status: 200, body: PASS, reusable: true });
    const sent = `POST /v1/check?key=a%20b HTTP/1.1\r\nhost: check.test:${port}\r\ncontent-type: application/json\r\nwebhook-id: chk_1\r\ncontent-length: 20\r\n\r\n{"phone":"+1 café"}`;
    expect(seen.requests).toEqual([Buffer.from(sent).toString("latin1")]);
  });

  test("keep-alive: requests one after another share a connection; at once, each has its own, all reused after", async () => {
    const { port, seen } = serve((socket) => setTimeout(() => socket.write(ok(PASS)), 5));
    const client = createHttpClient();
    for (let i = 0; i < 3; i++) expect((await client.post(target(port), HEADERS, "{}", never(), 1024)).status).toBe(200);
    expect(seen.connections).toBe(1);
    await Promise.all(Array.from({ length: 4 }, () => client.post(target(port), HEADERS, "{}", never(), 1024)));
    await Promise.all(Array.from({ length: 4 }, () => client.post(target(port), HEADERS, "{}", never(), 1024)));
    expect(seen.connections).toBe(4);
    expect(seen.requests).toHaveLength(11);
  });

  test("an answer in pieces: headers split, then the body chunked over several writes", async () => {
    const { port } = serve(async (socket) => {
      for (const piece of ["HTTP/1.1 200 OK\r\ntransfer-enc", "oding: chunked\r\n\r\n", "5\r\n", '{"out', "\r\n", 'd\r\ncome":"pass"}\r\n0\r\n\r\n']) {
        socket.write(piece);
        await Bun.sleep(3);
      }
    });
    const client = createHttpClient();
    expect(await client.post(target(port), HEADERS, "{}", never(), 1024)).toEqual({ status: 200, body: PASS, reusable: true });
  });

  test("non-2xx answers are answers (a redirect is not followed), and their connection is reused", async () => {
    const { port, seen } = serve((socket, request) =>
      socket.write(
        request.includes("first")
          ? "HTTP/1.1 302 Found\r\nlocation: http://10.0.0.1/\r\ncontent-length: 0\r\n\r\n"
          : "HTTP/1.1 503 Busy\r\ncontent-length: 4\r\n\r\nbusy",
      ),
    );
    const client = createHttpClient();
    expect(await client.post(target(port), HEADERS, "first", never(), 1024)).toMatchObject({ status: 302, body: "" });
    expect(await client.post(target(port), HEADERS, "second", never(), 1024)).toMatchObject({ status: 503, body: "busy" });
    expect(seen.connections).toBe(1);
  });

  test("an answer larger than the limit comes back without its body, and its connection is closed", async () => {
    const { port, seen } = serve((socket) => socket.write(ok("x".repeat(2000))));
    const client = createHttpClient();
    expect(await client.post(target(port), HEADERS, "{}", never(), 1024)).toEqual({ status: 200, body: null, reusable: false });
    await Bun.sleep(20);
    expect(seen.closed).toBe(1);
  });

  test("a header value that could end its line is refused before anything is sent", async () => {
    const { port, seen } = serve((socket) => socket.write(ok(PASS)));
    await expect(createHttpClient().post(target(port), { "x-a": "1\r\nx-b: 2" }, "{}", never(), 1024)).rejects.toThrow("header x-a");
    expect(seen.connections).toBe(0);
  });
});

describe("connections that end", () => {
  test("an answer with Connection: close, or one that runs to the end: its connection is not reused", async () => {
    const { port, seen } = serve((socket, request) => {
      if (request.includes("close")) socket.write(ok(PASS, "connection: close\r\n"));
      else {
        socket.write(`HTTP/1.1 200 OK\r\n\r\n${PASS}`);
        socket.end();
      }
    });
    const client = createHttpClient();
    expect(await client.post(target(port), HEADERS, "close", never(), 1024)).toMatchObject({ body: PASS, reusable: false });
    expect(await client.post(target(port), HEADERS, "to the end", never(), 1024)).toMatchObject({ body: PASS, reusable: false });
    expect(await client.post(target(port), HEADERS, "close", never(), 1024)).toMatchObject({ body: PASS });
    expect(seen.connections).toBe(3);
  });

  test("a kept connection the server closed on receiving the next request: sent once more on a new one", async () => {
    const { port, seen } = serve((socket) => (socket.data.requests === 2 ? socket.end() : socket.write(ok(PASS))));
    const client = createHttpClient();
    await client.post(target(port), HEADERS, "{}", never(), 1024);
    expect(await client.post(target(port), HEADERS, "{}", never(), 1024)).toMatchObject({ status: 200, body: PASS });
    expect(seen.connections).toBe(2);
    expect(seen.requests).toHaveLength(3);
  });

  test("a new connection closed before its answer is an error, not retried", async () => {
    const { port, seen } = serve((socket) => socket.end());
    await expect(createHttpClient().post(target(port), HEADERS, "{}", never(), 1024)).rejects.toThrow("connection closed before the answer was complete");
    await Bun.sleep(50);
    expect(seen.requests).toHaveLength(1);
  });

  test("a hanging server: the cancel ends the wait at once and destroys the connection; the next request opens another", async () => {
    const { port, seen } = serve((socket, request) => {
      if (!request.includes("hang")) socket.write(ok(PASS));
    });
    const client = createHttpClient();
    await client.post(target(port), HEADERS, "{}", never(), 1024);
    const started = performance.now();
    const waited = client.post(target(port), HEADERS, "hang", cancelAfter(50), 1024);
    await expect(waited).rejects.toMatchObject({ code: "ABORT_ERR" });
    expect(performance.now() - started).toBeLessThan(1_000);
    await Bun.sleep(20);
    expect(seen.closed).toBe(1);
    expect(await client.post(target(port), HEADERS, "{}", never(), 1024)).toMatchObject({ status: 200 });
    expect(seen.connections).toBe(2);
  });

  test("a connection refused is an error with its code", async () => {
    const { port } = serve(() => {});
    servers.pop()?.stop(true);
    await expect(createHttpClient().post(target(port), HEADERS, "{}", never(), 1024)).rejects.toMatchObject({ code: "ECONNREFUSED" });
  });

  test("a connection idle for idleMs is closed rather than reused; close() closes the idle ones", async () => {
    const { port, seen } = serve((socket) => socket.write(ok(PASS)));
    const client = createHttpClient({ idleMs: 100 });
    await client.post(target(port), HEADERS, "{}", never(), 1024);
    await Bun.sleep(150);
    await client.post(target(port), HEADERS, "{}", never(), 1024);
    expect(seen.connections).toBe(2);
    await Bun.sleep(20);
    expect(seen.closed).toBe(1);
    client.close();
    await Bun.sleep(20);
    expect(seen.closed).toBe(2);
  });
});

describe("https", () => {
  const tls = { key: CALLBACK_TEST_KEY, cert: CALLBACK_TEST_CERT };

  test("the certificate is verified against the URL's name, sent as SNI; the request goes once it is accepted", async () => {
    const { port, seen } = serve((socket) => socket.write(ok(PASS)), tls);
    const client = createHttpClient({ ca: CALLBACK_TEST_CERT });
    expect(await client.post(target(port, "https", "callback.test"), HEADERS, "{}", never(), 1024)).toMatchObject({ status: 200, body: PASS });
    expect(await client.post(target(port, "https", "callback.test"), HEADERS, "{}", never(), 1024)).toMatchObject({ status: 200 });
    expect(seen.connections).toBe(1);
    expect(seen.requests[0]).toStartWith(`POST /v1/check?key=a%20b HTTP/1.1\r\nhost: callback.test:${port}\r\n`);
  });

  test("a certificate for another name, or one no trusted CA signed, is refused before any request", async () => {
    const { port, seen } = serve((socket) => socket.write(ok(PASS)), tls);
    const trusting = createHttpClient({ ca: CALLBACK_TEST_CERT });
    await expect(trusting.post(target(port, "https", "other.test"), HEADERS, "{}", never(), 1024)).rejects.toMatchObject({
      code: "ERR_TLS_CERT_ALTNAME_INVALID",
    });
    await expect(createHttpClient().post(target(port, "https", "callback.test"), HEADERS, "{}", never(), 1024)).rejects.toThrow("certificate not accepted");
    await Bun.sleep(50);
    expect(seen.requests).toHaveLength(0);
  });
});
