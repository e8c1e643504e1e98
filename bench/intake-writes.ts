// `bun bench/intake-writes.ts [ROUNDS=3] [LEADS=60000] [REPO_DIR...]`: an accepted lead's SQLite
// writes alone, as the group committer runs them, in each checkout (default this one) in turns: per
// lead the phone claim, the lead's insert and its held callback (the checkout's own store); per 20
// leads one transaction (synchronous=NORMAL, as the server's connection, without the fsync, which a
// pool thread does); a PASSIVE checkpoint every 1,000 leads (the server's cadence, here on the same
// thread). A fresh database each run, a random number per lead. Prints the CPU per lead
// (process.cpuUsage: the statements, COMMIT and the checkpoint) and the WAL frames written per lead,
// each round, then the median per checkout. Less noisy on a shared machine than a server under
// load: no HTTP, no scheduling between threads (bench/README.md, issue 30 goal 1).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { validLead, validLeadTemplate, PHONE_SLOT } from "./bodies.ts";

const rounds = Number(process.argv[2] ?? 3);
const leads = Number(process.argv[3] ?? 60_000);
const repos = process.argv.length > 4 ? process.argv.slice(4).map((dir) => resolve(dir)) : [resolve(import.meta.dir, "..")];
const BATCH = 20;
const CHECKPOINT_EVERY = 1_000;

if (Bun.env.INTAKE_WRITES_REPO) {
  console.log(JSON.stringify(await measure(Bun.env.INTAKE_WRITES_REPO)));
  process.exit(0);
}

const results = new Map<string, number[]>(repos.map((repo) => [repo, []]));
for (let round = 1; round <= rounds; round++) {
  // Alternate which checkout goes first, so that a machine getting busier favours neither.
  for (const repo of round % 2 === 1 ? repos : [...repos].reverse()) {
    const run = Bun.spawnSync([process.execPath, import.meta.path, String(rounds), String(leads)], { env: { ...Bun.env, INTAKE_WRITES_REPO: repo } });
    const { micros, frames } = JSON.parse(run.stdout.toString()) as { micros: number; frames: number };
    results.get(repo)!.push(micros);
    console.log(`round ${round} ${repo}: ${micros.toFixed(1)} µs CPU per lead, ${frames.toFixed(2)} WAL frames per lead`);
  }
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
for (const [repo, values] of results) console.log(`median ${repo}: ${median(values).toFixed(1)} µs per lead`);

/** One run in this process, with `repo`'s store: CPU µs per lead and WAL frames per lead. */
async function measure(repo: string): Promise<{ micros: number; frames: number }> {
  const { openDatabase } = await import(join(repo, "src/db/client.ts"));
  const { sqliteTables } = await import(join(repo, "src/store/sqlite.ts"));
  const { validateLead } = await import(join(repo, "src/intake/validate.ts"));
  const dir = mkdtempSync(join(tmpdir(), "intake-writes-"));
  const handle = openDatabase(join(dir, "bench.db"));
  const sqlite = handle.sqlite;
  sqlite.run("PRAGMA synchronous = NORMAL");
  sqlite.run("PRAGMA wal_autocheckpoint = 0");
  sqlite.run("INSERT INTO vendors (id, name, password_hash, signing_secret, created_at, updated_at) VALUES ('v1', 'bench', 'x', 'whsec_x', 0, 0)");
  const t = sqliteTables(handle.db);
  const checked = validateLead(validLead("2125550123"), { allowPrivateCallbacks: false });
  const [before, after] = validLeadTemplate.split(PHONE_SLOT) as [string, string];
  let frames = 0;
  const started = process.cpuUsage();
  for (let i = 0; i < leads; i += BATCH) {
    sqlite.run("BEGIN IMMEDIATE");
    for (let j = 0; j < BATCH; j++) {
      const digits = String(2_000_000_000 + Math.floor(Math.random() * 7_999_999_999));
      const phone = `+1${digits}`;
      const id = Bun.randomUUIDv7();
      const now = Date.now();
      if (!t.phoneClaims.claim(phone, id, now, now - 86_400_000)) continue;
      t.leads.insertPending(
        { ...checked.value, phoneE164: phone },
        { id, vendorId: "v1", rawRequest: before + digits + after, createdAt: now, decideAfter: now + 3_600_000 },
      );
      t.callbacks.hold({ id: `msg_${id}`, leadId: id, vendorId: "v1", url: checked.value.callBackUrl }, now);
    }
    sqlite.run("COMMIT");
    if ((i + BATCH) % CHECKPOINT_EVERY === 0) frames += (sqlite.query("PRAGMA wal_checkpoint(PASSIVE)").get() as { log: number }).log;
  }
  const used = process.cpuUsage(started);
  handle.close();
  rmSync(dir, { recursive: true });
  return { micros: (used.user + used.system) / leads, frames: frames / leads };
}
