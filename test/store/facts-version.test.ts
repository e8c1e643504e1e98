// A lead's facts version (leads.facts_version), on both backends: the one value a batched decision
// is fenced by (store/batches/). Every change of what the decision reads moves it: an operator's
// decision, the lead's number listed or unlisted (whoever writes the list: a trigger); nothing else
// does, and a decided lead's stays as it was.
import { expect, test } from "bun:test";
import { runAwaiting } from "../../src/db/script.ts";
import { describeOnBothBackends } from "../helpers/store-backends.ts";
import { pendingLead, vendorRow } from "../helpers/tables.ts";

const VENDOR = vendorRow("vendor-a");
const PHONE = "+12125551234";
const OTHER = "+13125550000";

describeOnBothBackends("facts version", (backend) => {
  const versionOf = async (id: string) => (await backend.rows("SELECT facts_version FROM leads WHERE id = $1", id))[0]?.facts_version;
  const lead = (phone: string) => runAwaiting(pendingLead(backend.tables, { vendorId: VENDOR.id, phoneE164: phone }));

  test("an operator's decision and the number listed or unlisted each move a pending lead's version; another number's change does not", async () => {
    const t = backend.tables;
    await t.vendors.insert(VENDOR);
    const [mine, other] = [await lead(PHONE), await lead(OTHER)];
    expect([await versionOf(mine), await versionOf(other)]).toEqual([0, 0]);
    await t.leads.recordOperatorDecision(mine, "accept", null);
    expect(await versionOf(mine)).toBe(1);
    await t.suppressions.add({ phoneE164: PHONE, reason: null, createdAt: 0 });
    expect(await versionOf(mine)).toBe(2);
    await t.suppressions.add({ phoneE164: PHONE, reason: "again", createdAt: 1 }); // already listed: no change
    expect(await versionOf(mine)).toBe(2);
    await t.suppressions.remove(PHONE);
    expect(await versionOf(mine)).toBe(3);
    expect(await versionOf(other)).toBe(0);
  });

  test("a decided lead's version stays: only a pending lead's decision reads the facts", async () => {
    const t = backend.tables;
    await t.vendors.insert(VENDOR);
    const decided = await lead(PHONE);
    const [due] = await t.leads.claimDue(Date.now() + 7_200_000, 1, 30_000, "token");
    expect(await t.leads.finish(due!.id, "token", "accepted", null, Date.now())).toBe(true);
    await t.suppressions.add({ phoneE164: PHONE, reason: null, createdAt: 0 });
    expect(await versionOf(decided)).toBe(0);
  });
});
