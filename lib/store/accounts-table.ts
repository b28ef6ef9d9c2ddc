import { accountSet, compareIds } from '../access';
import { config } from '../config';
import { batchGetItems, getItem, type Item, scanAll } from './dynamodb';
import type { Account, BotStatus, Principal } from '../types';

/**
 * Keys of the accounts table (one item per account: its profile and what the bot last reported about itself).
 * The partition key is the account id.
 */
export function accountKey(accountId: string): Item {
  return { accountId };
}

/** The stored item for an account and its bot status. */
export function accountItem(account: Account, bot: BotStatus): Item {
  const { id, ...profile } = account;
  return { ...accountKey(id), ...profile, bot };
}

/** The API shape of a stored account. */
export function toAccount(item: Item): Account {
  return {
    id: item.accountId as string,
    name: item.name as string,
    currency: item.currency as string,
    broker: item.broker as string,
    environment: item.environment as Account['environment'],
    createdAt: item.createdAt as string,
  };
}

/** The bot status stored on an account item. */
export function toBotStatus(item: Item): BotStatus {
  const bot = item.bot as Record<string, string | null | undefined>;
  return {
    state: bot.state as BotStatus['state'],
    lastHeartbeatAt: bot.lastHeartbeatAt ?? null,
    lastTradeAt: bot.lastTradeAt ?? null,
    strategy: bot.strategy ?? null,
    message: bot.message ?? null,
    updatedAt: bot.updatedAt as string,
  };
}

/** Reads one account item; `undefined` when the account does not exist. */
export async function getAccountItem(accountId: string): Promise<Item | undefined> {
  return getItem(config.tables.accounts, accountKey(accountId));
}

/**
 * Reads the items of `table` (keyed by account id) that `principal` may see: the whole table for `*`,
 * otherwise only the key's accounts by BatchGetItem, so a scoped key reads nothing it cannot return.
 */
export async function readAccountScopedItems(table: string, principal: Principal): Promise<Item[]> {
  if (principal.accounts === '*') return scanAll(table);
  const results = await batchGetItems({ [table]: accountSet(principal.accounts).map(accountKey) });
  return results[table];
}

/** Accounts `principal` may see, sorted by id. */
export async function listAccounts(principal: Principal): Promise<Account[]> {
  const items = await readAccountScopedItems(config.tables.accounts, principal);
  return items.map(toAccount).sort((a, b) => compareIds(a.id, b.id));
}
