// The bound on waiting for PostgreSQL (db/pg/bounded-waits.ts), on a real cluster and a pool of
// one connection kept busy: a query or a transaction that waits past the bound fails with
// DatabaseWaitTimeout, which the API answers 503, and none of its work is done, not even later
// when the connection frees.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { SQL } from "bun";
import { isDatabaseUnavailable } from "../../../src/backend/index.ts";
import { boundedWaits, DatabaseWaitTimeout } from "../../../src/db/pg/bounded-waits.ts";
import { startPgCluster, type PgCluster } from "../../helpers/pg-cluster.ts";

const BOUND_MS = 300;
let cluster: PgCluster;
let url: string;

beforeAll(async () => {
  cluster = await startPgCluster();
  url = await cluster.createDatabase();
  const admin = new SQL({ url, max: 1 });
  await admin`create table marks (label text)`;
  await admin.close();
});
afterAll(() => cluster?.stop());

async function marks(): Promise<string[]> {
  const reader = new SQL({ url, max: 1 });
  try {
    return (await reader`select label from marks order by label`).map((row: { label: string }) => row.label);
  } finally {
    await reader.close();
  }
}

/** A pool of one connection, busy for `busyMs` with a query of its own, and the same pool bounded. */
async function busyPool(busyMs: number) {
  const client = new SQL({ url, max: 1 });
  await client`select 1`;
  const busy = client.unsafe(`select pg_sleep(${busyMs / 1000})`);
  void busy.catch(() => {});
  await Bun.sleep(20);
  return { bounded: boundedWaits(client, BOUND_MS), busy, close: () => client.close() };
}

async function timed<T>(work: Promise<T>): Promise<{ error: unknown; ms: number }> {
  const since = performance.now();
  const error = await work.then(
    () => null,
    (failure: unknown) => failure,
  );
  return { error, ms: performance.now() - since };
}

test("a query waiting for a busy pool's connection fails within the bound, is answered as unavailable, and never runs", async () => {
  const pool = await busyPool(1_500);
  try {
    const { error, ms } = await timed(Promise.resolve(pool.bounded.unsafe("insert into marks values ('queued query')")));
    expect(error).toBeInstanceOf(DatabaseWaitTimeout);
    expect(isDatabaseUnavailable(error)).toBe(true);
    expect(ms).toBeGreaterThanOrEqual(BOUND_MS - 5);
    expect(ms).toBeLessThan(BOUND_MS + 700);
    await pool.busy;
    await Bun.sleep(100);
    expect(await marks()).not.toContain("queued query");
  } finally {
    await pool.close();
  }
});

test("a transaction that cannot begin within the bound fails, and rolls back before its first statement once the connection frees", async () => {
  const pool = await busyPool(1_500);
  let statements = 0;
  try {
    const { error, ms } = await timed(
      pool.bounded.begin(async (tx) => {
        statements++;
        await tx`insert into marks values ('queued transaction')`;
      }),
    );
    expect(error).toBeInstanceOf(DatabaseWaitTimeout);
    expect(ms).toBeLessThan(BOUND_MS + 700);
    await pool.busy;
    await Bun.sleep(200);
    expect(statements).toBe(0);
    expect(await marks()).not.toContain("queued transaction");
    // The pool is whole again: the next transaction commits.
    await pool.bounded.begin(async (tx) => tx`insert into marks values ('after')`);
    expect(await marks()).toContain("after");
  } finally {
    await pool.close();
  }
});

test("a query the server still runs at the bound is cancelled there: DatabaseWaitTimeout, and its write rolled back", async () => {
  const client = new SQL({ url, max: 1 });
  try {
    const bounded = boundedWaits(client, BOUND_MS);
    const { error, ms } = await timed(Promise.resolve(bounded.unsafe("insert into marks select 'slow insert' from pg_sleep(2)")));
    expect(error).toBeInstanceOf(DatabaseWaitTimeout);
    expect(ms).toBeLessThan(BOUND_MS + 1_000);
    expect(await marks()).not.toContain("slow insert");
  } finally {
    await client.close();
  }
});

test("within the bound, queries and transactions answer as Bun's own (values mode too)", async () => {
  const client = new SQL({ url, max: 2 });
  try {
    const bounded = boundedWaits(client, BOUND_MS);
    expect(await bounded.unsafe("select 1 as one")).toEqual([{ one: 1 }] as never);
    expect(await bounded.unsafe("select 1 as one, 2 as two").values()).toEqual([[1, 2]] as never);
    expect(await bounded.begin(async (tx) => (await tx`select 3 as three`)[0].three)).toBe(3);
  } finally {
    await client.close();
  }
});
