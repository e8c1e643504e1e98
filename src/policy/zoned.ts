// Wall-clock time in an IANA time zone, with Intl only: the local date and time of an instant, and the
// instants a calendar window (minute, hour, day, week from Monday, month) starts and ends, which is
// where DST shows (a day in America/New_York is 23 or 25 hours on a change). Formatters are made
// once per zone, and each zone keeps the parts of the last minute asked, so that requests within a
// minute format nothing. Offsets are taken to be whole minutes, as every zone's has been since 1972.
import type { Period } from "./schema.ts";

export interface ZonedParts {
  readonly year: number;
  /** 1-12. */
  readonly month: number;
  readonly day: number;
  /** 0-23. */
  readonly hour: number;
  readonly minute: number;
  /** 0 = Sunday … 6 = Saturday, as Date.getUTCDay. */
  readonly weekday: number;
}

const MINUTE = 60_000;
const WEEKDAY_INDEX: Record<string, number> = { Sun: 0, Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6 };

interface Zone {
  format: Intl.DateTimeFormat;
  lastMinute: number;
  lastParts: ZonedParts;
}
const zones = new Map<string, Zone>();

function zoneOf(timeZone: string): Zone {
  let zone = zones.get(timeZone);
  if (zone === undefined) {
    const format = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      weekday: "short",
    });
    zone = { format, lastMinute: Number.NaN, lastParts: { year: 1970, month: 1, day: 1, hour: 0, minute: 0, weekday: 4 } };
    zones.set(timeZone, zone);
  }
  return zone;
}

/** Whether Intl knows the zone (an IANA name such as America/Chicago, or UTC). */
export function isTimeZone(timeZone: string): boolean {
  try {
    zoneOf(timeZone);
    return true;
  } catch {
    return false;
  }
}

function formatParts(format: Intl.DateTimeFormat, at: number): ZonedParts {
  const fields: Record<string, string> = {};
  for (const part of format.formatToParts(at)) fields[part.type] = part.value;
  return {
    year: Number(fields.year),
    month: Number(fields.month),
    day: Number(fields.day),
    hour: Number(fields.hour),
    minute: Number(fields.minute),
    weekday: WEEKDAY_INDEX[fields.weekday as string] ?? 0,
  };
}

/** The local date and time of instant `at` (ms) in `timeZone`; the zone must be valid. */
export function zonedParts(at: number, timeZone: string): ZonedParts {
  const zone = zoneOf(timeZone);
  const minute = Math.floor(at / MINUTE);
  if (minute !== zone.lastMinute) {
    zone.lastParts = formatParts(zone.format, minute * MINUTE);
    zone.lastMinute = minute;
  }
  return zone.lastParts;
}

/** The zone's offset from UTC at instant `at`, in ms (local wall time minus UTC). */
function offsetAt(at: number, timeZone: string): number {
  const minuteStart = Math.floor(at / MINUTE) * MINUTE;
  const p = formatParts(zoneOf(timeZone).format, minuteStart);
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute) - minuteStart;
}

/**
 * The instant at which the zone's clocks read the wall time `wall` (Date.UTC of the local fields);
 * in a repeated hour, the first. A wall time skipped by a change is read with the offset from before
 * it: 02:30 on a spring-forward night is 03:30 after the change, and a midnight that a zone skips
 * (America/Havana) is the change's instant, the day's first.
 */
export function instantOfWallTime(wall: number, timeZone: string): number {
  const first = wall - offsetAt(wall, timeZone);
  const second = wall - offsetAt(first, timeZone);
  return first === second ? first : Math.max(first, second);
}

export interface CalendarWindow {
  /** The first instant of the window, ms since the epoch. */
  start: number;
  /** The first instant after the window. */
  end: number;
}

/** The calendar window of `per` in `timeZone` that holds instant `at`. */
export function calendarWindow(per: Period, at: number, timeZone: string): CalendarWindow {
  const p = zonedParts(at, timeZone);
  const minuteStart = Math.floor(at / MINUTE) * MINUTE;
  switch (per) {
    case "minute":
      return { start: minuteStart, end: minuteStart + MINUTE };
    case "hour": {
      const start = minuteStart - p.minute * MINUTE;
      return { start, end: start + 60 * MINUTE };
    }
    case "day":
      return localSpan(timeZone, p.year, p.month - 1, p.day, 1);
    case "week":
      return localSpan(timeZone, p.year, p.month - 1, p.day - ((p.weekday + 6) % 7), 7);
    case "month":
      return {
        start: instantOfWallTime(Date.UTC(p.year, p.month - 1, 1), timeZone),
        end: instantOfWallTime(Date.UTC(p.year, p.month, 1), timeZone),
      };
  }
}

/** From local midnight of year-month(0-based)-day, for `days` local days. */
function localSpan(timeZone: string, year: number, month: number, day: number, days: number): CalendarWindow {
  return {
    start: instantOfWallTime(Date.UTC(year, month, day), timeZone),
    end: instantOfWallTime(Date.UTC(year, month, day + days), timeZone),
  };
}
