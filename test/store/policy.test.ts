// The policy table (store/policy): one document per database and its version, on both databases.
import { expect, test } from "bun:test";
import { op } from "../../src/db/script.ts";
import { describeOnBothBackends } from "../helpers/store-backends.ts";

describeOnBothBackends("policy table", (backend) => {
  test("none imported: version 0 and no document; each replace stores the document and bumps the version", async () => {
    expect(await backend.store.read((t) => op(t.policy.version()))).toBe(0);
    expect(await backend.store.read((t) => op(t.policy.current()))).toBeNull();
    expect(await backend.store.write((t) => op(t.policy.replace('{"rules":[]}', 1_000, "cli:ann")))).toBe(1);
    expect(await backend.store.write((t) => op(t.policy.replace("{}", 2_000, "operator:bob")))).toBe(2);
    expect(await backend.store.read((t) => op(t.policy.version()))).toBe(2);
    expect(await backend.store.read((t) => op(t.policy.current()))).toEqual({ version: 2, document: "{}", updatedAt: 2_000, updatedBy: "operator:bob" });
    expect(await backend.rows("SELECT count(*) AS n FROM policy")).toEqual([{ n: 1 }]);
  });

  test("replaces at once each get a version of their own", async () => {
    const versions = await Promise.all(Array.from({ length: 5 }, (_, i) => backend.store.write((t) => op(t.policy.replace(`{"n":${i}}`, i, "cli:x")))));
    expect([...versions].sort()).toEqual([1, 2, 3, 4, 5]);
  });
});
