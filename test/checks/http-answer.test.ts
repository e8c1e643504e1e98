// Reading one HTTP/1.1 answer from a connection's bytes (src/checks/http-answer.ts): every framing
// a check service may use, whatever the split of its bytes into reads; the bound on the body; when
// the connection may carry the next request; and what is refused.
import { describe, expect, test } from "bun:test";
import { AnswerReader, type HttpAnswer } from "../../src/checks/http-answer.ts";

/** Feeds `raw` in reads of `size` bytes (1: byte by byte); the answer, and whether it came with the last read. */
function read(raw: string, size: number, limit = 1024): { answer: HttpAnswer | undefined; atLast: boolean } {
  const reader = new AnswerReader();
  reader.reset(limit);
  const bytes = Buffer.from(raw);
  for (let at = 0; at < bytes.length; at += size) {
    const answer = reader.push(Buffer.from(bytes.subarray(at, at + size)));
    if (answer !== undefined) return { answer, atLast: at + size >= bytes.length };
  }
  return { answer: undefined, atLast: false };
}

const SPLITS = [1, 2, 3, 7, 64, 4096];
const BODY = '{"outcome":"fail","reason":"Caf\u00e9 litigator"}';
const LENGTH = Buffer.byteLength(BODY);

describe("framing, whatever the reads", () => {
  test.each(SPLITS)("Content-Length, in reads of %i bytes", (size) => {
    const raw = `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${LENGTH}\r\n\r\n${BODY}`;
    expect(read(raw, size)).toEqual({ answer: { status: 200, body: BODY, reusable: true }, atLast: true });
  });

  test.each(SPLITS)("chunked, with an extension and a trailer, in reads of %i bytes", (size) => {
    const [a, b] = [BODY.slice(0, 10), BODY.slice(10)];
    const raw = `HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n${Buffer.byteLength(a).toString(16)};x=1\r\n${a}\r\n${Buffer.byteLength(b).toString(16).toUpperCase()}\r\n${b}\r\n0\r\nX-Trailer: 1\r\n\r\n`;
    expect(read(raw, size)).toEqual({ answer: { status: 201, body: BODY, reusable: true }, atLast: true });
  });

  test("an informational 100 before the answer is skipped", () => {
    const raw = `HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}`;
    expect(read(raw, 5).answer).toEqual({ status: 200, body: "{}", reusable: true });
  });

  test("204 and 304 have no body; neither has a Content-Length of 0", () => {
    expect(read("HTTP/1.1 204 No Content\r\n\r\n", 3).answer).toEqual({ status: 204, body: "", reusable: true });
    expect(read("HTTP/1.1 500 Oops\r\ncontent-length: 0\r\n\r\n", 3).answer).toEqual({ status: 500, body: "", reusable: true });
  });

  test("without a length nor chunks, the body runs to the connection's end, and the connection is not reused", () => {
    const reader = new AnswerReader();
    reader.reset(1024);
    expect(reader.push(Buffer.from('HTTP/1.1 200 OK\r\n\r\n{"outcome":'))).toBeUndefined();
    expect(reader.push(Buffer.from('"pass"}'))).toBeUndefined();
    expect(reader.closed()).toEqual({ status: 200, body: '{"outcome":"pass"}', reusable: false });
  });

  test("a connection that ends before the answer is whole is an error", () => {
    const reader = new AnswerReader();
    reader.reset(1024);
    expect(reader.received).toBe(false);
    reader.push(Buffer.from("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n{}"));
    expect(reader.received).toBe(true);
    expect(() => reader.closed()).toThrow("connection closed before the answer was complete");
  });
});

describe("reuse", () => {
  test("Connection: close, HTTP/1.0 without keep-alive, and bytes past the answer each forbid reuse", () => {
    expect(read("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}", 4096).answer?.reusable).toBe(false);
    expect(read("HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\n{}", 4096).answer?.reusable).toBe(false);
    expect(read("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\n{}", 4096).answer?.reusable).toBe(true);
    expect(read("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}HTTP/1.1 200 OK", 4096).answer?.reusable).toBe(false);
    expect(read("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 2\r\n\r\n2\r\n{}\r\n0\r\n\r\n", 4096).answer).toEqual({
      status: 200,
      body: "{}",
      reusable: false,
    });
  });
});

describe("the bound on the body", () => {
  test("a declared length over the limit is answered at once, without its body", () => {
    expect(read("HTTP/1.1 200 OK\r\nContent-Length: 2000\r\n\r\n", 4096, 1024).answer).toEqual({ status: 200, body: null, reusable: false });
  });

  test("chunks past the limit stop the reading, as does a body to the end", () => {
    const chunk = `400\r\n${"x".repeat(1024)}\r\n`;
    const chunked = read(`HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${chunk}${chunk}`, 4096, 1500);
    expect(chunked.answer).toEqual({ status: 200, body: null, reusable: false });
    const toEnd = read(`HTTP/1.1 200 OK\r\n\r\n${"x".repeat(2000)}`, 500, 1500);
    expect(toEnd).toEqual({ answer: { status: 200, body: null, reusable: false }, atLast: false });
  });
});

describe("what is refused", () => {
  test.each([
    ["not HTTP", "SSH-2.0-OpenSSH\r\n\r\n", "not an HTTP/1.x answer"],
    ["a malformed length", "HTTP/1.1 200 OK\r\nContent-Length: 1e3\r\n\r\n", "malformed content-length"],
    ["two different lengths", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n", "content-length sent twice"],
    ["an unknown transfer coding", "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", "unsupported transfer-encoding"],
    ["a compressed body (none was asked for)", "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 2\r\n\r\n", "unrequested content-encoding gzip"],
    ["a malformed chunk size", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "malformed chunk size"],
    ["a chunk longer than it said", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}}\r\n", "malformed chunk end"],
    ["a protocol switch", "HTTP/1.1 101 Switching Protocols\r\n\r\n", "unexpected protocol switch"],
  ])("%s", (_name, raw, message) => {
    expect(() => read(raw, 4096)).toThrow(message);
  });

  test("headers that never end are refused past 16 KiB", () => {
    expect(() => read(`HTTP/1.1 200 OK\r\nX: ${"a".repeat(17_000)}`, 1000)).toThrow("answer's headers too large");
  });
});
