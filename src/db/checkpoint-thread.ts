// The checkpointer's thread (see checkpointer.ts): each message asks for one PASSIVE checkpoint of
// the database file it names, on this thread's own connection. Under synchronous=NORMAL SQLite
// fsyncs the WAL before copying it and the database file after, all here, off the event loop.
import { Database } from "bun:sqlite";
import type { PassReply } from "./checkpointer.ts";

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

self.onmessage = ({ data: path }: MessageEvent<string>) => {
  let reply: PassReply;
  try {
    connection ??= open(path);
    const result = connection.query("PRAGMA wal_checkpoint(PASSIVE)").get() as { busy: number; log: number; checkpointed: number };
    reply = { ok: true, result };
  } catch (error) {
    reply = { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
  self.postMessage(reply);
};
