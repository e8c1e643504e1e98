// The audit log's reader of one subject's entries of one action in a window of time (a lead's
// decisions, for its page), on both backends.
import { expect, test } from "bun:test";
import { describeOnBothBackends } from "../helpers/store-backends.ts";

describeOnBothBackends("audit", (backend) => {
  test("about: the subject's entries of the action inside the window, oldest first; nothing else", async () => {
    const t = backend.tables;
    const entry = (at: number, subject: string, action: string, detail: string | null = null) => ({ at, actor: "operator:olivia", action, subject, detail });
    for (const row of [
      entry(2_000, "lead-1", "lead.decide", "reject: second"),
      entry(1_000, "lead-1", "lead.decide", "accept"),
      entry(1_500, "lead-2", "lead.decide", "accept"),
      entry(1_500, "lead-1", "callback.retry"),
      entry(500, "lead-1", "lead.decide", "before the window"),
      entry(3_500, "lead-1", "lead.decide", "after the window"),
    ])
      await t.audit.append(row);
    // Oldest first means in the order they were appended (by id), whatever their times say.
    expect(await t.audit.about("lead-1", "lead.decide", { from: 1_000, until: 3_000 })).toEqual([
      entry(2_000, "lead-1", "lead.decide", "reject: second"),
      entry(1_000, "lead-1", "lead.decide", "accept"),
    ]);
    expect(await t.audit.about("lead-3", "lead.decide", { from: 0, until: Number.MAX_SAFE_INTEGER })).toEqual([]);
  });
});
