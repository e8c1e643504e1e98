// The not_asked mark's cost (bench/README.md, SQLite's decisions): `bun bench/decision-marks.ts`. A/B in alternating rounds,
// one process: SQLite's batched record of 1,024 decisions, without and with the finding, CPU per record.
import { NOT_ASKED_FINDING } from "../src/certificates/index.ts";
import { openDatabase } from "../src/db/client.ts";
import { createGroupCommitter } from "../src/db/group-commit.ts";
import { runNow } from "../src/db/script.ts";
import { sqliteWorkerBatches } from "../src/store/batches/sqlite.ts";
import { sqliteTables } from "../src/store/sqlite.ts";
import { pendingLead, vendorRow } from "../test/helpers/tables.ts";

const N = 1024;
const handle = openDatabase(":memory:");
const t = sqliteTables(handle.db);
t.vendors.insert(vendorRow("v"));
const commit = createGroupCommitter(handle.sqlite);
const batches = sqliteWorkerBatches(handle.sqlite, commit).decisions;
let phone = 0;
const times: Record<string, number[]> = { none: [], marked: [] };
for (let round = 0; round < 40; round++) {
  for (const kind of round % 2 ? ["marked", "none"] : ["none", "marked"]) {
    const ids = Array.from({ length: N }, () =>
      runNow(
        pendingLead(t, {
          vendorId: "v",
          phoneE164: `+1212${String(++phone).padStart(7, "0")}`,
          createdAt: 0,
          decideAfter: 1,
          certificateUrl: "https://cert.trustedform.com/x",
        }),
      ),
    );
    const due = await batches.readDue!(10, N);
    const facts = await batches.checksOf(due);
    const records = due.map((lead) => ({
      lead,
      factsVersion: facts.get(lead.id)!.version,
      status: "accepted" as const,
      reason: null,
      payload: "{}",
      finding: kind === "marked" ? NOT_ASKED_FINDING : null,
    }));
    const before = process.cpuUsage();
    const done = await batches.record(records, "x", 10);
    const used = process.cpuUsage(before);
    if (done.size !== N || ids.length !== N) throw new Error("not all recorded");
    if (round >= 4) times[kind]!.push((used.user + used.system) / 1000);
  }
}
const median = (xs: number[]) => xs.sort((a, b) => a - b)[xs.length >> 1]!;
console.log(
  `record of ${N}: CPU ms median none ${median(times.none!).toFixed(2)}, marked ${median(times.marked!).toFixed(2)}, ratio ${(median(times.marked!) / median(times.none!)).toFixed(2)}`,
);
