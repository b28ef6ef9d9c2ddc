/**
 * The balance history an import implies (`npm run import -- --opening-balance AMOUNT`): the account starts with
 * AMOUNT when its first imported trade opens, and each UTC day with closes ends with AMOUNT plus the realized P&L of
 * every close up to then. One snapshot per such day, at its last close, so the equity series has a point a day and
 * the balance ends where the history leaves it. Open trades' unrealized P&L at past dates is not known: it is 0.
 *
 * Kept as sums per day while rows stream by, so memory grows with the days of the history, not its trades.
 */
import { sumDecimals } from '@trading-bot-api/core/decimal';
import type { Trade } from '@trading-bot-api/core/types';
import type { Snapshot } from '@trading-bot-api/writer';

export class EquityHistory {
  private firstOpen?: string;
  private readonly days = new Map<string, { realized: string; lastClose: string }>();

  /** Counts a trade the import wrote or found stored. */
  add(trade: Pick<Trade, 'openTime' | 'closeTime' | 'realizedPL' | 'status'>): void {
    // As the writer stores them (rows may leave out the milliseconds).
    const openTime = new Date(trade.openTime).toISOString();
    if (this.firstOpen === undefined || openTime < this.firstOpen) this.firstOpen = openTime;
    if (trade.status !== 'closed' || !trade.closeTime) return;
    const closeTime = new Date(trade.closeTime).toISOString();
    const day = closeTime.slice(0, 10);
    const seen = this.days.get(day);
    this.days.set(day, {
      realized: sumDecimals([seen?.realized ?? '0', trade.realizedPL]),
      lastClose: seen && seen.lastClose > closeTime ? seen.lastClose : closeTime,
    });
  }

  /** The snapshots, oldest first, for an account that opened with `opening`. */
  snapshots(opening: string): Snapshot[] {
    if (this.firstOpen === undefined) return [];
    const at = (balance: string, time: string) => ({
      balance,
      unrealizedPL: '0',
      nav: balance,
      marginUsed: '0',
      marginAvailable: balance,
      time,
    });
    const out = [at(sumDecimals([opening]), this.firstOpen)];
    let balance = opening;
    for (const day of [...this.days.keys()].sort()) {
      const { realized, lastClose } = this.days.get(day)!;
      balance = sumDecimals([balance, realized]);
      // A trade closing in the very millisecond the first one opened: one snapshot for that moment, the later figures.
      if (lastClose === out[out.length - 1].time) out.pop();
      out.push(at(balance, lastClose));
    }
    return out;
  }
}
