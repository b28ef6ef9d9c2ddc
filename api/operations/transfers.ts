/**
 * Deposits and withdrawals on an equity series (pure: the series operation reads them, series.ts). They are never P&L:
 * the change of NAV between two points less the later point's `transfers` is what the account earned.
 */
import { negateDecimal, sumDecimals } from '@trading-bot-api/core/decimal';
import type { AccountEquity } from '@trading-bot-api/core/types';

type EquityPoint = AccountEquity['points'][number];
type Transfer = { kind: 'deposit' | 'withdrawal'; value: string | null };

/** What a transfer moved into the account: a deposit's value, a withdrawal's taken away; null when it had no value. */
export const signedTransfer = ({ kind, value }: Transfer): string | null =>
  value === null ? null : kind === 'deposit' ? value : negateDecimal(value);

/**
 * `points` (oldest first) each marked with the net value of `transfers` (oldest first, from the window's start) after
 * the point before it and up to its own time: deposits add, withdrawals take away; null when one had no value. A
 * point after which none was recorded is left as it is.
 */
export function markTransfers(points: readonly EquityPoint[], transfers: readonly (Transfer & { time: string })[]): EquityPoint[] {
  let next = 0;
  return points.map((point) => {
    const moved: (string | null)[] = [];
    for (; next < transfers.length && transfers[next].time <= point.time; next++) moved.push(signedTransfer(transfers[next]));
    if (!moved.length) return point;
    return { ...point, transfers: moved.includes(null) ? null : sumDecimals(moved as string[]) };
  });
}
