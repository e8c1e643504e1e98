// Counters and histograms in the Prometheus text format, and scrape-time gauges. Hand-written:
// labelled counters, fixed-bucket histograms and gauges are about a hundred lines; prom-client
// would bring default Node collectors we would not use and a label hashing per call on the hot
// path (one short string and one map lookup here).

export type Labels = Record<string, string>;

/** One series per set of label values; its rendered labels are built once, on first use. */
class LabelledSeries<L extends string, S> {
  /** In the order they were first used, for rendering. */
  readonly series: { labels: string; state: S }[] = [];
  /** The series by each label's value in turn (the last level's entries are the series' states). */
  private readonly byValue = new Map<string, unknown>();
  constructor(
    private readonly labelNames: readonly L[],
    private readonly fresh: () => S,
  ) {}

  // Called on every request, so the common case is one map lookup per label, with no string built
  // (a key joined from the values cost a string and its hashing per call). A number and its text
  // (200 and "200") are one series, as rendered.
  of(labels: Record<L, string | number>): S {
    let level = this.byValue;
    const last = this.labelNames.length - 1;
    for (let i = 0; i < last; i++) {
      const value = String(labels[this.labelNames[i]!]);
      let next = level.get(value) as Map<string, unknown> | undefined;
      if (!next) level.set(value, (next = new Map()));
      level = next;
    }
    const value = last < 0 ? "" : String(labels[this.labelNames[last]!]);
    let state = level.get(value) as S | undefined;
    if (state === undefined) {
      state = this.fresh();
      level.set(value, state);
      this.series.push({ labels: this.labelNames.map((l) => `${l}="${escapeLabel(String(labels[l]))}"`).join(","), state });
    }
    return state;
  }
}

export class Counter<L extends string> {
  private readonly values: LabelledSeries<L, { value: number }>;
  /** `present`: label sets shown at 0 from the start, so a rate over them exists before the first event. */
  constructor(
    readonly name: string,
    readonly help: string,
    labelNames: readonly L[],
    present: Record<L, string>[] = [],
  ) {
    this.values = new LabelledSeries(labelNames, () => ({ value: 0 }));
    for (const labels of present) this.show(labels);
  }

  /** Shows this label set (at 0 until counted). */
  show(labels: Record<L, string>): void {
    this.values.of(labels);
  }

  inc(labels: Record<L, string | number>, by = 1): void {
    this.values.of(labels).value += by;
  }

  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} counter`];
    for (const { labels, state } of this.values.series) lines.push(`${this.name}${braces(labels)} ${state.value}`);
    return lines.join("\n");
  }
}

export class Histogram<L extends string> {
  private readonly values: LabelledSeries<L, { counts: number[]; sum: number; count: number }>;
  /** `buckets`: upper bounds, ascending (+Inf is added); `present` as for Counter. */
  constructor(
    readonly name: string,
    readonly help: string,
    labelNames: readonly L[],
    private readonly buckets: readonly number[],
    present: Record<L, string>[] = [],
  ) {
    this.values = new LabelledSeries(labelNames, () => ({ counts: buckets.map(() => 0), sum: 0, count: 0 }));
    for (const labels of present) this.values.of(labels);
  }

  observe(labels: Record<L, string | number>, value: number): void {
    const series = this.values.of(labels);
    // A plain loop: observed on every request, where a findIndex callback is one closure more.
    for (let i = 0; i < this.buckets.length; i++) {
      if (value <= this.buckets[i]!) {
        series.counts[i]! += 1;
        break;
      }
    }
    series.sum += value;
    series.count += 1;
  }

  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`];
    for (const { labels, state } of this.values.series) {
      const prefix = labels === "" ? "" : `${labels},`;
      let cumulative = 0;
      this.buckets.forEach((bound, i) => {
        cumulative += state.counts[i]!;
        lines.push(`${this.name}_bucket{${prefix}le="${bound}"} ${cumulative}`);
      });
      lines.push(`${this.name}_bucket{${prefix}le="+Inf"} ${state.count}`);
      lines.push(`${this.name}_sum${braces(labels)} ${state.sum}`, `${this.name}_count${braces(labels)} ${state.count}`);
    }
    return lines.join("\n");
  }
}

const braces = (labels: string) => (labels === "" ? "" : `{${labels}}`);

export interface Gauge {
  name: string;
  help: string;
  value: number;
  labels?: Labels;
}

export function renderGauge(gauge: Gauge): string {
  const labels = gauge.labels
    ? `{${Object.entries(gauge.labels)
        .map(([k, v]) => `${k}="${escapeLabel(v)}"`)
        .join(",")}}`
    : "";
  return [`# HELP ${gauge.name} ${gauge.help}`, `# TYPE ${gauge.name} gauge`, `${gauge.name}${labels} ${gauge.value}`].join("\n");
}

/** One gauge with a series per label set (none at all: only its HELP and TYPE lines). */
export function renderGaugeSeries(name: string, help: string, series: { labels: Labels; value: number }[]): string {
  const lines = series.map(({ labels, value }) => renderGauge({ name, help, value, labels }).split("\n")[2]!);
  return [`# HELP ${name} ${help}`, `# TYPE ${name} gauge`, ...lines].join("\n");
}

function escapeLabel(value: string): string {
  return value.replaceAll("\\", "\\\\").replaceAll('"', '\\"').replaceAll("\n", "\\n");
}
