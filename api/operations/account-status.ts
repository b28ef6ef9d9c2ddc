import { MAX_CLOCK_AHEAD_MS } from '@trading-bot-api/core/time';
import type { AccountStatus, BotReport, FleetSummary } from '@trading-bot-api/core/types';

/**
 * The status a client sees: the bot's own report, plus whether it is stale (running, yet silent for longer than
 * the threshold, or never heard from) and how old its last heartbeat is; the open trade count and the time of the
 * latest trade come from the balances item, where the writer keeps them.
 */
export function toAccountStatus(
  accountId: string,
  bot: BotReport,
  trades: { openTradeCount: number; lastTradeAt: string | null },
  now: Date,
  staleAfterSeconds: number,
  retiredAt: string | null = null,
): AccountStatus {
  const sinceMs = bot.lastHeartbeatAt === null ? null : now.getTime() - Date.parse(bot.lastHeartbeatAt);
  const heartbeatAgeSeconds = sinceMs === null ? null : Math.max(0, Math.floor(sinceMs / 1000));
  // A heartbeat dated further ahead than a clock may drift is not believed (packages/core/src/time.ts): it vouches
  // for nothing.
  const unbelievable = sinceMs !== null && -sinceMs > MAX_CLOCK_AHEAD_MS;
  const stale = bot.state === 'running' && (heartbeatAgeSeconds === null || heartbeatAgeSeconds > staleAfterSeconds || unbelievable);
  return {
    accountId,
    state: bot.state,
    stale,
    lastHeartbeatAt: bot.lastHeartbeatAt,
    heartbeatAgeSeconds,
    openTradeCount: trades.openTradeCount,
    lastTradeAt: trades.lastTradeAt,
    strategy: bot.strategy,
    message: bot.message,
    updatedAt: bot.updatedAt,
    retiredAt,
  };
}

/** Counts the statuses by state, and the stale ones. */
export function summarize(statuses: readonly AccountStatus[]): FleetSummary {
  const summary: FleetSummary = { total: statuses.length, running: 0, paused: 0, stopped: 0, error: 0, stale: 0 };
  for (const status of statuses) {
    summary[status.state] += 1;
    if (status.stale) summary.stale += 1;
  }
  return summary;
}
