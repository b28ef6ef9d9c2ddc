/**
 * The API's documented behaviour written independently of the service's code, for comparing what the service returns
 * with what it should return.
 */
import {
  compareDecimals,
  decimalSign,
  divideDecimals,
  formatDecimal,
  negateDecimal,
  sumDecimals,
  trimDecimal,
} from '@trading-bot-api/core/decimal';
import type { PerformanceFigures, Trade } from '@trading-bot-api/core/types';

/** Newest openTime first, then id descending (as strings), then accountId descending. */
export function compareNewestFirst(a: Trade, b: Trade): number {
  if (a.openTime !== b.openTime) return a.openTime < b.openTime ? 1 : -1;
  if (a.id !== b.id) return a.id < b.id ? 1 : -1;
  if (a.accountId !== b.accountId) return a.accountId < b.accountId ? 1 : -1;
  return 0;
}

/** The trades a listing must return, in order. */
export function expectedTrades(
  trades: readonly Trade[],
  filter: { accountId?: string; accounts?: readonly string[]; status?: string; instrument?: string },
): Trade[] {
  return trades
    .filter((t) => filter.accountId === undefined || t.accountId === filter.accountId)
    .filter((t) => filter.accounts === undefined || filter.accounts.includes(t.accountId))
    .filter((t) => filter.status === undefined || t.status === filter.status)
    .filter((t) => filter.instrument === undefined || t.instrument === filter.instrument)
    .sort(compareNewestFirst);
}

/** The exact sum of decimal strings, keeping the largest number of decimal places among them. */
export function exactSum(values: readonly string[]): string {
  const scale = Math.max(0, ...values.map((value) => (value.split('.')[1] ?? '').length));
  const units = values.reduce((sum, value) => {
    const [whole, fraction = ''] = value.replace('-', '').split('.');
    const magnitude = BigInt(whole + fraction.padEnd(scale, '0'));
    return sum + (value.startsWith('-') ? -magnitude : magnitude);
  }, 0n);
  const digits = (units < 0n ? -units : units).toString().padStart(scale + 1, '0');
  const text = scale ? `${digits.slice(0, -scale)}.${digits.slice(-scale)}` : digits;
  return units < 0n ? `-${text}` : text;
}

/** The start of the UTC day, ISO week (Monday) or month holding a time, as a stored time. */
export function periodStartOf(time: string, period: 'day' | 'week' | 'month'): string {
  const date = new Date(time);
  date.setUTCHours(0, 0, 0, 0);
  if (period === 'week') date.setUTCDate(date.getUTCDate() - ((date.getUTCDay() + 6) % 7));
  if (period === 'month') date.setUTCDate(1);
  return date.toISOString();
}

/** Each result's outcome, or its error's code and message: compared with a list of outcomes, a failure shows which. */
export function outcomes(results: readonly ({ outcome: string } | { error: { code: string; message: string } })[]): string[] {
  return results.map((result) => ('outcome' in result ? result.outcome : `${result.error.code}: ${result.error.message}`));
}

const DAY_MS = 86_400_000;

/** Equal P&L: the earlier close first, then the smaller id, then the smaller account id. */
function tieOrder(a: Trade, b: Trade): number {
  if (a.closeTime !== b.closeTime) return a.closeTime! < b.closeTime! ? -1 : 1;
  if (a.id !== b.id) return a.id < b.id ? -1 : 1;
  return a.accountId < b.accountId ? -1 : 1;
}

/** The figures of `group`, recomputed one trade at a time with no aggregate in between. */
function expectedFigures(from: string, group: readonly Trade[], startBalance: string | null): PerformanceFigures {
  const wins = group.filter((t) => decimalSign(t.realizedPL) > 0);
  const losses = group.filter((t) => decimalSign(t.realizedPL) < 0);
  // Every amount with the most places of any trade's P&L: sums of zero-padded values have exactly those places.
  const places = Math.max(...['0', ...group.map((t) => t.realizedPL)].map((v) => v.split('.')[1]?.length ?? 0));
  const zero = formatDecimal(0n, places);
  const grossProfit = sumDecimals([zero, ...wins.map((t) => t.realizedPL)]);
  const grossLoss = sumDecimals([zero, ...losses.map((t) => t.realizedPL)]);
  const net = sumDecimals([grossProfit, grossLoss]);
  const ranked = [...group].sort((a, b) => compareDecimals(b.realizedPL, a.realizedPL) || tieOrder(a, b));
  const lowest = [...group].sort((a, b) => compareDecimals(a.realizedPL, b.realizedPL) || tieOrder(a, b));
  const held = group.map((t) => BigInt(Date.parse(t.closeTime!) - Date.parse(t.openTime)));
  const n = group.length;
  // Fees (API 1.5): those in each trade's own currency (the figures' currency is its account's), of the trades whose
  // fees are known; the others counted.
  const known = group.filter((t) => t.fees !== null);
  const paid = known.flatMap((t) => t.fees!.filter((fee) => fee.currency === t.currency).map((fee) => fee.amount));
  return {
    closedTrades: n,
    wins: wins.length,
    losses: losses.length,
    breakEvens: n - wins.length - losses.length,
    winRate: n ? divideDecimals(String(wins.length), String(n), 4) : null,
    grossProfit,
    grossLoss,
    netRealizedPL: net,
    profitFactor: losses.length ? divideDecimals(grossProfit, negateDecimal(grossLoss), 4) : null,
    expectancy: n ? divideDecimals(net, String(n), places) : null,
    averageWin: wins.length ? divideDecimals(grossProfit, String(wins.length), places) : null,
    averageLoss: losses.length ? divideDecimals(grossLoss, String(losses.length), places) : null,
    bestTrade: n ? { accountId: ranked[0].accountId, id: ranked[0].id, realizedPL: ranked[0].realizedPL } : null,
    worstTrade: n ? { accountId: lowest[0].accountId, id: lowest[0].id, realizedPL: lowest[0].realizedPL } : null,
    averageHoldingSeconds: n ? Number(divideDecimals(String(held.reduce((a, b) => a + b, 0n)), String(n * 1000), 0)) : null,
    longestHoldingSeconds: n ? Number(divideDecimals(String(held.reduce((a, b) => (b > a ? b : a), 0n)), '1000', 0)) : null,
    maxDrawdown: expectedDrawdown(from, group, zero, startBalance),
    feesPaid: trimDecimal(sumDecimals(['0', ...paid])),
    tradesWithUnknownFees: n - known.length,
    tradesWithOtherCurrencyFees: known.filter((t) => t.fees!.some((fee) => fee.currency !== t.currency)).length,
  };
}

/**
 * The largest fall of realized equity, end of day to end of day, found by trying every pair of days; its ratio
 * against the equity at the peak (the balance at `from` plus the realized P&L to the peak).
 */
function expectedDrawdown(
  from: string,
  group: readonly Trade[],
  zero: string,
  startBalance: string | null,
): PerformanceFigures['maxDrawdown'] {
  const ends = [...new Set(group.map((t) => Math.floor(Date.parse(t.closeTime!) / DAY_MS) * DAY_MS + DAY_MS))].sort((a, b) => a - b);
  const equityAt = (end: number) => sumDecimals(['0', ...group.filter((t) => Date.parse(t.closeTime!) < end).map((t) => t.realizedPL)]);
  const points = [{ at: Date.parse(from), equity: '0' }, ...ends.map((end) => ({ at: end, equity: equityAt(end) }))];
  let best = { amount: zero, ratio: null as string | null, start: null as string | null, end: null as string | null };
  for (let j = 1; j < points.length; j++) {
    // The first highest point before j is the peak it fell from.
    const peak = points.slice(0, j).reduce((high, point) => (compareDecimals(point.equity, high.equity) > 0 ? point : high));
    const fall = sumDecimals([zero, peak.equity, negateDecimal(points[j].equity)]);
    if (compareDecimals(fall, best.amount) > 0) {
      best = {
        amount: fall,
        ratio:
          startBalance !== null && decimalSign(sumDecimals([startBalance, peak.equity])) > 0
            ? divideDecimals(fall, sumDecimals([startBalance, peak.equity]), 4)
            : null,
        start: new Date(peak.at).toISOString(),
        end: new Date(points[j].at).toISOString(),
      };
    }
  }
  return best;
}

/**
 * The performance of closed trades over a window starting at `from`, recomputed from the trades themselves (no
 * aggregate in between): overall, and per instrument sorted by net realized P&L (highest first, then by name).
 */
export function expectedPerformance(
  from: string,
  trades: readonly Trade[],
  /** The balance at `from` that drawdown ratios are measured against (expectedStartBalance); null when unknown. */
  startBalance: string | null = null,
): PerformanceFigures & { instruments: (PerformanceFigures & { instrument: string })[] } {
  const instruments = [...new Set(trades.map((t) => t.instrument))]
    .map((instrument) => ({
      instrument,
      ...expectedFigures(
        from,
        trades.filter((t) => t.instrument === instrument),
        startBalance,
      ),
    }))
    .sort((a, b) => compareDecimals(b.netRealizedPL, a.netRealizedPL) || (a.instrument < b.instrument ? -1 : 1));
  return { ...expectedFigures(from, trades, startBalance), instruments };
}

/**
 * An account's balance at the start of a window, from its daily equity series as the API lists it (`points`, oldest
 * first): the last point before `from`, or else the first before `to`; null when there is none.
 */
export function expectedStartBalance(points: readonly { time: string; balance: string }[], from: string, to: string): string | null {
  const before = points.filter((point) => point.time < from).at(-1);
  return (before ?? points.find((point) => point.time < to))?.balance ?? null;
}
