/**
 * The daily digest: per currency, yesterday's and the last 7 days' realized P&L, closed trades and win rate, the
 * best and worst bot of the day, and the bots in error, stale or stopped. Its figures are the API's own answers, from
 * the same operations with the same windows (so they cannot disagree with the dashboard):
 *
 * - yesterday's P&L, trades, wins and losses: `/api/all/pnl?period=day&from=<day−6>&to=<day+1>`, its last point;
 * - yesterday's win rate: `/api/all/performance?from=<day>&to=<day+1>`;
 * - the 7 days' net P&L, closed trades and win rate: `/api/all/performance?from=<day−6>&to=<day+1>`;
 * - each bot's day, for the best and worst: `/api/{account}/pnl?period=day&from=<day>&to=<day+1>`;
 * - the bots needing attention: `/api/all/status` (retired accounts are not in the fleet).
 *
 * "Yesterday" is the last whole UTC day before `now`. Amounts are the API's exact decimal strings, never floats; a win
 * rate shows as a percentage by moving its decimal point, exactly.
 */
import { compareIds, EVERYONE } from '../access';
import { compareDecimals, decimalSign } from '../decimal';
import { readAccountScopedItems } from '../store/accounts-table';
import { readAllPerformance } from '../operations/performance';
import { mapLimited, readAccountPnl, readAllPnl } from '../operations/series';
import { fleetStatusOf } from '../operations/status';
import { store } from '../operations/store';
import type { AccountStatus } from '../types';
import { type AlertEvent, botLabel, span, utcMinute } from './events';

const DAY_MS = 86_400_000;

export interface DigestBot {
  accountId: string;
  accountName: string;
}

export interface DigestCurrency {
  currency: string;
  accountCount: number;
  /** Yesterday: P&L, trades, wins and losses from /api/all/pnl; the win rate from /api/all/performance. */
  day: { realizedPL: string; tradesClosed: number; wins: number; losses: number; winRate: string | null };
  /** The last 7 days (yesterday and the 6 before), from /api/all/performance. */
  week: { realizedPL: string; tradesClosed: number; winRate: string | null };
  /** Of the bots that closed a trade yesterday, the highest and the lowest realized P&L (null: none did). */
  best: (DigestBot & { realizedPL: string }) | null;
  worst: (DigestBot & { realizedPL: string }) | null;
}

export interface Digest {
  /** Yesterday, `YYYY-MM-DD` (UTC). */
  day: string;
  /** The first day of the 7, `YYYY-MM-DD`. */
  weekFrom: string;
  currencies: DigestCurrency[];
  bots: number;
  attention: {
    error: (DigestBot & { message: string | null })[];
    stale: (DigestBot & { heartbeatAgeSeconds: number | null })[];
    stopped: (DigestBot & { since: string | null })[];
  };
}

/** The digest of the day before `now`. */
export async function buildDigest(now: Date): Promise<Digest> {
  const today = Math.floor(now.getTime() / DAY_MS) * DAY_MS;
  const day = today - DAY_MS;
  const weekFrom = today - 7 * DAY_MS;
  const [pnl, dayPerformance, weekPerformance, accounts, fleet] = await Promise.all([
    readAllPnl({ period: 'day', from: weekFrom, to: today }, EVERYONE, now),
    readAllPerformance({ from: day, to: today }, EVERYONE, now),
    readAllPerformance({ from: weekFrom, to: today }, EVERYONE, now),
    readAccountScopedItems(store, store.tables.accounts, EVERYONE),
    fleetStatusOf(EVERYONE, now),
  ]);
  const names = new Map(accounts.map((item) => [item.accountId as string, String(item.name ?? item.accountId)]));
  const bot = (accountId: string): DigestBot => ({ accountId, accountName: names.get(accountId) ?? accountId });
  // Each account's day, as /api/{account}/pnl answers it: the best and worst bot come from these.
  const perAccount = await mapLimited(accounts, 16, async (item) => {
    const series = await readAccountPnl(item.accountId as string, { period: 'day', from: day, to: today }, EVERYONE, now);
    return { accountId: series.accountId, currency: series.currency, point: series.points[0] };
  });
  const currencies = pnl.series.map((series): DigestCurrency => {
    const last = series.points[series.points.length - 1];
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
      day: {
        realizedPL: last.realizedPL,
        tradesClosed: last.tradesClosed,
        wins: last.wins,
        losses: last.losses,
        winRate: ofDay?.winRate ?? null,
      },
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
      })),
      stopped: withState((status) => status.state === 'stopped').map((status) => ({
        ...bot(status.accountId),
        since: status.lastHeartbeatAt,
      })),
    },
  };
}

function isoDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** An amount with its sign: `+12.50`, `−3.75` (a true minus), `0`. */
export function signed(amount: string): string {
  const sign = decimalSign(amount);
  return sign > 0 ? `+${amount}` : sign < 0 ? `−${amount.slice(1)}` : amount;
}

/** A ratio of 4 places as a percentage, by moving its point two places: `0.5833` → `58.33 %`, exactly. */
export function percent(ratio: string | null): string {
  if (ratio === null) return 'no trades';
  const [whole, fraction = ''] = ratio.split('.');
  const digits = `${whole}${fraction.padEnd(2, '0')}`;
  const head = digits.slice(0, whole.length + 2).replace(/^0+(?=\d)/, '');
  const tail = fraction.slice(2).replace(/0+$/, '');
  return `${head}${tail ? `.${tail}` : ''} %`;
}

const WEEKDAY = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

/** The digest as an event: its text for a person, its figures as they are for the webhook. */
export function digestEvent(digest: Digest, stage: string, time: string, digestHourUtc: number | undefined): AlertEvent {
  const weekday = WEEKDAY[new Date(`${digest.day}T00:00:00Z`).getUTCDay()];
  const title = `[${stage}] 📊 Daily digest for ${weekday} ${digest.day} (UTC)`;
  const lines: string[] = [title];
  if (!digest.currencies.length) lines.push('No accounts.');
  for (const entry of digest.currencies) {
    const { day, week } = entry;
    lines.push(
      `${entry.currency} (${entry.accountCount} account${entry.accountCount === 1 ? '' : 's'})`,
      `  Yesterday: ${signed(day.realizedPL)} realized, ${day.tradesClosed} trade${day.tradesClosed === 1 ? '' : 's'} closed, win rate ${percent(day.winRate)}`,
      `  7 days (${digest.weekFrom} to ${digest.day}): ${signed(week.realizedPL)} realized, ${week.tradesClosed} trade${week.tradesClosed === 1 ? '' : 's'} closed, win rate ${percent(week.winRate)}`,
    );
    if (entry.best && entry.worst)
      lines.push(
        `  Best bot: ${botLabel(entry.best)} ${signed(entry.best.realizedPL)}; worst: ${botLabel(entry.worst)} ${signed(entry.worst.realizedPL)}`,
      );
    else if (entry.best) lines.push(`  Only bot that closed a trade: ${botLabel(entry.best)} ${signed(entry.best.realizedPL)}`);
  }
  const { error, stale, stopped } = digest.attention;
  if (!error.length && !stale.length && !stopped.length) lines.push(`Bots: all ${digest.bots} running or paused, none stale.`);
  else {
    lines.push(`Bots needing attention (of ${digest.bots}): ${error.length} in error, ${stale.length} stale, ${stopped.length} stopped`);
    for (const entry of error) lines.push(`  In error: ${botLabel(entry)}${entry.message ? `: ${entry.message}` : ''}`);
    for (const entry of stale)
      lines.push(
        `  Stale: ${botLabel(entry)}, ${entry.heartbeatAgeSeconds === null ? 'never heard from' : `silent for ${span(entry.heartbeatAgeSeconds)}`}`,
      );
    for (const entry of stopped) lines.push(`  Stopped: ${botLabel(entry)}${entry.since ? ` since ${utcMinute(entry.since)}` : ''}`);
  }
  lines.push(
    digestHourUtc === undefined
      ? 'Sent on demand (npm run digest).'
      : `This digest comes every day at ${String(digestHourUtc).padStart(2, '0')}:00 UTC: if it does not, the alerts are not running.`,
  );
  return { type: 'digest', id: `${stage}:digest:${digest.day}`, stage, time, title, text: lines.join('\n'), digest };
}
