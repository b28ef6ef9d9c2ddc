import pMap from 'p-map';
import { compareIds } from '@trading-bot-api/core/ids';
import { sumDecimals } from '@trading-bot-api/core/decimal';
import { mergePeriods, type PeriodKey, periodsPerformance, type ReadPeriod, windowPeriods } from '@trading-bot-api/core/rollups';
import { fleetPeriods } from '@trading-bot-api/core/store/fleet-table';
import { accountsByCurrency } from './currencies';
import { accountPeriods, type PeriodPartition, readPeriods, readStartBalances } from '@trading-bot-api/core/store/ledger-table';
import { type TimeWindow, timestamp } from '@trading-bot-api/core/time';
import type { AccountPerformance, AllPerformance, CurrencyPerformance } from '@trading-bot-api/core/types';
import type { Principal } from '../access';
import { CONCURRENT_READS, visibleAccount } from './series';
import { store } from '../database';
import { requireVisibleAccount } from './visible';
import { type SeriesWindow, seriesWindow } from './window';

/**
 * How well the bots trade: the performance figures of the trades closed in a window of whole UTC days (a trade counts
 * in the day it closed), per currency and per instrument (packages/core/src/performance.ts defines each figure). They
 * are read from the roll-ups the writer keeps per account and period (packages/core/src/rollups.ts): a window reads
 * its whole months, then whole blocks of a month, then its edge days, a few dozen items for a year, however many
 * trades and instruments. The fleet's are its currencies' sums, kept by the fleet projector: one currency of 2,000
 * accounts reads what one account does.
 */

/** What a summary is asked for: a window (whole UTC days) and one instrument, each optional. */
export interface PerformanceRequest extends TimeWindow {
  instrument?: string;
}

/** Without `from`, the last 90 days; at most 366 days (a leap year) in one answer. */
const DEFAULT_DAYS = 90;
const MAX_DAYS = 366;

/** The figures of `periods` in `where`, of one instrument when asked. */
async function readWindow(where: PeriodPartition, periods: readonly PeriodKey[], instrument: string | undefined): Promise<ReadPeriod[]> {
  const read = await readPeriods(store, where, periods);
  if (instrument === undefined) return read;
  return read.map((period) => ({ ...period, figures: period.figures[instrument] ? { [instrument]: period.figures[instrument] } : {} }));
}

/** Several owners' figures of the same periods, merged period by period. */
function mergeOwners(periods: readonly PeriodKey[], owners: readonly ReadPeriod[][]): ReadPeriod[] {
  return periods.map((period, i) => ({ ...period, figures: owners.reduce((sum, owner) => mergePeriods(sum, owner[i].figures), {}) }));
}

function summaryOf(currency: string, periods: readonly ReadPeriod[], startBalance: string | null): CurrencyPerformance {
  return { currency, ...periodsPerformance(periods, startBalance) };
}

/**
 * The balance the accounts had together at the window's start (what drawdown ratios are measured against: the
 * equity at a peak is it plus the realized P&L to the peak), from their daily equity points; null when none of them
 * has one (readStartBalances).
 */
async function startBalance(accountIds: readonly string[], window: SeriesWindow): Promise<Map<string, string>> {
  const found = await readStartBalances(store, accountIds, ...window.span, CONCURRENT_READS);
  return new Map([...found].map(([id, entry]) => [id, entry.balance]));
}

/** The sum of the balances of `ids` that are known; null when none is. */
function balanceOf(balances: ReadonlyMap<string, string>, ids: readonly string[]): string | null {
  const known = ids.flatMap((id) => balances.get(id) ?? []);
  return known.length ? sumDecimals(known) : null;
}

/** One account's performance over the window, in its currency. */
export async function readAccountPerformance(
  accountId: string,
  request: PerformanceRequest,
  principal: Principal,
  now: Date,
): Promise<AccountPerformance> {
  const window = seriesWindow('day', request, now, DEFAULT_DAYS, MAX_DAYS);
  requireVisibleAccount(principal, accountId);
  const periods = windowPeriods(window.starts[0], window.starts[window.starts.length - 1]);
  const [account, read, balances] = await Promise.all([
    visibleAccount(accountId),
    readWindow(accountPeriods(store, accountId), periods, request.instrument),
    startBalance([accountId], window),
  ]);
  return {
    accountId,
    from: timestamp(window.from),
    to: timestamp(window.to),
    currencies: [summaryOf(account.currency as string, read, balanceOf(balances, [accountId]))],
  };
}

/**
 * The performance of every account the key may see, one summary per currency (sorted by code): amounts in different
 * currencies are never added together, and each currency's drawdown follows the sum of its accounts' days.
 */
export async function readAllPerformance(request: PerformanceRequest, principal: Principal, now: Date): Promise<AllPerformance> {
  const window = seriesWindow('day', request, now, DEFAULT_DAYS, MAX_DAYS);
  const periods = windowPeriods(window.starts[0], window.starts[window.starts.length - 1]);
  const byCurrency = await accountsByCurrency(principal);
  const summed = principal.accounts === '*';
  const ids = [...byCurrency.values()].flat();
  const [perCurrency, balances] = await Promise.all([
    pMap(
      [...byCurrency],
      async ([currency, accountIds]) =>
        summed
          ? readWindow(fleetPeriods(store, currency), periods, request.instrument)
          : mergeOwners(
              periods,
              await pMap(accountIds, (accountId) => readWindow(accountPeriods(store, accountId), periods, request.instrument), {
                concurrency: CONCURRENT_READS,
              }),
            ),
      { concurrency: summed ? CONCURRENT_READS : 1 },
    ),
    startBalance(ids, window),
  ]);
  return {
    accounts: [...ids].sort(compareIds),
    from: timestamp(window.from),
    to: timestamp(window.to),
    currencies: [...byCurrency].map(([currency, accountIds], i) => summaryOf(currency, perCurrency[i], balanceOf(balances, accountIds))),
  };
}
