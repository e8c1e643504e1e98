import { describe, expect, test } from "bun:test";
import { routeLabel } from "../../src/metrics/index.ts";
import { Counter, renderGauge } from "../../src/metrics/registry.ts";

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

  test("a gauge renders its value", () => {
    expect(renderGauge({ name: "g", help: "G.", value: 1.5 })).toBe("# HELP g G.\n# TYPE g gauge\ng 1.5");
  });
});

test("routeLabel keeps label cardinality bounded", () => {
  expect(routeLabel("/v1/postLead")).toBe("/v1/postLead");
  expect(routeLabel("/v1/leads/0193a5c2-7b1e-7cc0-9a63-3f1d2e4b5a69")).toBe("/v1/leads/:lead_id");
  expect(routeLabel("/swagger/json")).toBe("/swagger");
  expect(routeLabel("/wp-admin/../../etc/passwd")).toBe("other");
});
