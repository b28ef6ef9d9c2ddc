/**
 * Deposits and withdrawals on an equity series (pure: the series operation reads them, series.ts). They are never P&L:
 * the change of NAV between two points less the later point's `transfers` is what the account earned.
 */
import { negateDecimal, sumDecimals } from '@trading-bot-api/core/decimal';
import type { AccountEquity } from '@trading-bot-api/core/types';

type EquityPoint = AccountEquity['points'][number];

/**
 * `points` (oldest first) each marked with the net value of `transfers` (oldest first, from the window's start) after
 * the point before it and up to its own time: deposits add, withdrawals take away; null when one had no value. A
 * point after which none was recorded is left as it is.
 */
export function markTransfers(
  points: readonly EquityPoint[],
  transfers: readonly { time: string; kind: 'deposit' | 'withdrawal'; value: string | null }[],
): EquityPoint[] {
  let next = 0;
  return points.map((point) => {
    const moved: (string | null)[] = [];
    for (; next < transfers.length && transfers[next].time <= point.time; next++) {
      const { kind, value } = transfers[next];
      moved.push(value === null ? null : kind === 'deposit' ? value : negateDecimal(value));
    }
    if (!moved.length) return point;
    return { ...point, transfers: moved.includes(null) ? null : sumDecimals(moved as string[]) };
  });
}
