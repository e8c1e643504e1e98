// Asking during the hold (hold/asking.ts) with TrustedForm hanging, on both databases: two
// certificate jobs on one store stand for two instances on one PostgreSQL database. A pass claims
// only as many leads as it can ask now and returns without waiting for its requests, so no claim
// runs out while its lead waits in a queue: no certificate is asked twice at once, and a lead whose
// hold has ended is never sent.
import { expect, test } from "bun:test";
import { createCertificateJob } from "../../src/certificates/job.ts";
import { evidenceFromAnswer } from "../../src/certificates/index.ts";
import type { CertificateEvidence as Evidence } from "../../src/certificates/evidence.ts";
import { LEASE_MARGIN_MS } from "../../src/hold/asking.ts";
import { createLogger } from "../../src/log/index.ts";
import { describeOnBothBackends, type StoreBackend } from "../helpers/store-backends.ts";
import { leadFields, vendorRow } from "../helpers/tables.ts";

const NOW = Date.UTC(2026, 0, 1);
const TIMEOUT_MS = 1_000;
const LEASE_MS = TIMEOUT_MS + LEASE_MARGIN_MS;
const certificateUrl = (n: number) => `https://cert.trustedform.com/${String(n).padStart(40, "a")}`;
const down = evidenceFromAnswer({ kind: "http", status: 503, truncated: false, body: "" });

/** A pass, or "hangs" when it has not ended within 200 ms (main's passes waited for every request). */
const pass = (job: { runOnce(): Promise<number> }) => Promise.race([job.runOnce(), Bun.sleep(200).then(() => "hangs" as const)]);

describeOnBothBackends("asking with TrustedForm hanging", (backend: StoreBackend) => {
  test("two askers claim only what they can ask now: no certificate asked twice at once, none after its lead's hold", async () => {
    const clock = { now: NOW };
    // TrustedForm hanging: each request waits until the test lets it time out (unreachable).
    const hanging: { certificate: string; end: (evidence: Evidence) => void }[] = [];
    const sent: { certificate: string; at: number }[] = [];
    const inFlight = new Map<string, number>();
    let twice = 0;
    const job = () =>
      createCertificateJob({
        store: backend.store as never,
        clock: () => clock.now,
        log: createLogger("silent"),
        verify: (certificate) => {
          sent.push({ certificate, at: clock.now });
          inFlight.set(certificate, (inFlight.get(certificate) ?? 0) + 1);
          if (inFlight.get(certificate)! > 1) twice++;
          return new Promise<Evidence>((resolve) => hanging.push({ certificate, end: resolve })).finally(() =>
            inFlight.set(certificate, inFlight.get(certificate)! - 1),
          );
        },
        concurrency: 2,
        timeoutMs: TIMEOUT_MS,
        onAnswer: () => {},
      });
    const [first, second] = [job(), job()];
    await backend.tables.vendors.insert(vendorRow("vendor-a"));
    const decideAfter: Record<string, number> = {};
    for (let n = 0; n < 8; n++) {
      // Half the leads' holds end before the first requests time out and a lease has run out.
      const ends = NOW + (n < 4 ? 60_000 : LEASE_MS - 1);
      decideAfter[certificateUrl(n).slice(-40)] = ends;
      await backend.tables.leads.insertPending(
        { ...leadFields(`+1212555${String(n).padStart(4, "0")}`), certificateUrl: certificateUrl(n) },
        { id: Bun.randomUUIDv7(), vendorId: "vendor-a", rawRequest: "{}", createdAt: NOW, decideAfter: ends },
      );
    }
    // Each asker claims as many as it has room for, and its pass ends while TrustedForm hangs.
    expect(await pass(first)).toBe(2);
    expect(await pass(second)).toBe(2);
    expect(await pass(first)).toBe(0);
    expect((await backend.rows("SELECT lead_id FROM lead_findings")).length).toBe(4);
    // The requests time out after the leases of any lead claimed but not yet asked would have run out.
    for (let round = 0; round < 3; round++) {
      clock.now += LEASE_MS;
      for (const request of hanging.splice(0)) request.end(down);
      await Bun.sleep(20); // the answers stored
      await Promise.all([pass(first), pass(second)]);
    }
    expect(twice).toBe(0);
    expect(sent.filter(({ certificate, at }) => at >= decideAfter[certificate]!)).toEqual([]);
    for (const request of hanging.splice(0)) request.end(down);
    await Promise.all([first.stop(), second.stop()]);
  });
});
