// A lane for password checks: `slots` run at once, at most `maxWaiting` wait, and one group (a
// client address, a vendor name) holds at most `maxPerGroup` of the lane's places, running or
// waiting. A lane never queues past its limits: it says no at once, and the caller decides what
// that means (try another lane, or answer 429). The authenticator keeps two (see there): a clean
// lane the flood cannot enter, and a suspect lane that bounds what a flood can cost.

export interface LaneLimits {
  slots: number;
  maxWaiting: number;
  maxPerGroup: number;
}

export interface Lane {
  /** Runs `task` in a free slot, now or once one frees; null when the lane or the group is full. */
  tryRun<T>(group: string, task: () => Promise<T>): Promise<T> | null;
}

export function createLane(limits: LaneLimits): Lane {
  let running = 0;
  const waiting: (() => void)[] = [];
  const placesByGroup = new Map<string, number>();

  /** A finished task's slot goes to the next waiting one, if any. */
  function release(group: string) {
    const places = placesByGroup.get(group)! - 1;
    if (places === 0) placesByGroup.delete(group);
    else placesByGroup.set(group, places);
    const next = waiting.shift();
    if (next) next();
    else running--;
  }

  return {
    tryRun(group, task) {
      const places = placesByGroup.get(group) ?? 0;
      const mustWait = running >= limits.slots;
      if (places >= limits.maxPerGroup || (mustWait && waiting.length >= limits.maxWaiting)) return null;
      placesByGroup.set(group, places + 1);
      const slot = mustWait ? new Promise<void>((resolve) => waiting.push(resolve)) : Promise.resolve();
      if (!mustWait) running++;
      return slot.then(task).finally(() => release(group));
    },
  };
}
