/**
 * The daily digest: per currency, yesterday's and the last 7 days' realized P&L, closed trades and win rate, the
 * best and worst bot of the day, and the bots in error, stale or stopped. Its figures are the API's own answers, from
 * the same operations with the same windows (so they cannot disagree with the dashboard):
 *
 * - yesterday's P&L, trades, wins and losses: `/api/all/pnl?period=day&from=<day−6>&to=<day+1>`, its last point;
 * - yesterday's win rate: `/api/all/performance?from=<day>&to=<day+1>`;
 * - the 7 days' net P&L, closed trades and win rate: `/api/all/performance?from=<day−6>&to=<day+1>`;
 * - each bot's day, for the best and worst: `/api/{account}/pnl?period=day&from=<day>&to=<day+1>`;
 * - the bots needing attention: `/api/all/status` (retired accounts are not in the fleet); a stopped bot since its
 *   first report of `stopped` (`stateSince`), a stale one with its last heartbeat, as of which its figures stand.
 *
 * "Yesterday" is the last whole UTC day before `now`. Amounts are the API's exact decimal strings, never floats; a win
 * rate shows as a percentage by moving its decimal point, exactly.
 */
import pMap from 'p-map';
import { compareIds } from '@trading-bot-api/core/ids';
import { EVERYONE } from '../access';
import { compareDecimals } from '@trading-bot-api/core/decimal';
import { readAccountRecords } from '@trading-bot-api/core/store/accounts-table';
import { readAllPerformance } from '../operations/performance';
import { readAccountPnl, readAllPnl } from '../operations/series';
import { fleetStatusOf } from '../operations/status';
import { store } from '../database';
import type { AccountStatus } from '@trading-bot-api/core/types';
import type { BotRef } from './events';

const DAY_MS = 86_400_000;

/**
 * The digest of the day before `now`: `day` (yesterday) and `weekFrom` (the first day of the 7), `YYYY-MM-DD` (UTC);
 * per currency, `day` (yesterday: P&L, trades, wins and losses from /api/all/pnl; the win rate from
 * /api/all/performance), `week` (the last 7 days, yesterday and the 6 before, from /api/all/performance), and `best`
 * and `worst` (of the bots that closed a trade yesterday, the highest and the lowest realized P&L; null: none did).
 */
export async function buildDigest(now: Date) {
  const today = Math.floor(now.getTime() / DAY_MS) * DAY_MS;
  const day = today - DAY_MS;
  const weekFrom = today - 7 * DAY_MS;
  const [pnl, dayPerformance, weekPerformance, accounts, fleet] = await Promise.all([
    readAllPnl({ period: 'day', from: weekFrom, to: today }, EVERYONE, now),
    readAllPerformance({ from: day, to: today }, EVERYONE, now),
    readAllPerformance({ from: weekFrom, to: today }, EVERYONE, now),
    readAccountRecords(store, EVERYONE.accounts),
    fleetStatusOf(EVERYONE, now),
  ]);
  const names = new Map(accounts.map(({ account }) => [account.id, account.name]));
  const bot = (accountId: string): BotRef => ({ accountId, accountName: names.get(accountId) ?? accountId });
  // Each account's day, as /api/{account}/pnl answers it: the best and worst bot come from these.
  const perAccount = await pMap(
    accounts,
    async ({ account }) => {
      const series = await readAccountPnl(account.id, { period: 'day', from: day, to: today }, EVERYONE, now);
      return { accountId: series.accountId, currency: series.currency, point: series.points[0] };
    },
    { concurrency: 16 },
  );
  const currencies = pnl.series.map((series) => {
    const { start: _, ...dayCounts } = series.points[series.points.length - 1];
    const ofDay = dayPerformance.currencies.find((entry) => entry.currency === series.currency);
    const ofWeek = weekPerformance.currencies.find((entry) => entry.currency === series.currency);
    const traded = perAccount
      .filter((entry) => entry.currency === series.currency && entry.point.tradesClosed > 0)
      .sort((a, b) => compareDecimals(b.point.realizedPL, a.point.realizedPL) || compareIds(a.accountId, b.accountId));
    const mark = (entry: (typeof traded)[number] | undefined) =>
      entry ? { ...bot(entry.accountId), realizedPL: entry.point.realizedPL } : null;
    return {
      currency: series.currency,
      accountCount: series.accountCount,
      day: { ...dayCounts, winRate: ofDay?.winRate ?? null },
      week: { realizedPL: ofWeek?.netRealizedPL ?? '0', tradesClosed: ofWeek?.closedTrades ?? 0, winRate: ofWeek?.winRate ?? null },
      best: mark(traded[0]),
      worst: traded.length > 1 ? mark(traded[traded.length - 1]) : null,
    };
  });
  const withState = (state: (status: AccountStatus) => boolean) => fleet.accounts.filter(state);
  return {
    day: isoDay(day),
    weekFrom: isoDay(weekFrom),
    currencies,
    bots: fleet.summary.total,
    attention: {
      error: withState((status) => status.state === 'error').map((status) => ({ ...bot(status.accountId), message: status.message })),
      stale: withState((status) => status.stale).map((status) => ({
        ...bot(status.accountId),
        heartbeatAgeSeconds: status.heartbeatAgeSeconds,
        lastHeartbeatAt: status.lastHeartbeatAt,
      })),
      stopped: withState((status) => status.state === 'stopped').map((status) => ({
        ...bot(status.accountId),
        since: status.stateSince,
      })),
    },
  };
}

function isoDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}
