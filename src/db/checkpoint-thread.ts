// The checkpointer's thread (see checkpointer.ts): each "checkpoint" request runs one PASSIVE
// checkpoint of the database file it names, on this thread's own connection. Under
// synchronous=NORMAL SQLite fsyncs the WAL before copying it and the database file after, all
// here, off the event loop. "close" closes the connection, before the thread is terminated.
import { Database } from "bun:sqlite";
import type { ThreadReply, ThreadRequest } from "./checkpointer.ts";

declare const self: Worker;

let connection: Database | null = null;

function open(path: string): Database {
  const sqlite = new Database(path, { readwrite: true, create: false, strict: true });
  // PASSIVE never waits for readers or writers; a checkpoint lock held by another process is
  // reported as busy, and the next pass tries again.
  sqlite.run("PRAGMA busy_timeout = 0");
  sqlite.run("PRAGMA synchronous = NORMAL");
  return sqlite;
}

function answer(request: ThreadRequest): ThreadReply {
  if (request.kind === "close") {
    connection?.close();
    connection = null;
    return { id: request.id, ok: true, result: null };
  }
  connection ??= open(request.path);
  const result = connection.query("PRAGMA wal_checkpoint(PASSIVE)").get() as { busy: number; log: number; checkpointed: number };
  return { id: request.id, ok: true, result };
}

self.onmessage = ({ data }: MessageEvent<ThreadRequest>) => {
  let reply: ThreadReply;
  try {
    reply = answer(data);
  } catch (error) {
    reply = { id: data.id, ok: false, error: error instanceof Error ? error.message : String(error) };
  }
  self.postMessage(reply);
};
