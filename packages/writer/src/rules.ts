/**
 * The bookkeeping rules the read API relies on, as pure functions from what is stored to what must be stored next:
 * - an account's `openTradeCount` is the number of its open trades;
 * - its `realizedPL` is the exact sum of its closed trades' `realizedPL`, and each close adds to `balance` too;
 * - each P&L aggregate (UTC day, ISO week, month) is the exact sum over the trades closed in it, with the count of
 *   trades closed, wins (`realizedPL` > 0) and losses (< 0);
 * - `lastTradeAt` is the latest time a trade opened or closed; `updatedAt` the latest change to the figures.
 * Amounts are summed as decimal strings (BigInt), never as JS numbers.
 */
import { decimalSign, negateDecimal, sumDecimals } from '@trading-bot-api/core/decimal';
import type { BalanceRecord } from '@trading-bot-api/core/store/balances-table';
import { type PeriodKey, periodId, periodsOfClose, withTrades } from '@trading-bot-api/core/rollups';
import type { EquityEntry, PeriodEntry, PnlEntry } from '@trading-bot-api/core/store/ledger-table';
import { type Interval, INTERVALS, type Period, PERIODS, periodStart, timestamp } from '@trading-bot-api/core/time';
import type { Trade } from '@trading-bot-api/core/types';
import type { Snapshot } from './validate';

/**
 * What happens to a trade: it opens, closes (having been open), is recorded closed from the start (a history) or
 * closes after it was gone (neither counted open), or is gone from the bot (it leaves the open count and moves no
 * figure: its outcome is unknown).
 */
export type TradeEvent = { kind: 'opened' | 'closed' | 'recordedClosed' | 'gone'; trade: Trade };

function later(a: string | null, b: string): string {
  return a === null || b > a ? b : a;
}

/** The balance record after `events`, with its version incremented. */
export function balanceAfter(record: BalanceRecord, events: readonly TradeEvent[]): BalanceRecord {
  let { openTradeCount, lastTradeAt, updatedAt } = record;
  const realized: string[] = [];
  for (const { kind, trade } of events) {
    if (kind === 'gone') {
      // Not a trade of the bot's: the open count moves, nothing else (lastTradeAt is when the bot last traded).
      openTradeCount -= 1;
      continue;
    }
    if (kind === 'opened') {
      openTradeCount += 1;
      lastTradeAt = later(lastTradeAt, trade.openTime);
    } else {
      if (kind === 'closed') openTradeCount -= 1;
      realized.push(trade.realizedPL);
      lastTradeAt = later(lastTradeAt, trade.closeTime!);
    }
    updatedAt = later(updatedAt, lastTradeAt!);
  }
  return {
    ...record,
    openTradeCount,
    realizedPL: realized.length ? sumDecimals([record.realizedPL, ...realized]) : record.realizedPL,
    balance: realized.length ? sumDecimals([record.balance, ...realized]) : record.balance,
    lastTradeAt,
    updatedAt,
    version: record.version + 1,
  };
}

/**
 * The balance record after a closed trade was corrected from `was` to `now` (its source corrected its record), given
 * the account's closed trades as they now are: the realized P&L is their sum again (exact, with their places, as
 * the closes made it); the balance moves by the difference only when the trade closed after the latest snapshot,
 * which then could not count it (a later snapshot holds the broker's true balance already).
 */
export function balanceAfterCorrection(record: BalanceRecord, was: Trade, now: Trade, closed: readonly Trade[]): BalanceRecord {
  const difference = sumDecimals([now.realizedPL, negateDecimal(was.realizedPL)]);
  const countedByClose = record.snapshotAt === null || was.closeTime! > record.snapshotAt;
  const lastTradeAt = later(record.lastTradeAt, now.closeTime!);
  return {
    ...record,
    realizedPL: sumDecimals(['0', ...closed.filter((trade) => trade.status === 'closed').map((trade) => trade.realizedPL)]),
    balance: countedByClose ? sumDecimals([record.balance, difference]) : record.balance,
    lastTradeAt,
    updatedAt: later(record.updatedAt, lastTradeAt),
    version: record.version + 1,
  };
}

/** The balance record after a broker snapshot: the broker's figures; the trade figures the writer keeps stay. */
export function balanceAfterSnapshot(record: BalanceRecord, snapshot: Snapshot, future?: string): BalanceRecord {
  // A stored time after `future` came from a clock ahead: it is not kept as the latest.
  const updatedAt = future !== undefined && record.updatedAt > future ? snapshot.time : later(record.updatedAt, snapshot.time);
  const { time, ...figures } = snapshot;
  return { ...record, ...figures, snapshotAt: time, updatedAt, version: record.version + 1 };
}

/** The key of a P&L aggregate among others of the same account: its period and start. */
export function pnlId(key: { period: string; start: string }): string {
  return `${key.period}#${key.start}`;
}

/** The P&L periods (day, week, month) a trade closed at `closeTime` counts in. */
export function pnlPeriodsOf(closeTime: string): { period: Period; start: string }[] {
  const at = Date.parse(closeTime);
  return PERIODS.map((period) => ({ period, start: timestamp(periodStart(at, period)) }));
}

/**
 * The aggregates after the trades in `closed` are counted: one entry per period they touch, starting from the
 * stored entry (`stored`, by period and start) or from zero, its version incremented.
 */
export function aggregatesAfter(accountId: string, stored: readonly PnlEntry[], closed: readonly Trade[]): PnlEntry[] {
  const entries = new Map<string, PnlEntry>();
  const find = (period: Period, start: string) => stored.find((entry) => entry.period === period && entry.start === start);
  for (const trade of closed) {
    const sign = decimalSign(trade.realizedPL);
    for (const { period, start } of pnlPeriodsOf(trade.closeTime!)) {
      const key = pnlId({ period, start });
      const base = entries.get(key) ??
        find(period, start) ?? { accountId, period, start, realizedPL: '0', tradesClosed: 0, wins: 0, losses: 0, version: 0 };
      const touched = entries.has(key) ? base : { ...base, version: base.version + 1 };
      entries.set(key, {
        ...touched,
        realizedPL: sumDecimals([touched.realizedPL, trade.realizedPL]),
        tradesClosed: touched.tradesClosed + 1,
        wins: touched.wins + (sign > 0 ? 1 : 0),
        losses: touched.losses + (sign < 0 ? 1 : 0),
      });
    }
  }
  return [...entries.values()];
}

/** The periods of the performance roll-ups (day, block, month) the trades in `closed` count in, each once. */
export function periodKeysOf(closed: readonly Trade[]): PeriodKey[] {
  return [...new Map(closed.flatMap((trade) => periodsOfClose(trade.closeTime!)).map((key) => [periodId(key), key])).values()];
}

/**
 * The performance roll-ups after the trades in `closed` are counted (packages/core/src/rollups.ts): one entry per
 * period they touch, starting from the stored entry or from no trades, its version incremented once. `currency` is
 * the account's, which the fees paid are counted in.
 */
export function periodsAfter(accountId: string, currency: string, stored: readonly PeriodEntry[], closed: readonly Trade[]): PeriodEntry[] {
  const touched = new Map<string, { key: PeriodKey; trades: (Trade & { closeTime: string })[] }>();
  for (const trade of closed) {
    for (const key of periodsOfClose(trade.closeTime!)) {
      const id = periodId(key);
      const period = touched.get(id) ?? { key, trades: [] };
      period.trades.push({ ...trade, closeTime: trade.closeTime! });
      touched.set(id, period);
    }
  }
  return [...touched].map(([id, { key, trades }]) => {
    const held = stored.find((entry) => periodId(entry) === id);
    return { accountId, ...key, figures: withTrades(held?.figures ?? {}, trades, currency), version: (held?.version ?? 0) + 1 };
  });
}

/**
 * The P&L aggregates of `periods` and the roll-ups of `rollups` recomputed from `trades` (the account's closed trades,
 * any periods): what aggregatesAfter and periodsAfter would have made of them from nothing, each in place of the
 * entry `stored` (its version incremented). A period no trade counts in any more keeps its aggregate, at 0, and has no
 * roll-up (undefined). For a corrected trade, whose former figures a sum cannot take out without keeping their places,
 * nor a merge undo a best or worst trade (its best, worst and places may have been another's).
 */
export function figuresRecomputed(
  accountId: string,
  currency: string,
  keys: { periods: readonly { period: Period; start: string }[]; rollups: readonly PeriodKey[] },
  trades: readonly Trade[],
  stored: { pnl: readonly PnlEntry[]; perf: readonly PeriodEntry[] },
): { pnl: PnlEntry[]; perf: (PeriodEntry | undefined)[] } {
  const pnlIds = new Set(keys.periods.map(pnlId));
  const perfIds = new Set(keys.rollups.map(periodId));
  const closed = trades.filter((trade) => trade.status === 'closed');
  const inPnl = closed.filter((trade) => pnlPeriodsOf(trade.closeTime!).some((key) => pnlIds.has(pnlId(key))));
  const inPerf = closed.filter((trade) => periodsOfClose(trade.closeTime!).some((key) => perfIds.has(periodId(key))));
  const pnl = aggregatesAfter(accountId, [], inPnl);
  const perf = periodsAfter(accountId, currency, [], inPerf);
  return {
    pnl: keys.periods.map((key) => ({
      ...(pnl.find((entry) => pnlId(entry) === pnlId(key)) ?? { accountId, ...key, realizedPL: '0', tradesClosed: 0, wins: 0, losses: 0 }),
      version: (stored.pnl.find((entry) => pnlId(entry) === pnlId(key))?.version ?? 0) + 1,
    })),
    perf: keys.rollups.map((key) => {
      const entry = perf.find((candidate) => periodId(candidate) === periodId(key));
      return entry && { ...entry, version: (stored.perf.find((held) => periodId(held) === periodId(key))?.version ?? 0) + 1 };
    }),
  };
}

/** The equity buckets (hour, day) a snapshot is the latest of, as entries. */
export function equityEntriesOf(accountId: string, snapshot: Snapshot): EquityEntry[] {
  const at = Date.parse(snapshot.time);
  return INTERVALS.map((interval: Interval) => ({
    accountId,
    interval,
    start: timestamp(periodStart(at, interval)),
    time: snapshot.time,
    balance: snapshot.balance,
    nav: snapshot.nav,
    unrealizedPL: snapshot.unrealizedPL,
  }));
}
