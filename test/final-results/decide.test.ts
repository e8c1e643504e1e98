import { describe, expect, test } from "bun:test";
import { REASON_SUPPRESSED } from "../../src/contract/texts.ts";
import { certificateCheckMatters, decideFinalResult, type PostPostingChecks } from "../../src/final-results/decide.ts";

const clean: PostPostingChecks = { suppressedNow: false, operatorDecision: null, certificate: null };

describe("decideFinalResult (docs/contract.md §7, in the contract's order)", () => {
  test("no check objects → accepted", () => {
    expect(decideFinalResult(clean)).toEqual({ status: "accepted" });
  });

  test("suppressed at the end of the hold → rejected, even if an operator accepted it", () => {
    const result = decideFinalResult({ ...clean, suppressedNow: true, operatorDecision: { decision: "accept", reason: null } });
    expect(result).toEqual({ status: "rejected", reasons: [REASON_SUPPRESSED] });
  });

  test("an operator's reject → rejected with the operator's reason", () => {
    expect(decideFinalResult({ ...clean, operatorDecision: { decision: "reject", reason: "bad lead" } })).toEqual({
      status: "rejected",
      reasons: ["Rejected by operator: bad lead"],
    });
    expect(decideFinalResult({ ...clean, operatorDecision: { decision: "reject", reason: null } })).toEqual({
      status: "rejected",
      reasons: ["Rejected by operator."],
    });
  });

  test("an operator's accept wins over a failed certificate check", () => {
    const result = decideFinalResult({
      ...clean,
      operatorDecision: { decision: "accept", reason: null },
      certificate: { verified: false, reason: "Certificate URL could not be verified: HTTP 404" },
    });
    expect(result).toEqual({ status: "accepted" });
  });

  test("a certificate that does not answer 2xx → rejected with the detail", () => {
    expect(decideFinalResult({ ...clean, certificate: { verified: false, reason: "Certificate URL could not be verified: HTTP 404" } })).toEqual({
      status: "rejected",
      reasons: ["Certificate URL could not be verified: HTTP 404"],
    });
    expect(decideFinalResult({ ...clean, certificate: { verified: true } })).toEqual({ status: "accepted" });
  });

  test("failing final rules → rejected with every reason, in the order given", () => {
    expect(decideFinalResult({ ...clean, failingFinalRules: ["Income too low: 1000", "Not a home owner"] })).toEqual({
      status: "rejected",
      reasons: ["Income too low: 1000", "Not a home owner"],
    });
    expect(decideFinalResult({ ...clean, failingFinalRules: [] })).toEqual({ status: "accepted" });
  });

  test("final rules come after the section 7 checks: an operator's accept wins, a suppression or failed certificate is the one reason", () => {
    const failingFinalRules = ["Not a home owner"];
    expect(decideFinalResult({ ...clean, failingFinalRules, operatorDecision: { decision: "accept", reason: null } })).toEqual({ status: "accepted" });
    expect(decideFinalResult({ ...clean, failingFinalRules, suppressedNow: true })).toEqual({ status: "rejected", reasons: [REASON_SUPPRESSED] });
    expect(decideFinalResult({ ...clean, failingFinalRules, operatorDecision: { decision: "reject", reason: null } })).toEqual({
      status: "rejected",
      reasons: ["Rejected by operator."],
    });
    expect(
      decideFinalResult({ ...clean, failingFinalRules, certificate: { verified: false, reason: "Certificate URL could not be verified: HTTP 404" } }),
    ).toEqual({
      status: "rejected",
      reasons: ["Certificate URL could not be verified: HTTP 404"],
    });
  });

  test("the certificate is only worth checking when nothing earlier decides", () => {
    expect(certificateCheckMatters({ suppressedNow: false, operatorDecision: null })).toBe(true);
    expect(certificateCheckMatters({ suppressedNow: true, operatorDecision: null })).toBe(false);
    expect(certificateCheckMatters({ suppressedNow: false, operatorDecision: { decision: "accept", reason: null } })).toBe(false);
  });
});
