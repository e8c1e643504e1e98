// Which secrets sign a callback at a given time, and what a rotation leaves (docs/contract.md §12).
import { describe, expect, test } from "bun:test";
import { overlapEnd, rotatedSecrets, signingSecretsAt, type SigningSecrets } from "../../src/callbacks/signing-secrets.ts";

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 10, 27, 12);
const only = (signingSecret: string): SigningSecrets => ({ signingSecret, previousSigningSecret: null, previousSecretUntil: null });

describe("signingSecretsAt", () => {
  test("without a rotation, only the vendor's secret signs", () => {
    expect(signingSecretsAt(only("whsec_a"), T0)).toEqual(["whsec_a"]);
    expect(overlapEnd(only("whsec_a"), T0)).toBeNull();
  });

  test("during the overlap the new secret and then the old one sign; from its end (exclusive) only the new one", () => {
    const secrets = { signingSecret: "whsec_new", previousSigningSecret: "whsec_old", previousSecretUntil: T0 + 24 * HOUR };
    expect(signingSecretsAt(secrets, T0)).toEqual(["whsec_new", "whsec_old"]);
    expect(signingSecretsAt(secrets, T0 + 24 * HOUR - 1)).toEqual(["whsec_new", "whsec_old"]);
    expect(overlapEnd(secrets, T0 + 24 * HOUR - 1)).toBe(T0 + 24 * HOUR);
    expect(signingSecretsAt(secrets, T0 + 24 * HOUR)).toEqual(["whsec_new"]);
    expect(overlapEnd(secrets, T0 + 24 * HOUR)).toBeNull();
    expect(signingSecretsAt(secrets, T0 + 48 * HOUR)).toEqual(["whsec_new"]);
  });

  test("a previous secret without an end, or an end without a secret, never signs", () => {
    expect(signingSecretsAt({ signingSecret: "whsec_new", previousSigningSecret: "whsec_old", previousSecretUntil: null }, T0)).toEqual(["whsec_new"]);
    expect(signingSecretsAt({ signingSecret: "whsec_new", previousSigningSecret: null, previousSecretUntil: T0 + HOUR }, T0)).toEqual(["whsec_new"]);
  });
});

describe("rotatedSecrets", () => {
  test("the current secret becomes the previous one, signing until now + overlap", () => {
    const rotated = rotatedSecrets(only("whsec_a"), "whsec_b", T0, 24 * HOUR);
    expect(rotated).toEqual({ signingSecret: "whsec_b", previousSigningSecret: "whsec_a", previousSecretUntil: T0 + 24 * HOUR });
    expect(signingSecretsAt(rotated, T0)).toEqual(["whsec_b", "whsec_a"]);
  });

  test("an overlap of 0 replaces the secret at once", () => {
    const rotated = rotatedSecrets(only("whsec_a"), "whsec_b", T0, 0);
    expect(rotated).toEqual(only("whsec_b"));
    expect(signingSecretsAt(rotated, T0)).toEqual(["whsec_b"]);
  });

  test("rotating again during an overlap: the oldest secret stops at once, the current one signs for a full overlap of its own", () => {
    const first = rotatedSecrets(only("whsec_a"), "whsec_b", T0, 24 * HOUR);
    const second = rotatedSecrets(first, "whsec_c", T0 + HOUR, 24 * HOUR);
    expect(second).toEqual({ signingSecret: "whsec_c", previousSigningSecret: "whsec_b", previousSecretUntil: T0 + 25 * HOUR });
    expect(signingSecretsAt(second, T0 + HOUR)).toEqual(["whsec_c", "whsec_b"]);
    expect(signingSecretsAt(second, T0 + 25 * HOUR)).toEqual(["whsec_c"]);
  });

  test("rotating after an overlap ended keeps only the current secret as the previous one", () => {
    const first = rotatedSecrets(only("whsec_a"), "whsec_b", T0, HOUR);
    expect(rotatedSecrets(first, "whsec_c", T0 + 2 * HOUR, HOUR)).toEqual({
      signingSecret: "whsec_c",
      previousSigningSecret: "whsec_b",
      previousSecretUntil: T0 + 3 * HOUR,
    });
  });
});
