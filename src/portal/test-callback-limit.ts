// How often a vendor may have the portal send a test callback (integration-page.ts): the URL is the
// vendor's to choose, so without a limit a session (or a stolen one) would make this server send
// signed POSTs to a third party as fast as it can submit the form, each holding a connection up to
// the callback timeout. Per vendor: one in flight at a time (a set of vendors; the lanes of
// auth/check-lanes.ts queue and share slots, neither wanted here), and a budget of `count` at once
// that comes back evenly over `windowMs` (a token bucket, auth/rate-limit.ts: 10 and 1 min allow 10
// at once, then one every 6 s). A person testing an endpoint needs a few; a flood gets 429. In
// memory, in the portal's thread: per instance (docs/portal.md says why that is enough). A vendor
// that stops testing is forgotten: from the set when its send ends, its bucket once full again.
import { createRateLimiter } from "../auth/rate-limit.ts";

export interface TestCallbackBudget {
  count: number;
  windowMs: number;
}

/** Sent (with what `send` answered), or refused: the budget is spent for `waitSeconds`, or one is in flight. */
export type LimitedSend<T> = { sent: T } | { refused: "budget"; waitSeconds: number } | { refused: "in flight" };

export interface TestCallbackLimit {
  /** Runs `send` for `vendor` when its budget has one and none of its test callbacks is in flight. */
  send<T>(vendor: string, send: () => Promise<T>): Promise<LimitedSend<T>>;
  /** Entries held in memory: sends in flight, and budgets not yet full again. */
  size(): number;
}

export function createTestCallbackLimit(budget: TestCallbackBudget, clock: () => number): TestCallbackLimit {
  const budgets = createRateLimiter({ burst: budget.count, perSecond: (budget.count * 1000) / budget.windowMs }, clock);
  const inFlight = new Set<string>();

  return {
    async send(vendor, send) {
      const waitSeconds = budgets.waitSeconds(vendor);
      if (waitSeconds > 0) return { refused: "budget", waitSeconds };
      // Admitted or refused before any await: of two submits together, one is sent.
      if (inFlight.has(vendor)) return { refused: "in flight" };
      inFlight.add(vendor);
      budgets.take(vendor);
      try {
        return { sent: await send() };
      } finally {
        inFlight.delete(vendor);
      }
    },
    size: () => inFlight.size + budgets.size(),
  };
}
