// A schedule's open hours: "HH:MM-HH:MM[,HH:MM-HH:MM…]" per weekday, as minutes of each local day.
// A range whose end is before its start runs past midnight: "22:00-02:00" on mon is open from
// Monday 22:00 until Tuesday 02:00. "24:00" is allowed as an end only; an empty range is a mistake.
import { WEEKDAYS, type Weekday } from "./schema.ts";
import { zonedParts } from "./zoned.ts";

const DAY = 24 * 60;
const RANGE = /^([0-9]{2}):([0-9]{2})-([0-9]{2}):([0-9]{2})$/;

/** [start, end) minutes of a local day. */
export type Span = readonly [number, number];

/** The ranges of one day's text as [start, end) minutes, end possibly past 1440; or a message saying what is wrong. */
export function parseHours(text: string): Span[] | string {
  const spans: Span[] = [];
  for (const part of text.split(",")) {
    const match = RANGE.exec(part.trim());
    if (match === null) return `must be ranges "HH:MM-HH:MM", separated by commas: ${JSON.stringify(part.trim())}`;
    const [h1, m1, h2, m2] = match.slice(1).map(Number) as [number, number, number, number];
    if (h1 > 23 || m1 > 59) return `${part.trim()}: the start must be a time from 00:00 to 23:59`;
    if (h2 > 24 || m2 > 59 || (h2 === 24 && m2 !== 0)) return `${part.trim()}: the end must be a time from 00:00 to 24:00`;
    const [start, end] = [h1 * 60 + m1, h2 * 60 + m2];
    if (start === end) return `${part.trim()}: an empty range (for the whole day write 00:00-24:00)`;
    spans.push([start, end < start ? end + DAY : end]);
  }
  return spans;
}

/** Open spans by local weekday (0 = Sunday, as ZonedParts), a range past midnight split onto the next day. */
export function weekOf(open: Partial<Record<Weekday, Span[]>>): Span[][] {
  const week: Span[][] = [[], [], [], [], [], [], []];
  WEEKDAYS.forEach((name, mondayFirst) => {
    const day = (mondayFirst + 1) % 7;
    for (const [start, end] of open[name] ?? []) {
      week[day]!.push([start, Math.min(end, DAY)]);
      if (end > DAY) week[(day + 1) % 7]!.push([0, end - DAY]);
    }
  });
  return week;
}

export const isOpen = (day: readonly Span[], minute: number): boolean => day.some(([start, end]) => start <= minute && minute < end);

const MINUTE = 60_000;

/**
 * Whether a week of open spans is open at an instant, in `timeZone`. Its answer holds for a whole
 * UTC minute (hours are local minutes, and offsets whole minutes), so it is kept for the minute last
 * asked: a request within it reads no clock fields. Pure otherwise: any instant may be asked.
 */
export function openAtInstant(week: readonly (readonly Span[])[], timeZone: string): (at: number) => boolean {
  let from = 0;
  let until = 0;
  let open = false;
  return (at) => {
    if (!(at >= from && at < until)) {
      from = Math.floor(at / MINUTE) * MINUTE;
      until = from + MINUTE;
      const local = zonedParts(at, timeZone);
      open = isOpen(week[local.weekday]!, local.hour * 60 + local.minute);
    }
    return open;
  };
}
