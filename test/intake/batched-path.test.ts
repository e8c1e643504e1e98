// The one predicate that sends a lead to PostgreSQL's batched intake statement or to its per-lead
// script (intake/batched-path.ts): a lead whose number, or whose vendor's key, the batch already
// carries runs alone after the batch's commit.
import { expect, test } from "bun:test";
import { canTakeBatchedIntake, emptyBatchContext, joinBatch } from "../../src/intake/batched-path.ts";
import type { LeadToAccept } from "../../src/intake/service.ts";
import { leadFields } from "../helpers/tables.ts";

const leadToAccept = (phone: string, vendorId: string, key: string | null): LeadToAccept => ({
  fields: { ...leadFields(phone), extraData: null } as LeadToAccept["fields"],
  lead: { id: Bun.randomUUIDv7(), vendorId, rawRequest: "{}", createdAt: 0, decideAfter: 0 },
  callbackId: null,
  key: key === null ? null : { key, requestHash: "h" },
  caps: [],
  alone: () => {
    throw new Error("not run here");
  },
});

test("a lead joins the batch unless another lead of it carries its number or its vendor's key", () => {
  const context = emptyBatchContext();
  const first = leadToAccept("+12125550001", "vendor-a", "k1");
  expect(canTakeBatchedIntake(first, context)).toBe(true);
  joinBatch(first, context);
  expect(canTakeBatchedIntake(leadToAccept("+12125550001", "vendor-b", null), context)).toBe(false); // its number
  expect(canTakeBatchedIntake(leadToAccept("+12125550002", "vendor-a", "k1"), context)).toBe(false); // its key
  expect(canTakeBatchedIntake(leadToAccept("+12125550002", "vendor-b", "k1"), context)).toBe(true); // another vendor's key
  expect(canTakeBatchedIntake(leadToAccept("+12125550002", "vendor-a", null), context)).toBe(true);
});
