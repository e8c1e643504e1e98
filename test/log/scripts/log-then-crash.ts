// Logs through the default (buffered) writer, then ends the way argv[2] says, before any later
// turn of the event loop could flush: the lines must come out anyway.
import { createLogger } from "../../../src/log/index.ts";

const log = createLogger("info");
log.info("first", { n: 1 });
log.info("second", { n: 2 });
if (process.argv[2] === "throw") throw new Error("crash after logging");
if (process.argv[2] === "exit") process.exit(3);
