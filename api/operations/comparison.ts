import pMap from 'p-map';
import { negateDecimal } from '@trading-bot-api/core/decimal';
import { realizedSince, returnRatio } from '@trading-bot-api/core/comparison';
import { windowPeriods, periodsPerformance, type ReadPeriod } from '@trading-bot-api/core/rollups';
import { ASPECTS } from '@trading-bot-api/core/fleet';
import { toBotReport } from '@trading-bot-api/core/store/accounts-table';
import { toBalanceRecord } from '@trading-bot-api/core/store/balances-table';
import type { Item } from '@trading-bot-api/core/store/dynamodb';
import { readVersion } from '@trading-bot-api/core/store/fleet-table';
import { accountPeriods, type EquityEntry, readPeriods, readStartBalances, readTransfers } from '@trading-bot-api/core/store/ledger-table';
import { timestamp } from '@trading-bot-api/core/time';
import type { Comparison, ComparisonRow } from '@trading-bot-api/core/types';
import type { Principal } from '../access';
import { store } from '../database';
import { tagged, tagOf } from './fleet-tags';
import { CONCURRENT_READS } from './series';
import { readStatusItems } from './status';
import { type Held, unlessHeld, type Validated } from './validated';
import { type SeriesWindow, seriesWindow } from './window';

/**
 * Every visible bot side by side (`GET /api/all/comparison`) over the last 30 UTC days: each account's items as the
 * fleet status reads them, its roll-ups of the window (the performance figures and the days' nets), its equity at the
 * window's start and its transfers since (packages/core/src/comparison.ts computes the rest). For a key that sees
 * every account the tag is made of the fleet's versions and the day, so an unchanged poll reads three small items.
 */

const DAYS = 30;

/** The day (`YYYY-MM-DD`) `back` days before the window's last. */
const dayBefore = (window: SeriesWindow, back: number) => timestamp(window.starts[window.starts.length - 1 - back]).slice(0, 10);

function rowOf(
  window: SeriesWindow,
  account: Item,
  balance: Item | undefined,
  periods: readonly ReadPeriod[],
  start: EquityEntry | undefined,
  transfers: readonly (string | null)[],
): ComparisonRow {
  const held = balance ? toBalanceRecord(balance) : undefined;
  const nav = held ? held.nav : null;
  const figures = periodsPerformance(periods, start?.balance ?? null);
  return {
    accountId: String(account.accountId),
    name: String(account.name),
    currency: String(account.currency),
    state: toBotReport(account).state,
    nav,
    returnRatio: returnRatio(start?.nav ?? null, nav, transfers),
    realizedPL: {
      today: realizedSince(periods, dayBefore(window, 0)),
      last7Days: realizedSince(periods, dayBefore(window, 6)),
      last30Days: realizedSince(periods, dayBefore(window, DAYS - 1)),
    },
    closedTrades: figures.closedTrades,
    winRate: figures.winRate,
    profitFactor: figures.profitFactor,
    maxDrawdown: figures.maxDrawdown,
    openTradeCount: held?.openTradeCount ?? 0,
  };
}

async function readRows(principal: Principal, now: Date, window: SeriesWindow, consistent: boolean): Promise<ComparisonRow[]> {
  const items = await readStatusItems(principal, consistent);
  const ids = items.accounts.map((account) => String(account.accountId));
  const periods = windowPeriods(window.starts[0], window.starts[window.starts.length - 1]);
  const [figures, starts] = await Promise.all([
    pMap(ids, (id) => readPeriods(store, accountPeriods(store, id), periods), { concurrency: CONCURRENT_READS }),
    readStartBalances(store, ids, timestamp(window.starts[0]), timestamp(window.starts[window.starts.length - 1]), CONCURRENT_READS),
  ]);
  // Money moved after the start's snapshot; none is read for an account without one (its return is unknown anyway).
  const transfers = await pMap(
    ids,
    async (id) => {
      const start = starts.get(id);
      if (!start) return [];
      const moved = await readTransfers(store, id, start.time, now.toISOString());
      return moved
        .filter((each) => each.time > start.time)
        .map((each) => (each.value === null ? null : each.kind === 'deposit' ? each.value : negateDecimal(each.value)));
    },
    { concurrency: CONCURRENT_READS },
  );
  return items.accounts.map((account, i) =>
    rowOf(window, account, items.balances.get(ids[i]), figures[i], starts.get(ids[i]), transfers[i]),
  );
}

/** Every account the principal may see, side by side; none when `held` says the client has it already. */
export async function readComparison(principal: Principal, now: Date, held: Held): Promise<Validated<Comparison>> {
  const window = seriesWindow('day', {}, now, DAYS, DAYS);
  const answer = (accounts: ComparisonRow[]): Comparison => ({
    from: timestamp(window.from),
    to: timestamp(window.to),
    asOf: now.toISOString(),
    accounts,
  });
  if (principal.accounts !== '*') {
    const rows = await readRows(principal, now, window, false);
    return tagged(tagOf('comparison', [window.from, rows]), held, answer(rows));
  }
  const versions = await Promise.all(ASPECTS.map((aspect) => readVersion(store, aspect)));
  const tag = tagOf('comparison', [window.from, versions]);
  return (await unlessHeld(tag, held, () => readRows(principal, now, window, true))).map(answer);
}
