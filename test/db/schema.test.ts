import { expect, test } from "bun:test";
import { leadKey } from "../../src/db/schema.ts";

test("leadKey: the first 64 bits of a UUID as a signed integer, dashes skipped", () => {
  expect(leadKey("01a1ffab-621a-77eb-9d8e-8336b6a206ac")).toBe(0x01a1ffab621a77ebn);
  expect(leadKey("01A1FFAB-621A-77EB-9D8E-8336B6A206AC")).toBe(0x01a1ffab621a77ebn);
  expect(leadKey("f1a2b3c4-d5e6-7f80-9abc-def012345678")).toBe(BigInt.asIntN(64, 0xf1a2b3c4d5e67f80n));
  expect(leadKey("f1a2b3c4-d5e6-7f80-9abc-def012345678")).toBeLessThan(0n);
});

test("leadKey: anything not shaped like a UUID gets 0", () => {
  for (const id of [
    "",
    "lead-1",
    "01a1ffab621a77eb9d8e8336b6a206ac",
    "01a1ffab-621a-77eb-9d8e-8336b6a206a",
    "g1a1ffab-621a-77eb-9d8e-8336b6a206ac",
    " 01a1ffab-621a-77eb-9d8e-8336b6a206ac",
  ]) {
    expect(leadKey(id)).toBe(0n);
  }
});

test("leadKey: Bun's UUIDv7 ids, many within one millisecond, get distinct keys in the order they were made", () => {
  const keys = Array.from({ length: 20_000 }, () => leadKey(Bun.randomUUIDv7()));
  for (let i = 1; i < keys.length; i++) expect(keys[i]! > keys[i - 1]!).toBe(true);
});
