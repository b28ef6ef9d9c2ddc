/**
 * The daily digest's shape and its words (digest.ts gathers the figures): pure, so the commands and tests render it
 * without a database, and each figure shows as the API wrote it.
 */
import { decimalSign } from '@trading-bot-api/core/decimal';
import type { buildDigest } from './digest';
import { type AlertEvent, botLabel, percentOf, span, utcMinute } from './events';

/** The digest's figures (digest.ts's buildDigest; its fields' notes are there). */
export type Digest = Awaited<ReturnType<typeof buildDigest>>;

/** An amount with its sign: `+12.50`, `−3.75` (a true minus), `0`. */
export function signed(amount: string): string {
  const sign = decimalSign(amount);
  return sign > 0 ? `+${amount}` : sign < 0 ? `−${amount.slice(1)}` : amount;
}

/** The trades closed and their win rate: `3 trades closed, win rate 66.67 %`; with none, `no trade closed` (no rate). */
function closed(count: number, winRate: string | null): string {
  if (!count || winRate === null) return 'no trade closed';
  return `${count} trade${count === 1 ? '' : 's'} closed, win rate ${percentOf(winRate)}`;
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
      `  Yesterday: ${signed(day.realizedPL)} realized, ${closed(day.tradesClosed, day.winRate)}`,
      `  7 days (${digest.weekFrom} to ${digest.day}): ${signed(week.realizedPL)} realized, ${closed(week.tradesClosed, week.winRate)}`,
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
        `  Stale: ${botLabel(entry)}, ${entry.lastHeartbeatAt === null ? 'never heard from' : `silent for ${span(entry.heartbeatAgeSeconds ?? 0)}, since ${utcMinute(entry.lastHeartbeatAt)}: its figures are as of then`}`,
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
