// The findings table on both databases (store/findings/): which leads the certificate job asks
// about, the claim that keeps two askers (instances on one PostgreSQL database) from asking at once
// and runs out after a crash, answers stored only while open, and evidence stored only for a lead
// still pending, bumping its facts version so a decision read before it is not recorded.
import { expect, test } from "bun:test";
import { findingAnswer, TRUSTEDFORM_FINDING } from "../../src/certificates/stored.ts";
import { storeFinding } from "../../src/hold/asking.ts";
import { evidenceFromAnswer } from "../../src/certificates/index.ts";
import { describeOnBothBackends } from "../helpers/store-backends.ts";
import { leadFields, vendorRow } from "../helpers/tables.ts";
import type { StoreBackend } from "../helpers/store-backends.ts";

const KEY = TRUSTEDFORM_FINDING;
const NOW = Date.UTC(2026, 0, 1);
const HOLD = 60_000;
const CERT = "https://cert.trustedform.com/0123456789abcdef0123456789abcdef01234567";
const VERIFIED = evidenceFromAnswer({
  kind: "http",
  status: 200,
  truncated: false,
  body: JSON.stringify({ outcome: "success", match_lead: { result: { success: true, phone_match: true } } }),
});
const DOWN = evidenceFromAnswer({ kind: "http", status: 503, truncated: false, body: "" });

describeOnBothBackends("findings", (backend: StoreBackend) => {
  async function lead(
    certificateUrl: string | null,
    decideAfter = NOW + HOLD,
    phone = `+1212555${String(Math.floor(Math.random() * 10_000)).padStart(4, "0")}`,
  ): Promise<string> {
    const id = Bun.randomUUIDv7();
    await backend.tables.vendors.insert(vendorRow("vendor-a"));
    await backend.tables.leads.insertPending(
      { ...leadFields(phone), certificateUrl },
      { id, vendorId: "vendor-a", rawRequest: "{}", createdAt: NOW, decideAfter },
    );
    return id;
  }
  const askable = async () => (await backend.tables.findings.askableByCertificate(KEY, "https://cert.trustedform.com/", NOW, 10)).map((l) => l.id);
  const version = async (id: string) => Number((await backend.rows("SELECT facts_version FROM leads WHERE id = $1", id))[0]!.facts_version);

  test("askable: pending leads with a TrustedForm URL (any case) during their hold, not the others", async () => {
    const tf = await lead(CERT);
    const upper = await lead(CERT.replace("https://cert.trustedform.com", "HTTPS://Cert.TrustedForm.com"));
    await lead("https://example.com/cert");
    await lead(null);
    await lead(CERT, NOW); // its hold is over: decided by what is stored
    expect((await askable()).sort()).toEqual([tf, upper].sort());
    const [first] = await backend.tables.findings.askableByCertificate(KEY, "https://cert.trustedform.com/", NOW, 10);
    expect(first).toMatchObject({ vendorName: "vendor-a", certificateUrl: expect.any(String), email: expect.any(String) });
  });

  test("a claim holds until its lease runs out; then it is claimed again, its attempts counted", async () => {
    const id = await lead(CERT);
    expect(await backend.tables.findings.claim(KEY, [id], NOW, NOW + 5_000)).toEqual([{ leadId: id, attempts: 1 }]);
    expect(await askable()).toEqual([]);
    // A second asker (another instance) gets nothing while the lease holds.
    expect(await backend.tables.findings.claim(KEY, [id], NOW + 1_000, NOW + 6_000)).toEqual([]);
    // The asker died: the lease runs out and the lead is askable and claimed again.
    expect(await backend.tables.findings.askableByCertificate(KEY, "https://cert.trustedform.com/", NOW + 5_000, 10)).toHaveLength(1);
    expect(await backend.tables.findings.claim(KEY, [id], NOW + 5_000, NOW + 10_000)).toEqual([{ leadId: id, attempts: 2 }]);
  });

  test("an unreachable answer is asked again when due; a settled one is never overwritten nor asked again", async () => {
    const id = await lead(CERT);
    await backend.tables.findings.claim(KEY, [id], NOW, NOW + 5_000);
    expect(await backend.store.write((t) => storeFinding(t, TRUSTEDFORM_FINDING, id, findingAnswer(DOWN, NOW + 100, NOW + 600)))).toBe(true);
    expect(await backend.tables.findings.askableByCertificate(KEY, "https://cert.trustedform.com/", NOW + 599, 10)).toHaveLength(0);
    expect(await backend.tables.findings.askableByCertificate(KEY, "https://cert.trustedform.com/", NOW + 600, 10)).toHaveLength(1);
    await backend.tables.findings.claim(KEY, [id], NOW + 600, NOW + 5_600);
    expect(await backend.store.write((t) => storeFinding(t, TRUSTEDFORM_FINDING, id, findingAnswer(VERIFIED, NOW + 700, NOW + 700)))).toBe(true);
    // A late answer from a slower asker does not replace the settled one.
    expect(await backend.store.write((t) => storeFinding(t, TRUSTEDFORM_FINDING, id, findingAnswer(DOWN, NOW + 800, NOW + 900)))).toBe(false);
    expect(await backend.tables.findings.of([id])).toMatchObject([{ outcome: "verified", attempts: 2, checkedAt: NOW + 700 }]);
    expect(await backend.tables.findings.askableByCertificate(KEY, "https://cert.trustedform.com/", NOW + 10_000, 10)).toHaveLength(0);
  });

  test("evidence is stored for a pending lead only, bumping its facts version", async () => {
    const id = await lead(CERT);
    await backend.tables.findings.claim(KEY, [id], NOW, NOW + 5_000);
    const before = await version(id);
    await backend.store.write((t) => storeFinding(t, TRUSTEDFORM_FINDING, id, findingAnswer(DOWN, NOW + 100, NOW + 600)));
    expect(await version(id)).toBe(before + 1);
    await backend.rows("UPDATE leads SET status = 'accepted' WHERE id = $1", id);
    expect(await backend.store.write((t) => storeFinding(t, TRUSTEDFORM_FINDING, id, findingAnswer(VERIFIED, NOW + 700, NOW + 700)))).toBe(false);
    expect(await backend.tables.findings.of([id])).toMatchObject([{ outcome: "unreachable" }]);
  });

  test("settleUnasked records a settled answer without a request, and never over an existing finding", async () => {
    const id = await lead(CERT);
    const answer = { outcome: "not_verified", reason: "not a valid TrustedForm certificate URL", detail: null, raw: null, checkedAt: NOW, nextAt: NOW };
    await backend.tables.findings.settleUnasked(KEY, id, answer);
    await backend.tables.findings.settleUnasked(KEY, id, { ...answer, reason: "other" });
    expect(await backend.tables.findings.of([id], "certificate")).toMatchObject([{ outcome: "not_verified", reason: answer.reason, attempts: 0 }]);
    expect(await backend.tables.findings.of([id], "check")).toEqual([]);
  });
});
