// Checks callbacks the way a vendor would: with the reference `standardwebhooks` package rather than
// our own signer, so a mistake in src/callbacks/signature.ts cannot hide behind the same mistake here.
import { Webhook } from "standardwebhooks";

export interface SignatureCheck {
  valid: boolean;
  /** Why it is not valid: missing headers, no matching signature, timestamp too old or too new. */
  error?: string;
}

export class SecretError extends Error {}

// The package itself is lenient (it takes secrets without the prefix, and some malformed base64);
// a mistyped secret should be refused here rather than show up as "invalid signature" later.
const SECRET = /^whsec_[A-Za-z0-9+/]+={0,2}$/;

/** A verifier for a "whsec_<base64>" secret; throws SecretError on a malformed one. */
export function signatureVerifier(secret: string): (headers: Record<string, string>, body: string) => SignatureCheck {
  let webhook: Webhook;
  try {
    if (!SECRET.test(secret)) throw new Error("not whsec_ followed by base64");
    webhook = new Webhook(secret);
  } catch (error) {
    throw new SecretError(`secret must look like "whsec_<base64>": ${(error as Error).message}`);
  }
  return (headers, body) => {
    try {
      // jsonParse: false, or a correctly signed body that is not JSON would count as a bad signature.
      webhook.verify(body, headers, { jsonParse: false });
      return { valid: true };
    } catch (error) {
      return { valid: false, error: (error as Error).message };
    }
  };
}
