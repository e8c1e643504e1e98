// The console's counts (stats/tally.ts): kept in memory, added to outcome_counts by a flush at each
// resolution, adding up across flushes and across instances sharing a database, kept when a flush
// fails, pruned by age.
import { expect, test } from "bun:test";
import { createLogger } from "../../src/log/index.ts";
import type { Answering, Store } from "../../src/store/index.ts";
import { op } from "../../src/db/script.ts";
import { readOverview, readVendorVolumes } from "../../src/stats/series.ts";
import { createTally, RESOLUTIONS } from "../../src/stats/tally.ts";
import { describeOnBothBackends, type StoreBackend } from "../helpers/store-backends.ts";

const log = createLogger("silent");
const T0 = Date.UTC(2026, 10, 23, 12, 7, 30);
const tallyOn = (store: Store<Answering, Answering>, now = () => T0) => createTally({ store, log, clock: now, flushIntervalMs: 0 });

/** bucket_ms → kind → count, and kind → total_ms at the minute, for one vendor. */
async function stored(backend: StoreBackend, vendorId: string) {
  const rows = await backend.rows("SELECT bucket_ms, bucket_at, kind, count, total_ms FROM outcome_counts WHERE vendor_id = $1", vendorId);
  const counts: Record<number, Record<string, number>> = {};
  for (const row of rows) (counts[row.bucket_ms] ??= {})[row.kind] = Number(row.count);
  const minuteTotals = Object.fromEntries(rows.filter((row) => row.bucket_ms === 60_000).map((row) => [row.kind, Number(row.total_ms)]));
  return { counts, minuteTotals, rows };
}

describeOnBothBackends("the console's tally", (backend) => {
  test("a flush adds each kind's count and total at every resolution, in the bucket that holds the time", async () => {
    const tally = tallyOn(backend.store);
    for (let i = 0; i < 3; i++) tally.record("v1", "accepted");
    tally.record("v1", "invalid");
    tally.record("v1", "decided_accepted", 1_500);
    tally.record("v1", "decided_accepted", 2_500);
    await tally.flush();
    const { counts, minuteTotals, rows } = await stored(backend, "v1");
    for (const { bucketMs } of RESOLUTIONS) expect(counts[bucketMs]).toEqual({ accepted: 3, invalid: 1, decided_accepted: 2 });
    expect(minuteTotals.decided_accepted).toBe(4_000);
    expect(new Set(rows.map((row) => `${row.bucket_ms}:${Number(row.bucket_at)}`))).toEqual(
      new Set([`60000:${Date.UTC(2026, 10, 23, 12, 7)}`, `900000:${Date.UTC(2026, 10, 23, 12, 0)}`, `3600000:${Date.UTC(2026, 10, 23, 12, 0)}`]),
    );
  });

  test("flushes add to what is stored, and two instances flushing at once add up", async () => {
    const first = tallyOn(backend.store);
    const second = tallyOn(backend.store);
    first.record("v1", "accepted");
    await first.flush();
    for (let i = 0; i < 20; i++) {
      first.record("v1", "accepted");
      second.record("v1", "accepted");
      second.record("", "unauthorized");
    }
    await Promise.all([first.flush(), second.flush()]);
    expect((await stored(backend, "v1")).counts[3_600_000]).toEqual({ accepted: 41 });
    expect((await stored(backend, "")).counts[60_000]).toEqual({ unauthorized: 20 });
  });

  test("a flush that fails keeps its counts for the next one; nothing counted is added twice", async () => {
    let failures = 1;
    const failingOnce: Store<Answering, Answering> = {
      read: (script) => backend.store.read(script),
      write: (script, options) => (failures-- > 0 ? Promise.reject(new Error("database is locked")) : backend.store.write(script, options)),
    };
    const tally = tallyOn(failingOnce);
    tally.record("v1", "blocked");
    await tally.flush();
    expect((await stored(backend, "v1")).rows).toEqual([]);
    tally.record("v1", "blocked");
    await tally.flush();
    await tally.flush();
    expect((await stored(backend, "v1")).counts[60_000]).toEqual({ blocked: 2 });
  });

  test("a flush drops the buckets older than their resolution is read for", async () => {
    let now = T0;
    const tally = tallyOn(backend.store, () => now);
    tally.record("v1", "accepted");
    await tally.flush();
    now = T0 + 3 * 3_600_000;
    tally.record("v1", "accepted");
    await tally.flush();
    const { rows } = await stored(backend, "v1");
    const minuteBuckets = rows.filter((row) => row.bucket_ms === 60_000).map((row) => Number(row.bucket_at));
    expect(minuteBuckets).toEqual([now - (now % 60_000)]);
    expect(rows.filter((row) => row.bucket_ms === 3_600_000)).toHaveLength(2);
  });
});

describeOnBothBackends("the overview's reads of the tally", (backend) => {
  test("a window's buckets hold what was counted in them, by kind and vendor; the vendors' volumes sum the day and week", async () => {
    const vendor = { id: "v-1", name: "acme", passwordHash: "x", signingSecret: "whsec_x", enabled: true, createdAt: T0, updatedAt: T0 };
    await backend.store.write((t) => op(t.vendors.insert(vendor)));
    let now = T0 - 2 * 86_400_000;
    const tally = tallyOn(backend.store, () => now);
    tally.record("v-1", "accepted");
    await tally.flush();
    now = T0 - 10 * 60_000;
    tally.record("v-1", "accepted");
    tally.record("v-1", "decided_accepted", 3_000);
    tally.record("v-1", "decided_rejected", 1_000);
    tally.record("", "delivered", 40);
    await tally.flush();

    const hour = await backend.store.read((t) => readOverview(t, "hour", T0));
    const slot = hour.times.indexOf((now - (now % 60_000)) / 1000);
    expect([hour.times.length, slot]).toEqual([60, 49]);
    expect(hour.outcomes.find((series) => series.kind === "accepted")!.values[slot]).toBe(1);
    expect(hour.vendors.map((series) => [series.label, series.values[slot]])).toEqual([["acme", 1]]);
    expect([hour.decisionSeconds.values[slot], hour.decisionSeconds.mean, hour.callbackMs.mean]).toEqual([2, 2, 40]);
    expect(hour.totals).toMatchObject({ accepted: 1, decided_accepted: 1, decided_rejected: 1, delivered: 1, invalid: 0 });

    const [acme] = await backend.store.read((t) => readVendorVolumes(t, T0));
    expect(acme).toEqual({
      name: "acme",
      day: { accepted: 1, decided_accepted: 1, decided_rejected: 1 },
      week: { accepted: 2, decided_accepted: 1, decided_rejected: 1 },
    });
  });
});

test("stop flushes what is left", async () => {
  const written: unknown[] = [];
  const store = { read: () => Promise.reject(new Error("unused")), write: async () => void written.push(1) } as unknown as Store<Answering, Answering>;
  const tally = tallyOn(store);
  tally.record("v1", "accepted");
  await tally.stop();
  expect(written).toHaveLength(1);
});
