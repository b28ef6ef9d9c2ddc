/**
 * The charts' data and scales, worked out before uPlot sees them (pure: no canvas, no uPlot at run time), so they
 * are unit-tested like the figures' formatting. Times are Unix seconds, uPlot's own unit for a time scale.
 */
import type uPlot from 'uplot';

/** Unix seconds of an API time. */
export const seconds = (time: string): number => Date.parse(time) / 1000;

/**
 * The x values and series of `points` with a null wherever a bucket of `step` seconds has no point: uPlot breaks the
 * line there (its spanGaps is off), so an interval without a snapshot shows as a gap, never as a straight line that
 * invents values across it. Returns the gaps' middles too.
 */
export function withGaps(times: number[], series: number[][], step: number): { data: uPlot.AlignedData; gaps: number[] } {
  const xs: number[] = [];
  const ys: (number | null)[][] = series.map(() => []);
  const gaps: number[] = [];
  times.forEach((time, i) => {
    const previous = times[i - 1];
    if (previous !== undefined && time - previous > step * 1.5) {
      xs.push(previous + step);
      for (const y of ys) y.push(null);
      gaps.push((previous + time) / 2);
    }
    xs.push(time);
    series.forEach((values, s) => {
      ys[s].push(values[i]);
    });
  });
  return { data: [xs, ...ys], gaps };
}

/**
 * The indices of the values with no value beside them (the only one, or one between two gaps): a line needs two
 * points, so uPlot draws nothing for these unless they are drawn as points.
 */
export function isolated(values: readonly (number | null | undefined)[]): number[] {
  const present = (i: number) => values[i] !== null && values[i] !== undefined;
  return values.flatMap((_, i) => (present(i) && !present(i - 1) && !present(i + 1) ? [i] : []));
}

/**
 * The x range a chart draws, in seconds: the API's window from its `from` to its `to` capped at now. The API's `to`
 * is the end of the current interval (up to a day ahead), and uPlot, left to itself, ranges x over the data: over
 * one point it invents years on each side. The end is never before the last point (a browser's clock behind the
 * bot's must not hide the newest snapshot) nor at or before the start.
 */
export function chartWindow(window: { from: string; to: string }, lastPoint?: string, nowMs = Date.now()): [number, number] {
  const from = seconds(window.from);
  const to = seconds(window.to);
  const end = Math.min(to, Math.max(nowMs / 1000, lastPoint ? seconds(lastPoint) : Number.NEGATIVE_INFINITY));
  return [from, end > from ? end : to];
}
