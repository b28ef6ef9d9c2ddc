import { decimalSign, divideDecimals, negateDecimal, sumDecimals } from './decimal';
import { RATIO_PLACES } from './performance';
import type { ReadPeriod } from './rollups';

/**
 * The bots compared side by side (`GET /api/all/comparison`), pure: what a window's roll-ups say of the days it
 * ends with, and the return over it. The operation (api/operations/comparison.ts) reads what these are given.
 */

/**
 * The realized P&L of the trades closed on the days from `firstDay` (`YYYY-MM-DD`) on, from a window's periods
 * (rollups.ts: each instrument's net per day of the period's month): exact, `0` with none.
 */
export function realizedSince(periods: readonly ReadPeriod[], firstDay: string): string {
  const nets: string[] = [];
  for (const period of periods) {
    const month = period.start.slice(0, 8);
    for (const figures of Object.values(period.figures))
      for (const [day, net] of Object.entries(figures.nets)) if (`${month}${day}` >= firstDay) nets.push(net);
  }
  return nets.length ? sumDecimals(nets) : '0';
}

/**
 * The return over a window: what the account earned (its NAV now, less its equity at the window's start, less the
 * money moved in since: deposits count, withdrawals are negative) on its equity at the start, 4 places half-even.
 * Null when it cannot be known: no equity at the start or none above zero, no NAV now, or a transfer whose value in
 * the account's currency is unknown.
 */
export function returnRatio(startEquity: string | null, nav: string | null, transfers: readonly (string | null)[]): string | null {
  if (startEquity === null || nav === null || decimalSign(startEquity) <= 0 || transfers.includes(null)) return null;
  const earned = sumDecimals([nav, negateDecimal(startEquity), ...transfers.map((moved) => negateDecimal(moved!))]);
  return divideDecimals(earned, startEquity, RATIO_PLACES);
}
