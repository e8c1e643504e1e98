// The group committer's background writes (group-commit.ts): the worker's claims, outcomes and
// decisions. While the service has foreground work in flight they are held, and join a batch all
// together once every BACKGROUND_WAVE_MS: riding along in every batch cost intake much more of
// its throughput than waves do, probably because every batch then also wrote pages of the callback
// queue (bench/README.md, "Behind the code"). With no foreground work they go at once.
import type { Pending } from "./batch.ts";

export const BACKGROUND_WAVE_MS = 25;

export interface BackgroundWaves {
  /** Holds a background write for the next wave, or lets it (and any held) go now when the foreground is idle. */
  hold(pending: Pending): void;
  /** The wave: every held write joins the batch of this turn. */
  release(): void;
}

export interface WaveOptions {
  /** Is there foreground work a background write should wait for? */
  foregroundBusy: () => boolean;
  waveMs: number;
  /** Hands the held writes to the next batch. */
  join: (held: Pending[]) => void;
}

export function backgroundWaves({ foregroundBusy, waveMs, join }: WaveOptions): BackgroundWaves {
  let held: Pending[] = [];
  /** The next wave, while writes are held (the foreground was busy when they came). */
  let nextWave: Timer | null = null;

  function release() {
    if (nextWave !== null) clearTimeout(nextWave);
    nextWave = null;
    if (held.length === 0) return;
    const wave = held;
    held = [];
    join(wave);
  }

  return {
    hold(pending) {
      held.push(pending);
      if (foregroundBusy()) nextWave ??= setTimeout(release, waveMs);
      else release();
    },
    release,
  };
}
