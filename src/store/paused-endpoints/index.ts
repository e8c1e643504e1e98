// The callback endpoints paused by an open circuit (db/schema.ts pausedEndpoints): written by the
// delivery worker when a circuit opens or closes (callbacks/pauses.ts), read by the console, the
// CLI and /metrics, which do not share the worker's memory.
import type { Op } from "../../db/script.ts";
import type { pausedEndpoints } from "../../db/schema.ts";

export type PausedEndpoint = typeof pausedEndpoints.$inferSelect;

/** A paused endpoint as operators read it: with its vendor's name (null if the vendor is gone). */
export type PausedEndpointView = PausedEndpoint & { vendorName: string | null };

export interface PausedEndpointsTable {
  /** Records a paused endpoint, or moves on one already paused (its failed probe): paused since its first opening. */
  pause(row: PausedEndpoint): Op<void>;
  /** Its circuit closed (or its instance forgot it). */
  resume(endpoint: string): Op<void>;
  /** Every paused endpoint, soonest tried again first. */
  list(): Op<PausedEndpointView[]>;
  count(): Op<number>;
  /** Deletes the rows whose pause ended before `before` (left by an instance that stopped); how many. */
  purgeEndedBefore(before: number): Op<number>;
}

/** What a pause of an endpoint already paused changes: all but when it was first paused. */
export const reopened = ({ pausedAt: _, ...row }: PausedEndpoint): Omit<PausedEndpoint, "pausedAt"> => row;
