// Counters in the Prometheus text format. Hand-written because we need only labelled counters
// and scrape-time gauges, about forty lines; prom-client would bring a histogram engine and
// default Node collectors we would not use.

type Labels = Record<string, string>;

export class Counter<L extends string> {
  /** One entry per set of label values; the rendered labels are built once, on first use. */
  private readonly series = new Map<string, { labels: string; value: number }>();
  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelNames: readonly L[],
  ) {}

  // Called on every request, so the common case is one short string and one map lookup. Label
  // values are the service's own (routes folded by routeLabel, statuses, outcome names): no NULs.
  inc(labels: Record<L, string | number>, by = 1): void {
    let id = "";
    for (const name of this.labelNames) id += `${labels[name]}\u0000`;
    const series = this.series.get(id);
    if (series) series.value += by;
    else this.series.set(id, { labels: this.labelNames.map((l) => `${l}="${escapeLabel(String(labels[l]))}"`).join(","), value: by });
  }

  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} counter`];
    for (const { labels, value } of this.series.values()) lines.push(`${this.name}{${labels}} ${value}`);
    return lines.join("\n");
  }
}

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

function escapeLabel(value: string): string {
  return value.replaceAll("\\", "\\\\").replaceAll('"', '\\"').replaceAll("\n", "\\n");
}
