import { ALL_ACCOUNTS, requireVisibleAccount } from '../access';
import { accountKey, toBotStatus } from '../store/accounts-table';
import { balanceKey, toBalance } from '../store/balances-table';
import { config } from '../config';
import { batchGetItems } from '../store/dynamodb';
import { accountNotFound, notFound } from '../errors';
import type { AccountStatus, BotStatus, Principal } from '../types';

/**
 * The status a client sees: the bot's own report, plus whether it is stale (running, yet silent for longer than
 * the threshold, or never heard from) and how old its last heartbeat is.
 */
export function toAccountStatus(
  accountId: string,
  bot: BotStatus,
  openTradeCount: number,
  now: Date,
  staleAfterSeconds: number,
): AccountStatus {
  const heartbeatAgeSeconds =
    bot.lastHeartbeatAt === null ? null : Math.max(0, Math.floor((now.getTime() - Date.parse(bot.lastHeartbeatAt)) / 1000));
  const stale = bot.state === 'running' && (heartbeatAgeSeconds === null || heartbeatAgeSeconds > staleAfterSeconds);
  return {
    accountId,
    state: bot.state,
    stale,
    lastHeartbeatAt: bot.lastHeartbeatAt,
    heartbeatAgeSeconds,
    openTradeCount,
    lastTradeAt: bot.lastTradeAt,
    strategy: bot.strategy,
    message: bot.message,
    updatedAt: bot.updatedAt,
  };
}

/** The bot status of one account the principal may see; `all` has no status of its own. */
export async function readAccountStatus(accountId: string, principal: Principal, now: Date): Promise<AccountStatus> {
  if (accountId === ALL_ACCOUNTS) {
    throw notFound('Status is per account: ask /api/{account}/status for each account listed by /api/accounts.');
  }
  requireVisibleAccount(principal, accountId);
  // One round trip for the bot's report (accounts table) and the open trade count (balances table).
  const items = await batchGetItems({
    [config.tables.accounts]: [accountKey(accountId)],
    [config.tables.balances]: [balanceKey(accountId)],
  });
  const [account] = items[config.tables.accounts];
  const [balance] = items[config.tables.balances];
  if (!account) throw accountNotFound(accountId);
  const openTradeCount = balance ? toBalance(balance).openTradeCount : 0;
  return toAccountStatus(accountId, toBotStatus(account), openTradeCount, now, config.staleAfterSeconds);
}
