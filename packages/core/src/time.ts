/**
 * Times and calendar periods, in UTC. The API stores and returns times as RFC 3339 UTC with milliseconds
 * (`YYYY-MM-DDTHH:mm:ss.sssZ`), which sort as strings; P&L is kept per UTC day, ISO week (starting Monday) and
 * month, equity per UTC hour and day. Periods are counted in whole milliseconds (no leap seconds, as in JavaScript).
 */

export type Period = 'day' | 'week' | 'month';
export type Interval = 'hour' | 'day';

export const PERIODS: readonly Period[] = ['day', 'week', 'month'];
export const INTERVALS: readonly Interval[] = ['hour', 'day'];

const HOUR = 3_600_000;

/**
 * How far ahead of the server's clock a time from a bot may be: a few minutes of drift are forgiven; more is refused
 * by the writer, and a heartbeat stored that far ahead (before the writer refused such times) is not believed. A time
 * from the future would hide later, true reports behind it: a heartbeat dated tomorrow makes the next one, saying the
 * bot crashed, look older, and a bot that died look fresh for a day. Bots do it by accident (a VPS's drifting clock,
 * a local time sent as UTC).
 */
export const MAX_CLOCK_AHEAD_MS = 5 * 60_000;
const DAY = 24 * HOUR;

/**
 * The first and last instants a time of the API can name: its times are written with four-digit years
 * (`YYYY-MM-DDTHH:mm:ss.sssZ`), so 0000-01-01T00:00:00.000Z to 9999-12-31T23:59:59.999Z.
 */
export const EARLIEST_TIME = Date.parse('0000-01-01T00:00:00.000Z');
export const LATEST_TIME = Date.parse('9999-12-31T23:59:59.999Z');

/** The stored form of a time: `YYYY-MM-DDTHH:mm:ss.sssZ`. */
export function timestamp(ms: number): string {
  return new Date(ms).toISOString();
}

const RFC3339 = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/i;

/**
 * An RFC 3339 date-time with a zone (`Z` or `±hh:mm`), as milliseconds since the epoch, or undefined when it is
 * malformed, names a day or time that does not exist (February 30th, 24:00), or has no zone. Digits below the
 * millisecond are kept as a fraction of a millisecond, so a bound is never rounded across a trade's time.
 */
export function parseTime(text: string): number | undefined {
  const match = RFC3339.exec(text);
  if (!match) return undefined;
  const [, dateTime, fraction = '', zone] = match;
  // Read as UTC in ECMAScript's own format (four-digit years as written, unlike Date.UTC's 0 to 99) and written
  // back: a day or time that does not exist (February 30th, 24:00, a leap second) does not come back the same.
  const utc = dateTime.toUpperCase();
  const base = Date.parse(`${utc}Z`);
  if (Number.isNaN(base) || timestamp(base).slice(0, 19) !== utc) return undefined;
  let offset = 0;
  if (zone.toUpperCase() !== 'Z') {
    const hours = Number(zone.slice(1, 3));
    const minutes = Number(zone.slice(4, 6));
    if (hours > 23 || minutes > 59) return undefined;
    offset = (zone[0] === '-' ? -1 : 1) * (hours * 60 + minutes) * 60_000;
  }
  return base - offset + Number(`0.${fraction || '0'}`) * 1000;
}

/**
 * A time as the writer stores it: RFC 3339 in UTC (`Z`), with up to three fraction digits, normalised to
 * `YYYY-MM-DDTHH:mm:ss.sssZ`; undefined otherwise (another zone, more precision than a millisecond, a date that
 * does not exist).
 */
export function parseUtcTimestamp(text: unknown): string | undefined {
  if (typeof text !== 'string' || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/.test(text)) return undefined;
  const ms = parseTime(text);
  return ms === undefined ? undefined : timestamp(ms);
}

/** Every calendar unit a series is made of: P&L periods and equity intervals. */
export type CalendarUnit = Period | Interval;

/** A UTC month as `Date.UTC` takes it, valid for years below 100 too (which `Date.UTC` would read as 19xx). */
function monthStart(year: number, month: number): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month, 1);
  return date.getTime();
}

/** The start of the UTC period (hour, day, ISO week from Monday, month) that holds `ms`. */
export function periodStart(ms: number, period: CalendarUnit): number {
  if (period === 'hour') return Math.floor(ms / HOUR) * HOUR;
  const midnight = Math.floor(ms / DAY) * DAY;
  if (period === 'day') return midnight;
  if (period === 'week') return midnight - ((new Date(midnight).getUTCDay() + 6) % 7) * DAY;
  const date = new Date(midnight);
  return monthStart(date.getUTCFullYear(), date.getUTCMonth());
}

/** The start of the period `count` periods after (or, negative, before) the one starting at `start`. */
export function shiftPeriodStart(start: number, period: CalendarUnit, count: number): number {
  if (period === 'hour') return start + count * HOUR;
  if (period === 'day') return start + count * DAY;
  if (period === 'week') return start + count * 7 * DAY;
  const date = new Date(start);
  return monthStart(date.getUTCFullYear(), date.getUTCMonth() + count);
}

/** How many periods lie between two period starts (`from` ≤ `to`). */
export function periodsBetween(from: number, to: number, period: CalendarUnit): number {
  if (period === 'month') {
    const a = new Date(from);
    const b = new Date(to);
    return (b.getUTCFullYear() - a.getUTCFullYear()) * 12 + b.getUTCMonth() - a.getUTCMonth();
  }
  return Math.round((to - from) / shiftPeriodStart(0, period, 1));
}

/** A time window in milliseconds since the epoch: `from` inclusive, `to` exclusive, each optional. */
export interface TimeWindow {
  from?: number;
  to?: number;
}
