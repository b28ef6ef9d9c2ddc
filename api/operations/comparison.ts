import pMap from 'p-map';
import { realizedSince, returnRatio } from '@trading-bot-api/core/comparison';
import { windowPeriods, periodsPerformance, type ReadPeriod } from '@trading-bot-api/core/rollups';
import { ASPECTS } from '@trading-bot-api/core/fleet';
import { hasTransfers, toBotReport } from '@trading-bot-api/core/store/accounts-table';
import { type BalanceRecord, toBalanceRecord } from '@trading-bot-api/core/store/balances-table';
import type { Item } from '@trading-bot-api/core/store/dynamodb';
import { readVersions } from '@trading-bot-api/core/store/fleet-table';
import { type EquityEntry, readPeriodsOfAccounts, readShortWindowStarts, readTransfers } from '@trading-bot-api/core/store/ledger-table';
import { timestamp } from '@trading-bot-api/core/time';
import type { Comparison, ComparisonRow } from '@trading-bot-api/core/types';
import type { Principal } from '../access';
import { store } from '../database';
import { tagged, tagOf } from './fleet-tags';
import { readHeld } from './held';
import { readStatusItems } from './status';
import { signedTransfer } from './transfers';
import { type Held, unlessHeld, type Validated } from './validated';
import { type SeriesWindow, seriesWindow } from './window';

/**
 * Every visible bot side by side (`GET /api/all/comparison`) over the last 30 UTC days: each account's items as the
 * fleet status reads them, its roll-ups of the window (the performance figures and the days' nets), its equity at the
 * window's start and its transfers since (packages/core/src/comparison.ts computes the rest). For a key that sees
 * every account the tag is made of the fleet's versions and the day, so an unchanged poll reads three small items; a
 * changed one reads the status's items and, from the window, only what moved since this instance read it (below).
 * Before that, every changed poll read every bot's window: at 1,000 bots some 4,000 requests, past the function's
 * 10 s timeout (a 500; `npm run bench -- --only fleet`).
 */

const DAYS = 30;

/** The day (`YYYY-MM-DD`) `back` days before the window's last. */
const dayBefore = (window: SeriesWindow, back: number) => timestamp(window.starts[window.starts.length - 1 - back]).slice(0, 10);

/** What a row draws from its account's roll-ups: its figures over the window and its realized P&L of three spans. */
type WindowFigures = Pick<ComparisonRow, 'realizedPL' | 'closedTrades' | 'winRate' | 'profitFactor' | 'maxDrawdown'>;

/**
 * The figures last drawn from each held roll-ups array, under the window's last day and the balance at its start.
 * readHeld keeps an account's array while its trades have not moved, so a changed poll computes the figures of the
 * accounts that moved only: computing every account's took some 3.5 of the 7 ms of a warm poll of 20 bots, more than
 * its reads (`npm run bench -- --only queries --operations all-comparison`, docs/performance.md).
 */
const drawn = new WeakMap<readonly ReadPeriod[], { key: string; figures: WindowFigures }>();

function windowFigures(window: SeriesWindow, periods: readonly ReadPeriod[], startBalance: string | null): WindowFigures {
  const key = `${dayBefore(window, 0)} ${startBalance}`;
  const held = drawn.get(periods);
  if (held?.key === key) return held.figures;
  const { closedTrades, winRate, profitFactor, maxDrawdown } = periodsPerformance(periods, startBalance);
  const figures = {
    realizedPL: {
      today: realizedSince(periods, dayBefore(window, 0)),
      last7Days: realizedSince(periods, dayBefore(window, 6)),
      last30Days: realizedSince(periods, dayBefore(window, DAYS - 1)),
    },
    closedTrades,
    winRate,
    profitFactor,
    maxDrawdown,
  };
  drawn.set(periods, { key, figures });
  return figures;
}

function rowOf(
  window: SeriesWindow,
  account: Item,
  held: BalanceRecord | undefined,
  periods: readonly ReadPeriod[],
  start: EquityEntry | undefined,
  transfers: readonly (string | null)[],
): ComparisonRow {
  const nav = held ? held.nav : null;
  const { realizedPL, ...figures } = windowFigures(window, periods, start?.balance ?? null);
  return {
    accountId: String(account.accountId),
    name: String(account.name),
    currency: String(account.currency),
    state: toBotReport(account).state,
    nav,
    returnRatio: returnRatio(start?.nav ?? null, nav, transfers),
    realizedPL,
    ...figures,
    openTradeCount: held?.openTradeCount ?? 0,
  };
}

/** Requests in flight at once where this instance holds nothing for the accounts (a cold instance, a new day). */
const CONCURRENCY = 16;

/**
 * What this instance read of each account's window, and under what, so that a changed poll reads again only the
 * accounts that changed (as the scrape does, metrics.ts): the roll-ups under the window's first day and the account's
 * trade activity (its last trade's time and realized P&L, on its balances item, which the writer rewrites in every
 * transaction that closes a trade); its equity at the start under that day, and its transfers since under the
 * balances item's version and the account's mark too (deposits and withdrawals show with the balance recorded with
 * or after them, as the answer's tag says).
 */
const periodsHeld = new Map<string, { stamp: string; value: ReadPeriod[] }>();
const startsHeld = new Map<string, { stamp: string; value: { start: EquityEntry | undefined; transfers: (string | null)[] } }>();

async function readRows(principal: Principal, now: Date, window: SeriesWindow, consistent: boolean): Promise<ComparisonRow[]> {
  const items = await readStatusItems(principal, consistent);
  const ids = items.accounts.map((account) => String(account.accountId));
  const day = timestamp(window.starts[0]);
  const records = new Map(ids.map((id) => [id, items.balances.get(id) && toBalanceRecord(items.balances.get(id)!)]));
  const withTransfers = new Set(items.accounts.filter(hasTransfers).map((account) => String(account.accountId)));
  const periods = windowPeriods(window.starts[0], window.starts[window.starts.length - 1]);
  // Equity at the start moves only with the day (or, for an account with none yet, with a new snapshot).
  const startOfDay = (id: string) => (startsHeld.get(id)?.stamp.startsWith(`${day} `) ? startsHeld.get(id)?.value.start : undefined);
  const [periodsOf, startsOf] = await Promise.all([
    readHeld(
      periodsHeld,
      ids,
      (id) => `${day} ${records.get(id)?.lastTradeAt ?? ''} ${records.get(id)?.realizedPL ?? ''}`,
      async (stale) => {
        // A bot whose last trade opened or closed before the window closed none in it: its roll-ups there are empty, unread.
        const traded = stale.filter((id) => (records.get(id)?.lastTradeAt ?? '') >= day);
        const read = await readPeriodsOfAccounts(store, traded, periods, CONCURRENCY);
        return stale.map((id) => [id, read.get(id) ?? periods.map((period) => ({ ...period, figures: {} }))] as const);
      },
    ),
    readHeld(
      startsHeld,
      ids,
      (id) => `${day} ${records.get(id)?.version ?? -1} ${withTransfers.has(id)}`,
      async (stale) => {
        const needStart = stale.filter((id) => !startOfDay(id));
        const end = timestamp(window.starts[window.starts.length - 1]);
        const starts = await readShortWindowStarts(store, needStart, day, end, DAYS, CONCURRENCY);
        // Money moved after the start's snapshot; none is read for an account without one (its return is unknown
        // anyway), nor for one whose item says it has none (markTransfers): at 1,000 bots, 1,000 Queries fewer.
        const read = async (id: string) => {
          const start = startOfDay(id) ?? starts.get(id);
          const moved = start && withTransfers.has(id) ? await readTransfers(store, id, start.time, now.toISOString()) : [];
          return [id, { start, transfers: moved.filter((each) => each.time > start!.time).map(signedTransfer) }] as const;
        };
        return pMap(stale, read, { concurrency: CONCURRENCY });
      },
    ),
  ]);
  return items.accounts.map((account, i) => {
    const { start, transfers } = startsOf.get(ids[i])!;
    return rowOf(window, account, records.get(ids[i]), periodsOf.get(ids[i])!, start, transfers);
  });
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
  const versions = await readVersions(store, ASPECTS);
  const tag = tagOf('comparison', [window.from, versions]);
  return (await unlessHeld(tag, held, () => readRows(principal, now, window, true))).map(answer);
}
