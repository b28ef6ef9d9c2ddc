import { invalidParameter } from '../errors';
import { type CalendarUnit, periodsBetween, periodStart, shiftPeriodStart, type TimeWindow } from '@trading-bot-api/core/time';

/** Checks what one parameter alone cannot: that a window's `from` comes before its `to` (a 400 on `from` otherwise). */
export function checkWindow<W extends TimeWindow>(window: W): W {
  if (window.from !== undefined && window.to !== undefined && window.from >= window.to)
    throw invalidParameter('from', 'must be earlier than to');
  return window;
}

/** A window of whole periods: the first period's start, the end (the next period's start), and the period starts. */
export interface SeriesWindow {
  from: number;
  to: number;
  starts: number[];
}

/**
 * Widens a requested window to whole periods: `from` back to the start of its period, `to` forward to the next
 * period boundary (unless on one). Without `to`, the window ends with the current period (the one holding `now`);
 * without `from`, it holds `defaultPoints` periods. More than `maxPoints` periods is a 400.
 */
export function seriesWindow(unit: CalendarUnit, requested: TimeWindow, now: Date, defaultPoints: number, maxPoints: number): SeriesWindow {
  checkWindow(requested);
  const endOf = (ms: number) => (periodStart(ms, unit) === ms ? ms : shiftPeriodStart(periodStart(ms, unit), unit, 1));
  const to = requested.to !== undefined ? endOf(requested.to) : shiftPeriodStart(periodStart(now.getTime(), unit), unit, 1);
  const from = requested.from !== undefined ? periodStart(requested.from, unit) : shiftPeriodStart(to, unit, -defaultPoints);
  if (from >= to) throw invalidParameter('from', 'must be earlier than to (which defaults to the end of the current period)');
  const points = periodsBetween(from, to, unit);
  if (points > maxPoints) {
    throw invalidParameter(
      'from',
      `makes a window of ${points} ${unit}s; at most ${maxPoints} fit in one answer (narrow the window or use a longer ${unit === 'hour' || unit === 'day' ? 'unit' : 'period'})`,
    );
  }
  const starts = Array.from({ length: points }, (_, i) => shiftPeriodStart(from, unit, i));
  return { from, to, starts };
}
