// Logs two lines through the default (buffered) writer, flushes the first only when argv[2] is
// "flush", then kills itself with SIGKILL before any later turn of the event loop could write.
import { createLogger } from "../../../src/log/index.ts";

const log = createLogger("info");
log.info("flushed", { n: 1 });
if (process.argv[2] === "flush") await log.flush();
log.info("buffered", { n: 2 });
process.kill(process.pid, "SIGKILL");
