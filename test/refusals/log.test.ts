// The refusal log's writer (src/refusals/log.ts): rows of postLead's 400s and 422s are buffered and
// written together in one store write; a failing write is logged and dropped, never thrown at the
// request that was refused; the row keeps the phone masked and the reasons without echoed values.
import { expect, test } from "bun:test";
import { createLogger } from "../../src/log/index.ts";
import { createRefusalLog } from "../../src/refusals/log.ts";
import type { Store, Tables } from "../../src/store/index.ts";
import type { Refusal } from "../../src/store/refusals/index.ts";

/** A store whose refusals table collects each insert's rows (or fails every write). */
function fakeStore(fail = false): { store: Store; inserts: Refusal[][] } {
  const inserts: Refusal[][] = [];
  const tables = { refusals: { insert: (rows: readonly Refusal[]) => void inserts.push([...rows]) } } as unknown as Tables;
  const store = {
    write: async (script: (t: Tables) => Generator) => {
      if (fail) throw new Error("disk I/O error");
      script(tables).next();
    },
    read: () => {
      throw new Error("not read");
    },
  } as unknown as Store;
  return { store, inserts };
}

const note = (phone: string) => ({
  vendorId: "v1",
  errors: [`Invalid Phone Number: ${phone}`, "Missing Field: email"],
  refusal: { campaign: "spring", phone, refusedBy: [] },
});

test("refusals of postLead are written together in one insert; other routes and statuses are not", async () => {
  const { store, inserts } = fakeStore();
  const log = createRefusalLog({ store, log: createLogger("silent"), clock: () => 1_000, flushMs: 60_000 });
  log.record("/v1/postLead", 400, "r1", note("(212) 555-0123"));
  log.record("/v1/postLead", 422, "r2", { vendorId: "v1", errors: ["Rejected by rule: x"] });
  log.record("/v1/postLead", 200, "r3", {});
  log.record("/v1/prePing", 422, "r4", { vendorId: "v1", errors: ["x"] });
  log.record("/v1/postLead", 503, "r5", { vendorId: "v1", errors: ["x"] });
  await log.stop();
  expect(inserts.map((rows) => rows.map((row) => row.requestId))).toEqual([["r1", "r2"]]);
  expect(inserts[0]![0]).toEqual({
    at: 1_000,
    vendorId: "v1",
    campaign: "spring",
    phoneMasked: "+1******0123",
    status: 400,
    reasons: JSON.stringify(["Invalid Phone Number: …", "Missing Field: email"]),
    requestId: "r1",
    refusedBy: "[]",
  });
});

test("a failed write is logged and dropped: recording never throws, flushing never rejects", async () => {
  const lines: string[] = [];
  const { store } = fakeStore(true);
  const log = createRefusalLog({ store, log: createLogger("warn", (line) => lines.push(line)), flushMs: 1 });
  expect(() => log.record("/v1/postLead", 400, "r1", note("(212) 555-0123"))).not.toThrow();
  await Bun.sleep(20);
  await log.flush();
  expect(lines.map((line) => JSON.parse(line).event)).toEqual(["refusal_log_write_failed"]);
  expect(lines.join("")).not.toContain("555-0123");
  await log.stop();
});
