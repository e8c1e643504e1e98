// bench:steady's reading of /metrics: its CPU per lead and its drain's end count the accepted leads.
import { expect, test } from "bun:test";
import { countersRead } from "../../bench/steady-sample.ts";
import { createMetrics } from "../../src/metrics/index.ts";

test("the accepted leads are counted over every vendor's series, with the decisions and attempts", () => {
  const metrics = createMetrics();
  metrics.intake.inc({ vendor: "vendor-a", outcome: "accepted" }, 3);
  metrics.intake.inc({ vendor: "vendor-b", outcome: "accepted" }, 2);
  metrics.intake.inc({ vendor: "vendor-b", outcome: "invalid" });
  metrics.finalResults.inc({ status: "accepted" }, 3);
  metrics.finalResults.inc({ status: "rejected" });
  metrics.callbackAttempts.inc({ result: "retry" }, 2);
  const page = Object.values(metrics)
    .map((metric) => metric.render())
    .join("\n\n");
  expect(countersRead(page)).toEqual({ accepted: 5, decided: 4, attempts: { delivered: 0, retry: 2, dead: 0, lease_lost: 0 } });
});
