// Requests written byte for byte over TCP, for what fetch() cannot send: no Host header, raw paths,
// malformed framing. The answer is read until the server closes the connection.
import { connect } from "node:net";

export interface RawAnswer {
  /** null when the server closed the connection without answering. */
  status: number | null;
  headers: Record<string, string>;
  body: string;
}

/** Writes `request` as is on a new connection to 127.0.0.1:`port` and reads until the server closes it. */
export function exchange(port: number, request: string | Uint8Array): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(port, "127.0.0.1", () => socket.write(request));
    socket.setTimeout(5_000, () => socket.destroy(new Error("no answer within 5 s")));
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("close", () => resolve(parseAnswer(Buffer.concat(chunks).toString("utf8"))));
  });
}

function parseAnswer(text: string): RawAnswer {
  if (text === "") return { status: null, headers: {}, body: "" };
  const [head = "", ...rest] = text.split("\r\n\r\n");
  const [statusLine = "", ...lines] = head.split("\r\n");
  const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()]));
  return { status: Number(statusLine.split(" ")[1]), headers, body: rest.join("\r\n\r\n") };
}

/** A request with Connection: close, and a Content-Length for a body that is not chunked. */
export function rawRequest(requestLine: string, headers: string[], body = ""): string {
  const framed = body === "" || headers.some((header) => /^(content-length|transfer-encoding):/i.test(header));
  const length = framed ? [] : [`Content-Length: ${Buffer.byteLength(body)}`];
  return [requestLine, ...headers, ...length, "Connection: close", "", body].join("\r\n");
}
