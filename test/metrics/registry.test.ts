import { describe, expect, test } from "bun:test";
import { routeLabel } from "../../src/metrics/index.ts";
import { Counter, Histogram, renderGauge, renderGaugeSeries } from "../../src/metrics/registry.ts";

describe("Prometheus text format", () => {
  test("a counter renders HELP, TYPE and one line per label set, summing increments", () => {
    const counter = new Counter("x_total", "Things.", ["route", "status"] as const);
    counter.inc({ route: "/a", status: 200 });
    counter.inc({ route: "/a", status: 200 }, 2);
    counter.inc({ route: "/b", status: 404 });
    expect(counter.render()).toBe('# HELP x_total Things.\n# TYPE x_total counter\nx_total{route="/a",status="200"} 3\nx_total{route="/b",status="404"} 1');
  });

  test("label values are escaped", () => {
    const counter = new Counter("y_total", "Y.", ["v"] as const);
    counter.inc({ v: 'a"b\\c\nd' });
    expect(counter.render()).toContain('y_total{v="a\\"b\\\\c\\nd"} 1');
  });

  test("a counter's declared label sets are there at 0 before the first event", () => {
    const counter = new Counter("z_total", "Z.", ["result"] as const, [{ result: "ok" }, { result: "failed" }]);
    counter.inc({ result: "failed" });
    expect(counter.render()).toBe('# HELP z_total Z.\n# TYPE z_total counter\nz_total{result="ok"} 0\nz_total{result="failed"} 1');
  });

  test("a histogram renders cumulative buckets up to +Inf, its sum and count, per label set", () => {
    const histogram = new Histogram("h_seconds", "H.", ["route"] as const, [0.1, 1]);
    for (const value of [0.05, 0.1, 0.5, 3]) histogram.observe({ route: "/a" }, value);
    expect(histogram.render().split("\n")).toEqual([
      "# HELP h_seconds H.",
      "# TYPE h_seconds histogram",
      'h_seconds_bucket{route="/a",le="0.1"} 2',
      'h_seconds_bucket{route="/a",le="1"} 3',
      'h_seconds_bucket{route="/a",le="+Inf"} 4',
      'h_seconds_sum{route="/a"} 3.65',
      'h_seconds_count{route="/a"} 4',
    ]);
  });

  test("a histogram without labels, declared present, renders at 0 without braces", () => {
    const histogram = new Histogram("d_seconds", "D.", [] as const, [1], [{}]);
    expect(histogram.render().split("\n").slice(2)).toEqual([
      'd_seconds_bucket{le="1"} 0',
      'd_seconds_bucket{le="+Inf"} 0',
      "d_seconds_sum 0",
      "d_seconds_count 0",
    ]);
  });

  test("a gauge renders its value", () => {
    expect(renderGauge({ name: "g", help: "G.", value: 1.5 })).toBe("# HELP g G.\n# TYPE g gauge\ng 1.5");
  });

  test("a gauge with a series per label set, escaped; with none, only its HELP and TYPE", () => {
    const series = [
      { labels: { cap: "daily" }, value: 3 },
      { labels: { cap: 'a"b' }, value: 0 },
    ];
    expect(renderGaugeSeries("c", "C.", series)).toBe('# HELP c C.\n# TYPE c gauge\nc{cap="daily"} 3\nc{cap="a\\"b"} 0');
    expect(renderGaugeSeries("c", "C.", [])).toBe("# HELP c C.\n# TYPE c gauge");
  });
});

test("routeLabel keeps label cardinality bounded", () => {
  expect(routeLabel("/v1/postLead")).toBe("/v1/postLead");
  expect(routeLabel("/v1/leads/0193a5c2-7b1e-7cc0-9a63-3f1d2e4b5a69")).toBe("/v1/leads/:lead_id");
  expect(routeLabel("/swagger/json")).toBe("/swagger");
  expect(routeLabel("/portal/leads/0193a5c2-7b1e-7cc0-9a63-3f1d2e4b5a69")).toBe("/portal");
  expect(routeLabel("/wp-admin/../../etc/passwd")).toBe("other");
});
