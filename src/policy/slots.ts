// A cap's slot in its current window: the counter a request counts against (store/cap-usage/), its
// max, reason and Retry-After. Windows are calendar math in the cap's zone (zoned.ts), so a window
// is computed once and kept until an instant outside it is asked; a slot object is kept while its
// Retry-After stays the same second, and a scope's list of slots while all of them do.
import { counterKeyOf } from "../store/cap-usage/index.ts";
import type { CompiledCap } from "./entries.ts";
import { calendarWindow } from "./zoned.ts";

/** One cap a request in scope counts against, in its current window. */
export interface CapSlot {
  name: string;
  counts: "leads" | "pings";
  /** Whose count: the vendor's name, or the campaign folded (trimmed, lower-case), for an `each` cap; "" for a cap counted all together. */
  bucket: string;
  /** The window's first instant as an ISO-8601 UTC text: with name and bucket, the key of one counter. */
  windowKey: string;
  windowStart: number;
  windowEnd: number;
  max: number;
  reason: string;
  /** Seconds until the window ends, at least 1: the refusal's Retry-After. */
  retryAfterSeconds: number;
  /** Name, bucket and window start as one text: the counter's identity in memory (store/cap-usage counterKeyOf). */
  counterKey: string;
}

// Shared when empty: read it, do not change it.
export const NO_CAPS: readonly CapSlot[] = Object.freeze([]);

/** One cap's current window, and the slots handed out in it by bucket while their Retry-After is the same: reused, not rebuilt per request. */
export class CapWindows {
  #start = 0;
  #end = 0;
  #key = "";
  readonly #slots = new Map<string, CapSlot>();

  constructor(readonly cap: CompiledCap) {}

  /** The cap's slot for `bucket` at `at`: the one handed out earlier in the same window and second, or a new one. */
  slot(bucket: string, at: number): CapSlot {
    const { cap } = this;
    if (!(at >= this.#start && at < this.#end)) {
      const span = calendarWindow(cap.per, at, cap.timeZone);
      [this.#start, this.#end, this.#key] = [span.start, span.end, new Date(span.start).toISOString()];
      this.#slots.clear();
    }
    const retryAfterSeconds = Math.max(1, Math.ceil((this.#end - at) / 1000));
    const known = this.#slots.get(bucket);
    if (known !== undefined && known.retryAfterSeconds === retryAfterSeconds) return known;
    // Frozen: one object answers many requests.
    const slot: CapSlot = Object.freeze({
      name: cap.name,
      counts: cap.counts,
      bucket,
      windowKey: this.#key,
      windowStart: this.#start,
      windowEnd: this.#end,
      max: cap.max,
      reason: cap.reason,
      retryAfterSeconds,
      counterKey: counterKeyOf(cap.name, bucket, this.#start),
    });
    // Buckets are vendors or campaigns: bounded, but a window of many is cleared rather than kept.
    if (this.#slots.size >= SLOTS_PER_WINDOW) this.#slots.clear();
    this.#slots.set(bucket, slot);
    return slot;
  }
}

const SLOTS_PER_WINDOW = 10_000;

/**
 * The slots of one scope's caps (each with its bucket), as one list kept for the span of instants
 * over which every slot stays the same: within each window, and within the second of each
 * Retry-After. Asked at an instant outside that span (later, or earlier), it is made again.
 */
export class ScopeSlots {
  #from = 0;
  #until = 0;
  #slots: readonly CapSlot[] = NO_CAPS;

  constructor(readonly caps: readonly { windows: CapWindows; bucket: string }[]) {
    if (caps.length === 0) [this.#from, this.#until] = [Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY];
  }

  at(at: number): readonly CapSlot[] {
    if (at >= this.#from && at < this.#until) return this.#slots;
    let [from, until] = [Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY];
    const slots = this.caps.map(({ windows, bucket }) => {
      const slot = windows.slot(bucket, at);
      // Retry-After is ceil((end - at) / 1 s), at least 1: it is k for end - k s <= at < end - (k - 1) s.
      const { windowStart, windowEnd, retryAfterSeconds: k } = slot;
      from = Math.max(from, windowStart, windowEnd - k * 1000);
      until = Math.min(until, windowEnd, windowEnd - (k - 1) * 1000);
      return slot;
    });
    [this.#from, this.#until, this.#slots] = [from, until, Object.freeze(slots)];
    return slots;
  }
}
