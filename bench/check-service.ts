// The stand-in check service of bench/checks.ts and bench/check-client.ts, as cheap as a service can
// be (it shares the machine with what is measured, and is not what is measured): a raw HTTP/1.1
// keep-alive server on Bun.listen that writes one prebuilt `pass` answer `answerMs` after each
// request, except to a path starting /hang, never answered (until the client gives up).
import type { TCPSocketListener } from "bun";

export function startCheckService(answerMs: number): TCPSocketListener<{ buffered: string }> {
  const body = JSON.stringify({ outcome: "pass", reason: "clean" });
  const answer = Buffer.from(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`);
  return Bun.listen<{ buffered: string }>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open: (socket) => void (socket.data = { buffered: "" }),
      data(socket, chunk) {
        let buffered = socket.data.buffered + chunk.toString("latin1");
        for (let end = buffered.indexOf("\r\n\r\n"); end >= 0; end = buffered.indexOf("\r\n\r\n")) {
          const length = Number(/content-length: *(\d+)/i.exec(buffered.slice(0, end))?.[1] ?? 0);
          if (buffered.length < end + 4 + length) break;
          const hangs = buffered.startsWith("POST /hang");
          buffered = buffered.slice(end + 4 + length);
          if (!hangs) setTimeout(() => socket.write(answer), answerMs);
        }
        socket.data.buffered = buffered;
      },
    },
  });
}
