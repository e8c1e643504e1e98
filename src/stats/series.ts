// What the Overview and Vendors pages show, read from the rollup (outcome_counts) and the callback
// queue in one snapshot. A window reads one resolution's buckets (60, 96 or 168 of them), so the
// cost is bounded by buckets × vendors × kinds whatever the volume of leads.
import { op, type Script } from "../db/script.ts";
import type { Tables } from "../store/index.ts";
import type { OutcomeCount } from "../store/outcome-counts/index.ts";
import { CALLBACK_KINDS, DECISION_KINDS, INTAKE_KINDS, KIND_LABELS, type OutcomeKind } from "./kinds.ts";

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;

export const WINDOWS = {
  hour: { title: "Last hour", bucketMs: MINUTE_MS, buckets: 60 },
  day: { title: "Last day", bucketMs: 15 * MINUTE_MS, buckets: 96 },
  week: { title: "Last week", bucketMs: HOUR_MS, buckets: 168 },
} as const;
export type WindowName = keyof typeof WINDOWS;
export const windowNamed = (name: string | null): WindowName => (name !== null && name in WINDOWS ? (name as WindowName) : "hour");

export interface Series {
  kind: string;
  label: string;
  values: number[];
}

export interface Means {
  values: (number | null)[];
  mean: number | null;
}

export interface Overview {
  window: WindowName;
  bucketMs: number;
  /** Each bucket's start, in seconds (uPlot's x). */
  times: number[];
  /** postLead's answers, 401/429 and final results by bucket. */
  outcomes: Series[];
  /** New leads accepted by bucket, per vendor. */
  vendors: Series[];
  /** Mean seconds from intake to final result per bucket (null: none decided), and over the window. */
  decisionSeconds: Means;
  callbacks: Series[];
  /** Mean callback attempt duration in ms per bucket (null: no attempt), and over the window. */
  callbackMs: Means;
  /** The window's total of each kind. */
  totals: Record<OutcomeKind, number>;
  queue: { pending: number; due: number; oldestPendingSeconds: number | null; dead: number };
}

export function* readOverview(t: Tables, window: WindowName, now: number): Script<Overview> {
  const { bucketMs, buckets } = WINDOWS[window];
  const from = now - (now % bucketMs) - (buckets - 1) * bucketMs;
  const rows = yield* op(t.outcomeCounts.since(bucketMs, from));
  const names = yield* vendorNames(t);
  const queue = yield* op(t.callbacks.depth(now));
  const dead = yield* op(t.callbacks.countDead());
  const slot = (row: OutcomeCount) => Math.floor((row.bucketAt - from) / bucketMs);
  const sumOf = (pick: (row: OutcomeCount) => number, keep: (row: OutcomeCount) => boolean) => {
    const values = new Array<number>(buckets).fill(0);
    for (const row of rows) if (keep(row)) values[slot(row)]! += pick(row);
    return values;
  };
  const countsOf = (kind: string) =>
    sumOf(
      (row) => row.count,
      (row) => row.kind === kind,
    );
  const series = (kinds: readonly OutcomeKind[]) => kinds.map((kind) => ({ kind, label: KIND_LABELS[kind], values: countsOf(kind) }));
  const meanOf = (kinds: readonly string[], scale: number): Means => {
    const keep = (row: OutcomeCount) => kinds.includes(row.kind);
    const counts = sumOf((row) => row.count, keep);
    const totals = sumOf((row) => row.totalMs, keep);
    const [count, total] = [sum(counts), sum(totals)];
    return { values: totals.map((total, i) => (counts[i] === 0 ? null : total / counts[i]! / scale)), mean: count === 0 ? null : total / count / scale };
  };
  const vendorIds = [...new Set(rows.filter((row) => row.kind === "accepted").map((row) => row.vendorId))];
  const totals = Object.fromEntries([...INTAKE_KINDS, ...DECISION_KINDS, ...CALLBACK_KINDS].map((kind) => [kind, 0])) as Record<OutcomeKind, number>;
  for (const row of rows) if (row.kind in totals) totals[row.kind as OutcomeKind] += row.count;
  return {
    window,
    bucketMs,
    times: Array.from({ length: buckets }, (_, i) => (from + i * bucketMs) / 1000),
    outcomes: series([...INTAKE_KINDS, ...DECISION_KINDS]),
    vendors: vendorIds
      .map((id) => ({
        kind: id,
        label: names.get(id) ?? id,
        values: sumOf(
          (row) => row.count,
          (row) => row.vendorId === id && row.kind === "accepted",
        ),
      }))
      .sort((a, b) => a.label.localeCompare(b.label)),
    decisionSeconds: meanOf(DECISION_KINDS, 1000),
    callbacks: series(CALLBACK_KINDS),
    callbackMs: meanOf(CALLBACK_KINDS, 1),
    totals,
    queue: {
      pending: queue.pending,
      due: queue.due,
      oldestPendingSeconds: queue.oldestDecidedAt === null ? null : Math.max(0, (now - queue.oldestDecidedAt) / 1000),
      dead,
    },
  };
}

const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);

function* vendorNames(t: Tables): Script<Map<string, string>> {
  return new Map((yield* op(t.vendors.list())).map((vendor) => [vendor.id, vendor.name]));
}

export interface VendorVolume {
  name: string;
  /** The last day's and the last week's counts of each kind. */
  day: Record<string, number>;
  week: Record<string, number>;
}

/** Every vendor's counts over the last day and week (hourly buckets: the current hour included, so a day is 24-25 h). */
export function* readVendorVolumes(t: Tables, now: number): Script<VendorVolume[]> {
  const dayFrom = now - (now % HOUR_MS) - 24 * HOUR_MS;
  const rows = yield* op(t.outcomeCounts.since(HOUR_MS, dayFrom - 6 * 24 * HOUR_MS));
  const volumes = new Map<string, VendorVolume>();
  for (const [id, name] of yield* vendorNames(t)) volumes.set(id, { name, day: {}, week: {} });
  for (const row of rows) {
    const volume = volumes.get(row.vendorId);
    if (!volume) continue;
    volume.week[row.kind] = (volume.week[row.kind] ?? 0) + row.count;
    if (row.bucketAt >= dayFrom) volume.day[row.kind] = (volume.day[row.kind] ?? 0) + row.count;
  }
  return [...volumes.values()].sort((a, b) => a.name.localeCompare(b.name));
}
