// Certificate verification (docs/contract.md §7, off by default): the certificate_url must answer 2xx.
// The URL is the vendor's, so it goes through the same SSRF guard as callbacks.
import { pinnedFetchInit } from "../callbacks/pinned-fetch.ts";
import { resolveCallbackTarget } from "../callbacks/ssrf.ts";
import { REASON_CERTIFICATE } from "../contract/texts.ts";
import type { CertificateCheck } from "./decide.ts";

export function certificateVerifier(options: { allowPrivate: boolean; timeoutMs: number }) {
  return async (certificateUrl: string): Promise<CertificateCheck> => {
    const signal = AbortSignal.timeout(options.timeoutMs);
    try {
      const url = new URL(certificateUrl);
      const target = await resolveCallbackTarget(url, { allowPrivate: options.allowPrivate, signal });
      // The vendor reads this reason in its callback: say what failed, not our network's view.
      if (!target.ok) return failed("its address is not allowed or does not resolve");
      const pinned = pinnedFetchInit(url, target, { method: "GET", signal });
      const response = await fetch(pinned.url, pinned.init);
      await response.body?.cancel();
      return response.ok ? { verified: true } : failed(`HTTP ${response.status}`);
    } catch (error) {
      return failed(signal.aborted ? `no answer within ${options.timeoutMs} ms` : (error as Error).message);
    }
  };
}

const failed = (detail: string): CertificateCheck => ({ verified: false, reason: `${REASON_CERTIFICATE}: ${detail}` });
