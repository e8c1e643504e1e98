// The throwaway PostgreSQL cluster the tests start; it lives in scripts/ because the benchmark
// (bench/pg.ts) starts one too.
export * from "../../scripts/pg-cluster.ts";
