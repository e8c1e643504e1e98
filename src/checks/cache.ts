// Answers kept per check and phone number for the check's `cache` duration (docs/contract.md §11),
// so a number seen again within it costs no request.
//
// In memory, per instance, bounded (decided in docs/checks.md, "The answer cache"): the cache saves
// requests and their wait, it decides nothing a service would not decide again, so instances that
// do not share it are correct: with n instances a number is asked at most n times per period. A
// shared cache in the database would cost each lead a read (and each answer a write) on intake's
// path, more than the 20 ms request it saves. The bound keeps memory flat whatever the traffic:
// past `maxEntries` the oldest answer goes first.
//
// Only answers are kept (pass and fail): an error is asked again next time.

export interface CachedAnswer {
  outcome: "pass" | "fail";
  reason: string;
}

interface Kept extends CachedAnswer {
  expiresAt: number;
}

/** Answers kept at most, all checks together: about 150 bytes each, so some 15 MB at this bound. */
export const DEFAULT_MAX_ENTRIES = 100_000;

export interface AnswerCache {
  /** The answer kept for this check (its cacheKey) and phone, if still fresh at `now`. */
  get(cacheKey: string, phone: string, now: number): CachedAnswer | undefined;
  /** Keeps an answer until `now + ttlMs`. */
  set(cacheKey: string, phone: string, answer: CachedAnswer, ttlMs: number, now: number): void;
  size(): number;
  clear(): void;
}

export function createAnswerCache(options: { maxEntries?: number } = {}): AnswerCache {
  const maxEntries = Math.max(1, options.maxEntries ?? DEFAULT_MAX_ENTRIES);
  // A Map iterates in insertion order, and an answer is re-inserted when set again: the first key is the oldest.
  const kept = new Map<string, Kept>();
  const keyOf = (cacheKey: string, phone: string) => `${cacheKey}\n${phone}`;
  return {
    get(cacheKey, phone, now) {
      const key = keyOf(cacheKey, phone);
      const entry = kept.get(key);
      if (entry === undefined) return undefined;
      if (entry.expiresAt <= now) {
        kept.delete(key);
        return undefined;
      }
      return { outcome: entry.outcome, reason: entry.reason };
    },
    set(cacheKey, phone, answer, ttlMs, now) {
      if (ttlMs <= 0) return;
      const key = keyOf(cacheKey, phone);
      kept.delete(key);
      kept.set(key, { outcome: answer.outcome, reason: answer.reason, expiresAt: now + ttlMs });
      while (kept.size > maxEntries) {
        const oldest = kept.keys().next().value;
        if (oldest === undefined) break;
        kept.delete(oldest);
      }
    },
    size: () => kept.size,
    clear: () => kept.clear(),
  };
}
