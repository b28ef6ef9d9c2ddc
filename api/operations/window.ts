import { invalidParameter, invalidParameters, type ParameterError } from '../errors';
import {
  type CalendarUnit,
  EARLIEST_TIME,
  LATEST_TIME,
  periodsBetween,
  periodStart,
  shiftPeriodStart,
  type TimeWindow,
  timestamp,
} from '@trading-bot-api/core/time';

/**
 * What one time parameter alone cannot tell: a window's `from` must come before its `to`. The error names `from`
 * (openapi.yaml says so); the query's parsing reports it with the request's other bad parameters.
 */
export function windowError(window: TimeWindow): ParameterError | undefined {
  if (window.from !== undefined && window.to !== undefined && window.from >= window.to)
    return { parameter: 'from', message: 'must be earlier than to' };
  return undefined;
}

/** A window whose `from` comes before its `to`; a 400 on `from` otherwise. */
export function checkWindow<W extends TimeWindow>(window: W): W {
  const error = windowError(window);
  if (error) throw invalidParameters([error]);
  return window;
}

/**
 * Widens a requested window to whole periods: `from` back to the start of its period, `to` forward to the next
 * period boundary (unless on one). Without `to`, the window ends with the current period (the one holding `now`);
 * without `from`, it holds `defaultPoints` periods. More than `maxPoints` periods is a 400.
 */
export function seriesWindow(unit: CalendarUnit, requested: TimeWindow, now: Date, defaultPoints: number, maxPoints: number) {
  checkWindow(requested);
  const endOf = (ms: number) => (periodStart(ms, unit) === ms ? ms : shiftPeriodStart(periodStart(ms, unit), unit, 1));
  const to = requested.to !== undefined ? endOf(requested.to) : shiftPeriodStart(periodStart(now.getTime(), unit), unit, 1);
  const from = requested.from !== undefined ? periodStart(requested.from, unit) : shiftPeriodStart(to, unit, -defaultPoints);
  if (from >= to) throw invalidParameter('from', 'must be earlier than to (which defaults to the end of the current period)');
  // An answer writes its window with four-digit years: widened to whole periods or counted back from `to`, the window
  // must stay inside them. Its start is blamed on `from`, or on `to` when it was counted back from `to`.
  if (from < EARLIEST_TIME) {
    const how = requested.from !== undefined ? `moved back to the start of its ${unit}` : `counted back ${defaultPoints} ${unit}s`;
    throw invalidParameter(
      requested.from !== undefined ? 'from' : 'to',
      `makes the window start before ${timestamp(EARLIEST_TIME)} (${how}), the earliest time an answer can hold`,
    );
  }
  if (to > LATEST_TIME) {
    throw invalidParameter(
      requested.to !== undefined ? 'to' : 'from',
      `makes the window end after ${timestamp(LATEST_TIME)} (moved forward to the end of its ${unit}), the latest time an answer can hold`,
    );
  }
  const points = periodsBetween(from, to, unit);
  if (points > maxPoints) {
    throw invalidParameter(
      'from',
      `makes a window of ${points} ${unit}s; at most ${maxPoints} fit in one answer (narrow the window or use a longer ${unit === 'hour' || unit === 'day' ? 'unit' : 'period'})`,
    );
  }
  const starts = Array.from({ length: points }, (_, i) => shiftPeriodStart(from, unit, i));
  return { from, to, starts, span: [timestamp(from), timestamp(starts[starts.length - 1])] as [string, string] };
}

/**
 * A window of whole periods: the first period's start, the end (the next period's start), the period starts, and the
 * first and last of them as stored times (a key range's bounds).
 */
export type SeriesWindow = ReturnType<typeof seriesWindow>;
