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

/**
 * The ranges of two y scales drawn beside each other (the day's P&L bars and their running total) that put zero at
 * the same height: each covers its values and zero, with a margin, and zero sits at the larger of the two shares of
 * the plot the negative values need (kept between a tenth and nine tenths when both signs are drawn). A positive running total can then never be drawn below the bars' zero line.
 */
export function sharedZeroRanges(a: readonly number[], b: readonly number[], margin = 0.08): [[number, number], [number, number]] {
  const extent = (values: readonly number[]) => [Math.min(0, ...values), Math.max(0, ...values)] as const;
  const [ea, eb] = [extent(a), extent(b)];
  // The share of the height below zero: where zero sits, from the bottom.
  const below = ([low, high]: readonly [number, number]) => (high - low > 0 ? -low / (high - low) : 0);
  let zero = Math.max(below(ea), below(eb));
  // Room above zero for the gains of one when the other is all losses, and below it for the losses of one when the
  // other is all gains.
  if (ea[1] > 0 || eb[1] > 0) zero = Math.min(zero, 0.9);
  if (ea[0] < 0 || eb[0] < 0) zero = Math.max(zero, 0.1);
  const range = ([low, high]: readonly [number, number]): [number, number] => {
    let span = Math.max(zero > 0 ? -low / zero : 0, zero < 1 ? high / (1 - zero) : 0);
    if (!(span > 0)) span = 1;
    span *= 1 + margin;
    return [-zero * span, (1 - zero) * span];
  };
  return [range(ea), range(eb)];
}
