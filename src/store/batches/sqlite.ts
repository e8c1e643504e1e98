// The worker's decisions on SQLite, set-based as on PostgreSQL (pg.ts): a batch of due leads has
// its facts read with one statement and its decisions recorded in one write of two statements
// (the leads finished, their callbacks released; a rejected lead's status drops its phone claim:
// phone-claims/sqlite.ts), a third when a decision records a finding (findings/batch-sql.ts), instead of a read and a write script of their own per lead
// (bench/README.md has the figures). SQLite cannot write from a CTE, so the second statement takes
// the leads the first finished. Each statement is its table's (leads/, callbacks/ batch-sql.ts).
//
// The due leads are read, not leased (readDue): SQLite has one writer, so one process decides, and
// its decision loop runs one pass at a time. A lease was a write of every due lead's row answered
// after an fsync, a large share of the server's CPU (bench/README.md); what it guarded against, a
// second worker deciding the lead meanwhile, is ruled out by the status the decision is fenced by:
// a lead is finished once, whoever reads it.
import type { Database } from "bun:sqlite";
import { BACKGROUND, type GroupCommitter } from "../../db/group-commit.ts";
import { SQLITE as CALLBACKS } from "../callbacks/batch-sql.ts";
import { SQLITE as FINDINGS } from "../findings/batch-sql.ts";
import { SQLITE as LEADS, type FactsRow } from "../leads/batch-sql.ts";
import type { DueLead } from "../leads/index.ts";
import type { DecisionBatches, WorkerBatches } from "./index.ts";
import { decisionRow, factsOfRow, leadKeysJson } from "./rows.ts";

/** The worker's batches on SQLite: decisions (attempts are batched by group commit already). */
export function sqliteWorkerBatches(sqlite: Database, commit: GroupCommitter): WorkerBatches {
  const factsOf = sqlite.prepare<FactsRow, [string]>(LEADS.factsOf);
  const factsWithFieldsOf = sqlite.prepare<FactsRow, [string]>(LEADS.factsWithFieldsOf);
  const due = sqlite.prepare<DueLead, [number, number]>(LEADS.due);
  const finish = sqlite.prepare<{ id: string }, [string, number]>(LEADS.finish);
  const release = sqlite.prepare<unknown, [string, number]>(CALLBACKS.release);
  const settle = sqlite.prepare<unknown, [string, number]>(FINDINGS.settleFinished);

  const decisions: DecisionBatches = {
    readDue: async (now, limit) => commit.read(() => due.all(now, limit)),
    async checksOf(leads, withFields = false) {
      const rows = commit.read(() => (withFields ? factsWithFieldsOf : factsOf).all(leadKeysJson(leads)));
      return new Map(rows.map((row) => [row.id, factsOfRow(row, withFields)]));
    },
    record(decided, _token, now) {
      const rows = decided.map(decisionRow);
      return commit.run(() => {
        const finished = new Set(finish.all(JSON.stringify(rows), now).map((row) => row.id));
        const released = rows.filter((row) => finished.has(row.id));
        const json = JSON.stringify(released);
        release.run(json, now);
        if (released.some((row) => row.findingKind !== null)) settle.run(json, now);
        return finished;
      }, BACKGROUND);
    },
  };
  return { decisions };
}
