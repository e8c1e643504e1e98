// Which secrets sign a vendor's callbacks, and how a rotation changes them (docs/contract.md §12).
// A rotation keeps the replaced secret signing beside the new one until the overlap ends, so a
// vendor can deploy the new secret without a window in which callbacks fail verification. Both
// backends read these facts with each claimed callback and decide here, at the attempt's time.
import type { SigningSecrets } from "../store/vendors/index.ts";

export type { SigningSecrets };

/** The secrets that sign a callback sent at `t`, newest first: the previous one only until its overlap ends. */
export function signingSecretsAt(secrets: SigningSecrets, t: number): string[] {
  const until = overlapEnd(secrets, t);
  return until === null ? [secrets.signingSecret] : [secrets.signingSecret, secrets.previousSigningSecret!];
}

/** When the previous secret stops signing, if at `t` it still does; null when only one secret signs. */
export function overlapEnd({ previousSigningSecret, previousSecretUntil }: SigningSecrets, t: number): number | null {
  return previousSigningSecret !== null && previousSecretUntil !== null && t < previousSecretUntil ? previousSecretUntil : null;
}

/**
 * The secrets after a rotation at `now` to `newSecret`: the current one signs beside it until
 * `now + overlapMs` (no overlap when 0). Rotating again during an overlap makes the current secret
 * the previous one, with a full overlap of its own, and drops the oldest at once: at most two
 * signatures per callback, and a secret rotated away twice (perhaps because it leaked) never signs
 * again. The vendor has had the current secret since the first rotation.
 */
export function rotatedSecrets(current: SigningSecrets, newSecret: string, now: number, overlapMs: number): SigningSecrets {
  if (overlapMs <= 0) return { signingSecret: newSecret, previousSigningSecret: null, previousSecretUntil: null };
  return { signingSecret: newSecret, previousSigningSecret: current.signingSecret, previousSecretUntil: now + overlapMs };
}
