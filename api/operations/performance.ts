import { compareIds } from '@trading-bot-api/core/ids';
import { sumDecimals } from '@trading-bot-api/core/decimal';
import { accountNotFound } from '../errors';
import { type DayFigures, windowPerformance } from '@trading-bot-api/core/performance';
import { getAccountItem, readAccountScopedItems } from '@trading-bot-api/core/store/accounts-table';
import { readFleetStats, SHARDS, statsComplete, statsParts } from '@trading-bot-api/core/store/fleet-table';
import { readStartBalances, readStatsEntries } from '@trading-bot-api/core/store/ledger-table';
import { type TimeWindow, timestamp } from '@trading-bot-api/core/time';
import type { AccountPerformance, AllPerformance, CurrencyPerformance } from '@trading-bot-api/core/types';
import type { Principal } from '../access';
import { CONCURRENT_READS, mapLimited } from './series';
import { store } from '../database';
import { requireVisibleAccount } from './visible';
import { type SeriesWindow, seriesWindow } from './window';

/**
 * How well the bots trade: the performance figures of the trades closed in a window of whole UTC days (a trade counts
 * in the day it closed), per currency and per instrument (packages/core/src/performance.ts defines each figure). They
 * are read from the statistics the writer keeps per account, day and instrument: a window reads one item per day and
 * instrument traded, however many trades closed in it.
 */

/** What a summary is asked for: a window (whole UTC days) and one instrument, each optional. */
export interface PerformanceRequest extends TimeWindow {
  instrument?: string;
}

/** Without `from`, the last 90 days; at most 366 days (a leap year) in one answer. */
const DEFAULT_DAYS = 90;
const MAX_DAYS = 366;

/** Where a window's statistics are read: an account's own (ledger), or a part of the fleet's (fleet table). */
type Owner = { accountId: string } | { fleetPart: string };

/** The days of the statistics of `owner` in the window, of one instrument when asked. */
async function daysOf(owner: Owner, window: SeriesWindow, instrument: string | undefined): Promise<DayFigures[]> {
  const first = timestamp(window.starts[0]);
  const last = timestamp(window.starts[window.starts.length - 1]);
  const entries =
    'accountId' in owner
      ? await readStatsEntries(store, owner.accountId, first, last)
      : await readFleetStats(store, owner.fleetPart, first, last);
  return instrument === undefined ? entries : entries.filter((entry) => entry.instrument === instrument);
}

function summaryOf(currency: string, from: number, days: readonly DayFigures[], startBalance: string | null): CurrencyPerformance {
  return { currency, ...windowPerformance(timestamp(from), days, startBalance) };
}

/**
 * The balance the accounts had together at the window's start (what drawdown ratios are measured against: the
 * equity at a peak is it plus the realized P&L to the peak), from their daily equity points; null when none of them
 * has one (readStartBalances).
 */
async function startBalance(accountIds: readonly string[], window: SeriesWindow): Promise<Map<string, string>> {
  const found = await readStartBalances(
    store,
    accountIds,
    timestamp(window.starts[0]),
    timestamp(window.starts[window.starts.length - 1]),
    CONCURRENT_READS,
  );
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
  const [account, days, balances] = await Promise.all([
    getAccountItem(store, accountId),
    daysOf({ accountId }, window, request.instrument),
    startBalance([accountId], window),
  ]);
  if (!account) throw accountNotFound(accountId);
  return {
    accountId,
    from: timestamp(window.from),
    to: timestamp(window.to),
    currencies: [summaryOf(account.currency as string, window.from, days, balanceOf(balances, [accountId]))],
  };
}

/**
 * The performance of every account the key may see, one summary per currency (sorted by code): amounts in different
 * currencies are never added together, and each currency's drawdown follows the sum of its accounts' days.
 */
export async function readAllPerformance(request: PerformanceRequest, principal: Principal, now: Date): Promise<AllPerformance> {
  const window = seriesWindow('day', request, now, DEFAULT_DAYS, MAX_DAYS);
  const accounts = await readAccountScopedItems(store, store.tables.accounts, principal.accounts);
  const idsBy = new Map<string, string[]>();
  for (const account of accounts) {
    const ids = idsBy.get(account.currency as string) ?? [];
    ids.push(account.accountId as string);
    idsBy.set(account.currency as string, ids);
  }
  const currencies = [...idsBy.keys()].sort(compareIds);
  // A currency with more accounts than shards reads its SHARDS parts of the fleet's statistics instead, once the
  // fleet's meta item says they are complete; they hold every account's trades, so only for a key that sees every
  // account.
  const large = (currency: string) => idsBy.get(currency)!.length > SHARDS;
  const summed = principal.accounts === '*' && currencies.some(large) && (await statsComplete(store));
  const owners = currencies.flatMap((currency) =>
    (summed && large(currency)
      ? statsParts(currency).map((fleetPart): Owner => ({ fleetPart }))
      : idsBy.get(currency)!.map((accountId): Owner => ({ accountId }))
    ).map((owner) => ({ currency, owner })),
  );
  const [perOwner, balances] = await Promise.all([
    mapLimited(owners, CONCURRENT_READS, async ({ currency, owner }) => ({
      currency,
      days: await daysOf(owner, window, request.instrument),
    })),
    startBalance(
      accounts.map((account) => account.accountId as string),
      window,
    ),
  ]);
  return {
    accounts: accounts.map((account) => account.accountId as string).sort(compareIds),
    from: timestamp(window.from),
    to: timestamp(window.to),
    currencies: currencies.map((currency) =>
      summaryOf(
        currency,
        window.from,
        perOwner.filter((entry) => entry.currency === currency).flatMap((entry) => entry.days),
        balanceOf(balances, idsBy.get(currency)!),
      ),
    ),
  };
}
