// Counters in the Prometheus text format. Hand-written because we need only labelled counters
// and scrape-time gauges, about forty lines; prom-client would bring a histogram engine and
// default Node collectors we would not use.

type Labels = Record<string, string>;

export class Counter<L extends string> {
  private readonly values = new Map<string, number>();
  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelNames: readonly L[],
  ) {}

  inc(labels: Record<L, string | number>, by = 1): void {
    const key = this.labelNames.map((l) => `${l}="${escapeLabel(String(labels[l]))}"`).join(",");
    this.values.set(key, (this.values.get(key) ?? 0) + by);
  }

  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} counter`];
    for (const [key, value] of this.values) lines.push(`${this.name}{${key}} ${value}`);
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
  const labels = gauge.labels ? `{${Object.entries(gauge.labels).map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(",")}}` : "";
  return [`# HELP ${gauge.name} ${gauge.help}`, `# TYPE ${gauge.name} gauge`, `${gauge.name}${labels} ${gauge.value}`].join("\n");
}

function escapeLabel(value: string): string {
  return value.replaceAll("\\", "\\\\").replaceAll('"', '\\"').replaceAll("\n", "\\n");
}
