/**
 * The day-by-day equity run and its drawdown (packages/core/src/performance.ts): the computation every composition of
 * runs must equal, for the performance properties. The product never reads a run day by day over decimal strings: it
 * composes the stored periods' runs (rollups.ts).
 */
import { decimalScale } from '@trading-bot-api/core/decimal';
import { drawdownOf, type EquityRun, runOfUnits, unitsOf } from '@trading-bot-api/core/performance';
import type { Drawdown } from '@trading-bot-api/core/types';

/** A day's net realized P&L: `end` is the end of that day (the next day's start). */
interface DailyNet {
  end: string;
  net: string;
}

/** The run of `days` (in order) from `start`: the day-by-day computation every composition must equal. */
export function runOf(start: string, days: readonly DailyNet[]): EquityRun {
  const scale = Math.max(0, ...days.map((day) => decimalScale(day.net)));
  return runOfUnits(
    start,
    scale,
    days.map((day) => ({ end: day.end, units: unitsOf(day.net, scale) })),
  );
}

/**
 * The largest fall of realized equity over a window: realized P&L counts from zero at `from` and moves by each day's
 * net, in order (drawdownOf says the rest).
 */
export function maxDrawdown(from: string, days: readonly DailyNet[], startBalance: string | null = null): Drawdown {
  return drawdownOf(runOf(from, days), startBalance);
}
