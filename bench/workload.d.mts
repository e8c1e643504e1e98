// Types for workload.mjs.
export type RequestKind = "valid" | "duplicate" | "invalid";
export interface WorkloadShares {
  duplicate?: number;
  invalid?: number;
  callbackRetry?: number;
  callbackDead?: number;
  callbackHang?: number;
}
export interface WorkloadOptions {
  template: string;
  slot: string;
  invalidBody: string;
  phoneStart: number;
  callbackBase: string;
  /** Origins of the down and hanging vendors' servers (default: callbackBase). */
  failingBases?: { dead?: string; hang?: string };
  shares?: WorkloadShares;
  seed?: number;
}
export declare const CALLBACK_SLOT: string;
export declare const CALLBACK_PATHS: { ok: string; retryPrefix: string; dead: string; hang: string; duplicate: string };
export declare const RECEIVER_BEHAVIOURS: Array<{ path?: string; status?: number; failFirst?: number; hang?: boolean }>;
export declare const EXPECTED_STATUS: Record<RequestKind, number>;
export declare function seededRandom(seed: number): () => number;
export declare function createWorkload(options: WorkloadOptions): { next(): { kind: RequestKind; body: string } };
