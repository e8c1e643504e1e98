// A bound on how long a caller waits for PostgreSQL. Bun SQL queues a query or a transaction for
// as long as its pool has no free connection (when other clients hold the server's slots, the pool
// cannot grow and requests wait behind whatever runs), and its own pool has no acquire timeout.
// The bound turns that wait into an error the API answers 503 (backend/index.ts
// isDatabaseUnavailable) without ever leaving behind work that still runs after the answer:
// - a query on the pool is cancelled: one Bun has not sent never runs (Bun 1.4 queues a query
//   while every connection is busy, it does not pipeline it behind another); one the server runs
//   is stopped (57014), its statement rolled back. Either is a DatabaseWaitTimeout;
// - a transaction that has not begun is abandoned: when a connection frees, its callback throws
//   before any statement and the transaction rolls back. Once begun it is not cut short (the
//   server's statement_timeout bounds its statements).
import type { SQL } from "bun";

/** PostgreSQL did not answer within the bound, and the work was cancelled: none of it was done. */
export class DatabaseWaitTimeout extends Error {
  readonly code = "ERR_POSTGRES_WAIT_TIMEOUT";
  constructor(ms: number) {
    super(`PostgreSQL did not answer within ${ms} ms (every pooled connection busy, the server out of connection slots, or a lock held)`);
  }
}

/** Cancelled by us: before Bun sent it (Bun's code), or by the server while it ran (57014). */
const wasCancelled = (error: unknown) => {
  const { code, errno } = error as { code?: unknown; errno?: unknown };
  return code === "ERR_POSTGRES_QUERY_CANCELLED" || errno === "57014";
};

const ABANDONED = new Error("transaction abandoned: it did not begin within the bound");

/**
 * `client` with its pool's queries (`unsafe`, which drizzle's bun-sql driver sends everything
 * through) and transactions (`begin`) bounded by `ms`; everything else (close, reserve) as it is.
 */
export function boundedWaits(client: SQL, ms: number): SQL {
  const unsafe = (query: string, params?: unknown[]) => {
    let asValues = false;
    const start = () => {
      const sent = client.unsafe(query, params);
      return cancelledAfter(asValues ? sent.values() : sent, ms);
    };
    // Lazy, as Bun's own query: drizzle may call .values() before awaiting it.
    let started: Promise<unknown> | undefined;
    const result = () => (started ??= start());
    const pending = {
      values() {
        asValues = true;
        return pending;
      },
      // biome-ignore lint/suspicious/noThenProperty: a query is awaited, as Bun's is
      then: <A, B>(onFulfilled?: (value: unknown) => A, onRejected?: (reason: unknown) => B) => result().then(onFulfilled, onRejected),
      catch: <B>(onRejected?: (reason: unknown) => B) => result().catch(onRejected),
      finally: (onFinally?: () => void) => result().finally(onFinally),
    };
    return pending;
  };
  const begin = (...args: unknown[]) => {
    const work = args.at(-1) as (tx: SQL) => Promise<unknown>;
    return begunWithin((guarded) => (client.begin as (...a: unknown[]) => Promise<unknown>)(...args.slice(0, -1), guarded), work, ms);
  };
  return new Proxy(client, {
    get(target, property, receiver) {
      if (property === "unsafe") return unsafe;
      if (property === "begin") return begin;
      const value = Reflect.get(target, property, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

function cancelledAfter<T>(query: Promise<T> & { cancel(): unknown }, ms: number): Promise<T> {
  let late = false;
  const timer = setTimeout(() => {
    late = true;
    query.cancel();
  }, ms);
  return query.then(
    (value) => {
      clearTimeout(timer);
      return value;
    },
    (error: unknown) => {
      clearTimeout(timer);
      throw late && wasCancelled(error) ? new DatabaseWaitTimeout(ms) : error;
    },
  );
}

function begunWithin<T>(begin: (guarded: (tx: SQL) => Promise<T>) => Promise<T>, work: (tx: SQL) => Promise<T>, ms: number): Promise<T> {
  let state: "waiting" | "begun" | "abandoned" = "waiting";
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      if (state !== "waiting") return;
      state = "abandoned";
      reject(new DatabaseWaitTimeout(ms));
    }, ms);
    begin(async (tx) => {
      if (state === "abandoned") throw ABANDONED;
      state = "begun";
      clearTimeout(timer);
      return work(tx);
    }).then(
      (value) => {
        clearTimeout(timer);
        if (state !== "abandoned") resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        if (state !== "abandoned") reject(error);
      },
    );
  });
}
