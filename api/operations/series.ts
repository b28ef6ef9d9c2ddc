import pMap from 'p-map';
import { sumDecimals } from '@trading-bot-api/core/decimal';
import { accountNotFound } from '../errors';
import { getAccountItem } from '@trading-bot-api/core/store/accounts-table';
import { readFleetPnl } from '@trading-bot-api/core/store/fleet-table';
import { accountsByCurrency } from './currencies';
import type { Item } from '@trading-bot-api/core/store/dynamodb';
import { readEntries, readRatesHistory, readTransfers } from '@trading-bot-api/core/store/ledger-table';
import { reportingOfSeries } from '@trading-bot-api/core/reporting';
import { config } from '../config';
import { type Interval, type Period, type TimeWindow, timestamp } from '@trading-bot-api/core/time';
import type { AccountEquity, AccountPnl, AllPnl, PnlPoint } from '@trading-bot-api/core/types';
import type { Principal } from '../access';
import { store } from '../database';
import { type SeriesWindow, seriesWindow } from './window';
import { requireVisibleAccount } from './visible';
import { markTransfers } from './transfers';

/**
 * The P&L and equity series. Each is read from the aggregates the writer keeps in the ledger table (one item per
 * period or interval and account), so a series costs what it returns, however many trades or snapshots went into it.
 */

/** What a P&L series is asked for: a period (day by default) and a window, both optional. */
export interface PnlRequest extends TimeWindow {
  period?: Period;
}

/** What an equity series is asked for: an interval (hour by default) and a window, both optional. */
export interface EquityRequest extends TimeWindow {
  interval?: Interval;
}

/** The series' windows, in whole periods: how many by default, and at most. */
const PNL_DEFAULT_POINTS: Record<Period, number> = { day: 30, week: 12, month: 12 };
const PNL_MAX_POINTS = 366;
/** Equity defaults: the last 7 days of hours, the last 90 days. */
const EQUITY_DEFAULT_POINTS: Record<Interval, number> = { hour: 7 * 24, day: 90 };
const EQUITY_MAX_POINTS = 1000;
/** Accounts whose series are read at once (each one Query) for the all-accounts series. */
export const CONCURRENT_READS = 16;

const ZERO_POINT = { realizedPL: '0', tradesClosed: 0, wins: 0, losses: 0 };

/** A point per period of the window, from the aggregates there are (a period without one: zero), oldest first. */
function zeroFilled(window: SeriesWindow, entries: readonly (PnlPoint & { start: string })[]): PnlPoint[] {
  const byStart = new Map(entries.map((entry) => [entry.start, entry]));
  return window.starts.map(timestamp).map((start) => {
    const { realizedPL, tradesClosed, wins, losses } = byStart.get(start) ?? ZERO_POINT;
    return { start, realizedPL, tradesClosed, wins, losses };
  });
}

/** An account's P&L points over the window, zero-filled, oldest first. */
async function pnlPoints(accountId: string, period: Period, window: SeriesWindow): Promise<PnlPoint[]> {
  return zeroFilled(window, await readEntries(store, accountId, 'pnl', period, window.span, window.starts.length));
}

/** The account item of an account (checked visible first): its currency, and a 404 when there is none. */
export async function visibleAccount(accountId: string): Promise<Item> {
  const account = await getAccountItem(store, accountId);
  if (!account) throw accountNotFound(accountId);
  return account;
}

/** One account's realized P&L per period. */
export async function readAccountPnl(accountId: string, query: PnlRequest, principal: Principal, now: Date): Promise<AccountPnl> {
  const period = query.period ?? 'day';
  const window = seriesWindow(period, query, now, PNL_DEFAULT_POINTS[period], PNL_MAX_POINTS);
  requireVisibleAccount(principal, accountId);
  const [account, points] = await Promise.all([visibleAccount(accountId), pnlPoints(accountId, period, window)]);
  return { accountId, currency: account.currency as string, period, from: timestamp(window.from), to: timestamp(window.to), points };
}

/** Points of several series of the same periods, summed period by period. */
function sumPoints(series: readonly PnlPoint[][]): PnlPoint[] {
  return series[0].map((point, i) => {
    const same = series.map((points) => points[i]);
    return {
      start: point.start,
      realizedPL: sumDecimals(same.map((each) => each.realizedPL)),
      tradesClosed: same.reduce((sum, each) => sum + each.tradesClosed, 0),
      wins: same.reduce((sum, each) => sum + each.wins, 0),
      losses: same.reduce((sum, each) => sum + each.losses, 0),
    };
  });
}

/**
 * The realized P&L of every visible account, one series per currency (sorted by code): each point sums the
 * accounts' points of that period exactly, and amounts in different currencies are never added together. For a key
 * that sees every account, the points are the sums the fleet projector keeps per period, every currency's in one item
 * (one Query, whatever the number of accounts and currencies); for a key that sees some, its accounts' own.
 */
export async function readAllPnl(query: PnlRequest, principal: Principal, now: Date): Promise<AllPnl> {
  const period = query.period ?? 'day';
  const window = seriesWindow(period, query, now, PNL_DEFAULT_POINTS[period], PNL_MAX_POINTS);
  const byCurrency = await accountsByCurrency(principal);
  const summed = principal.accounts === '*';
  // The fleet's: one key range holding every currency's points.
  const fleet = summed ? await readFleetPnl(store, period, ...window.span) : [];
  const series = await pMap(
    [...byCurrency],
    async ([currency, accountIds]) => ({
      currency,
      accountCount: accountIds.length,
      points: summed
        ? zeroFilled(
            window,
            fleet.flatMap(({ start, currencies }) => (currencies[currency] ? [{ start, ...currencies[currency] }] : [])),
          )
        : sumPoints(await pMap(accountIds, (accountId) => pnlPoints(accountId, period, window), { concurrency: CONCURRENT_READS })),
    }),
    { concurrency: 1 },
  );
  return { period, from: timestamp(window.from), to: timestamp(window.to), series };
}

/**
 * One account's equity: the last snapshot of each interval in the window that has one, oldest first. A point after
 * which deposits or withdrawals were recorded (since the point before it; the first point, since the window's start)
 * carries `transfers`, their net value in the account's currency (null when one had no rate), so that a return over
 * the series can leave the money moved out. With a reporting currency configured, each point carries its NAV in it
 * at the prices of the point's own interval (core's reporting.ts).
 */
export async function readAccountEquity(accountId: string, query: EquityRequest, principal: Principal, now: Date): Promise<AccountEquity> {
  const interval = query.interval ?? 'hour';
  const window = seriesWindow(interval, query, now, EQUITY_DEFAULT_POINTS[interval], EQUITY_MAX_POINTS);
  requireVisibleAccount(principal, accountId);
  const reporting = config.reportingCurrency;
  const [account, entries, transfers, history] = await Promise.all([
    visibleAccount(accountId),
    readEntries(store, accountId, 'equity', interval, window.span, window.starts.length),
    readTransfers(store, accountId, window.span[0], timestamp(window.to)),
    reporting ? readRatesHistory(store, interval, window.span) : [],
  ]);
  const currency = account.currency as string;
  const valued = reporting ? reportingOfSeries(reporting, currency, entries, history) : [];
  const points = markTransfers(
    entries.map(({ time, balance, nav, unrealizedPL }, i) => ({
      time,
      balance,
      nav,
      unrealizedPL,
      ...(reporting ? { reporting: valued[i] } : {}),
    })),
    transfers,
  );
  return { accountId, currency, interval, from: timestamp(window.from), to: timestamp(window.to), points };
}
