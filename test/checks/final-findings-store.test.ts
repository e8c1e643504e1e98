// Which leads a final-stage check asks about (store/findings askableInScope), on both databases:
// pending leads in their hold, in the check's scope (vendors by name, campaigns ignoring case), with
// no settled answer of that check; an error answer is asked again when due, a pass or fail never.
import { expect, test } from "bun:test";
import { checksInScope, compileCheck } from "../../src/checks/entry.ts";
import { checkFinding, findingAnswerOf, scopeForDatabase } from "../../src/checks/stored.ts";
import { describeOnBothBackends, type StoreBackend } from "../helpers/store-backends.ts";
import { leadFields, vendorRow } from "../helpers/tables.ts";

const NOW = Date.UTC(2026, 0, 1);
const HOLD = 60_000;
const DNC = compileCheck({ name: "dnc", stage: "final", url: "https://dnc.example.com/", vendors: ["vendor-a"], campaigns: ["Solar-Q4"] });
const KEY = checkFinding("dnc");
/** Scoped by campaigns JavaScript folds beyond ASCII (SQLite's lower() does not; PostgreSQL's by its locale). */
const SCRUB = compileCheck({ name: "scrub", stage: "final", url: "https://scrub.example.com/", campaigns: ["été-solar", "kelvin"] });

describeOnBothBackends("final-stage check findings", (backend: StoreBackend) => {
  let phones = 0;
  async function lead(vendorId: string, campaign: string, decideAfter = NOW + HOLD): Promise<string> {
    const id = Bun.randomUUIDv7();
    await backend.tables.vendors.insert(vendorRow(vendorId));
    const fields = { ...leadFields(`+1212555${String(++phones).padStart(4, "0")}`), vendorCampaignName: campaign };
    await backend.tables.leads.insertPending(fields, { id, vendorId, rawRequest: "{}", createdAt: NOW, decideAfter });
    return id;
  }
  const askable = async (at = NOW) => (await backend.tables.findings.askableInScope(KEY, scopeForDatabase(DNC), at, 10)).map((l) => l.id);
  const answer = (outcome: "pass" | "error", at: number, nextAt: number) =>
    findingAnswerOf(
      { check: DNC, answer: outcome === "pass" ? { outcome, reason: "ok" } : { outcome, error: "HTTP 500" }, source: "request", durationMs: 1 },
      at,
      nextAt,
    );

  test("in scope (the campaign ignoring case), pending and in the hold; with the fields a check sends", async () => {
    const inScope = await lead("vendor-a", "solar-q4");
    await lead("vendor-a", "other");
    await lead("vendor-b", "Solar-Q4");
    await lead("vendor-a", "Solar-Q4", NOW); // its hold is over
    expect(await askable()).toEqual([inScope]);
    const [found] = await backend.tables.findings.askableInScope(KEY, scopeForDatabase(DNC), NOW, 10);
    expect(found).toMatchObject({
      vendorName: "vendor-a",
      decideAfter: NOW + HOLD,
      fields: { phoneE164: expect.stringMatching(/^\+1212555/), state: expect.any(String) },
    });
  });

  test("campaigns compare as the policy folds them, beyond ASCII: É as é, the Kelvin sign as k; another campaign is not asked", async () => {
    const accented = await lead("vendor-a", "ÉTÉ-Solar");
    const kelvin = await lead("vendor-b", "\u212Aelvin");
    await lead("vendor-a", "ete-solar");
    await lead("vendor-a", "Kelvin-2");
    const found = await backend.tables.findings.askableInScope(checkFinding("scrub"), scopeForDatabase(SCRUB), NOW, 10);
    expect(found.map((l) => l.id).sort()).toEqual([accented, kelvin].sort());
    // The leads the decision holds in scope (final-results/checks.ts), no more and no fewer.
    for (const l of found) expect(checksInScope([SCRUB], "final", l.vendorName, l.fields.vendorCampaignName)).toEqual([SCRUB]);
  });

  test("leads decided at the same time come soonest first, then by key, on every instance (claims lock rows in one order)", async () => {
    const [first, second, third] = [Bun.randomUUIDv7(), Bun.randomUUIDv7(), Bun.randomUUIDv7()];
    await backend.tables.vendors.insert(vendorRow("vendor-a"));
    for (const [id, decideAfter] of [
      [third, NOW + HOLD],
      [second, NOW + HOLD],
      [first, NOW + HOLD + 1],
    ] as const) {
      const fields = { ...leadFields(`+1212555${String(++phones).padStart(4, "0")}`), vendorCampaignName: "Solar-Q4" };
      await backend.tables.leads.insertPending(fields, { id, vendorId: "vendor-a", rawRequest: "{}", createdAt: NOW, decideAfter });
    }
    expect(await askable()).toEqual([second, third, first]);
  });

  test("an error is asked again when its next try is due; a pass is settled", async () => {
    const erred = await lead("vendor-a", "Solar-Q4");
    const passed = await lead("vendor-a", "Solar-Q4");
    expect(await backend.tables.findings.claim(KEY, [erred, passed], NOW, NOW + 1_000)).toHaveLength(2);
    expect(await askable()).toEqual([]);
    await backend.tables.findings.answer(KEY, erred, answer("error", NOW + 10, NOW + 500));
    await backend.tables.findings.answer(KEY, passed, answer("pass", NOW + 10, NOW + 10));
    expect(await askable(NOW + 499)).toEqual([]);
    expect(await askable(NOW + 500)).toEqual([erred]);
    expect(await backend.tables.findings.claim(KEY, [erred], NOW + 500, NOW + 1_500)).toEqual([{ leadId: erred, attempts: 2 }]);
    const intake = await backend.tables.findings.intakeAnswersOf([erred]);
    expect(intake).toEqual([{ leadId: erred, checkAnswers: null }]);
  });
});
