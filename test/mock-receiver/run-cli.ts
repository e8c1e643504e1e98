// Runs `mock-receiver` the way the product's CLI will, for cli.test.ts. exitCode rather than
// process.exit(): the process must end by itself, which proves stop() left no timer or socket behind.
import { mockReceiverCommand } from "../../src/cli/mock-receiver.ts";

process.exitCode = await mockReceiverCommand(process.argv.slice(2), (line) => console.log(line));
