import { isStale } from '@trading-bot-api/core/fleet';
import type { AccountStatus, BotReport, FleetSummary } from '@trading-bot-api/core/types';

/**
 * The status a client sees: the bot's own report, plus whether it is stale (the one rule: packages/core/src/fleet.ts)
 * and how old its last heartbeat is; the open trade count and the time of the latest trade come from the balances
 * item, where the writer keeps them.
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
  return {
    accountId,
    state: bot.state,
    stale: isStale(bot, now.getTime(), staleAfterSeconds),
    lastHeartbeatAt: bot.lastHeartbeatAt,
    heartbeatAgeSeconds: sinceMs === null ? null : Math.max(0, Math.floor(sinceMs / 1000)),
    openTradeCount: trades.openTradeCount,
    lastTradeAt: trades.lastTradeAt,
    strategy: bot.strategy,
    message: bot.message,
    updatedAt: bot.updatedAt,
    stateSince: bot.stateSince ?? null,
    lastError: bot.lastError ?? null,
    retiredAt,
  };
}

/** Counts the statuses by state, a stale bot as stale and not as running (API 1.7): the counts add up to the total. */
export function summarize(statuses: readonly AccountStatus[]): FleetSummary {
  const summary: FleetSummary = { total: statuses.length, running: 0, paused: 0, stopped: 0, error: 0, stale: 0 };
  for (const status of statuses) summary[status.stale ? 'stale' : status.state] += 1;
  return summary;
}
