import { type AccountScope, accountSet, compareIds } from '../ids';
import type { Account, BotReport } from '../types';
import { batchGetItems, getItem, type Item, scanAll, type Store, type TransactItem, updateItem } from './dynamodb';

/**
 * The accounts table: one item per account, holding its profile and what the bot last reported about itself
 * (`bot`). The partition key is the account id. The bot's reports are written here and nothing else is, so a
 * heartbeat never contends with the trade writes on the balances item.
 */
export function accountKey(accountId: string): Item {
  return { accountId };
}

/** The profile fields a writer may change after the account exists (the currency never changes). */
export type Profile = Pick<Account, 'name' | 'broker' | 'environment'>;

/**
 * The stored item for an account and its bot's report. A report's missing values are left out rather than stored
 * as NULL, so conditions on them (`attribute_not_exists`) mean what they say.
 */
export function accountItem(account: Account, bot: BotReport): Item {
  const { id, ...profile } = account;
  return { ...accountKey(id), ...profile, bot: storedReport(bot) };
}

function storedReport(bot: BotReport): Item {
  return Object.fromEntries(Object.entries(bot).filter(([, value]) => value !== null));
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

/** What the bot last reported, as stored on an account item. */
export function toBotReport(item: Item): BotReport {
  const bot = item.bot as Record<string, string | null | undefined>;
  return {
    state: bot.state as BotReport['state'],
    lastHeartbeatAt: bot.lastHeartbeatAt ?? null,
    strategy: bot.strategy ?? null,
    message: bot.message ?? null,
    updatedAt: bot.updatedAt as string,
  };
}

/** Reads one account item; `undefined` when the account does not exist. */
export async function getAccountItem(store: Store, accountId: string, consistent = false): Promise<Item | undefined> {
  return getItem(store, store.tables.accounts, accountKey(accountId), consistent);
}

/**
 * Reads the items of `table` (keyed by account id) of the accounts in `scope`: the whole table for `*`, otherwise
 * only those accounts by BatchGetItem, so a scoped read reads nothing it cannot return.
 */
export async function readAccountScopedItems(store: Store, table: string, scope: AccountScope): Promise<Item[]> {
  if (scope === '*') return scanAll(store, table);
  const results = await batchGetItems(store, { [table]: accountSet(scope).map(accountKey) });
  return results[table];
}

/** When the account was retired (`retiredAt`): out of the fleet's answers, its history kept; null when it is not. */
export function retiredAtOf(item: Item): string | null {
  return (item.retiredAt as string | undefined) ?? null;
}

/** The accounts in `scope`, sorted by id; retired ones left out. */
export async function listAccounts(store: Store, scope: AccountScope): Promise<Account[]> {
  const items = await readAccountScopedItems(store, store.tables.accounts, scope);
  return items
    .filter((item) => retiredAtOf(item) === null)
    .map(toAccount)
    .sort((a, b) => compareIds(a.id, b.id));
}

/** A `botRestampBy` no heartbeat reaches: a retired account's heartbeats take the cheap path and stamp nothing. */
export const NEVER_RESTAMP = '9999-12-31T23:59:59.999Z';

/**
 * Retires the account at `at`: refused when the account is missing or retired already. Its heartbeats stamp nothing
 * from then on (`botRestampBy` never comes). The balances item says the same in the same transaction
 * (balances-table), and the fleet's stamps of it go (fleet-table): a retired account is in no fleet answer.
 */
export function retire(store: Store, accountId: string, at: string): TransactItem {
  return {
    Update: {
      TableName: store.tables.accounts,
      Key: accountKey(accountId),
      UpdateExpression: 'SET retiredAt = :at, botRestampBy = :never',
      ConditionExpression: 'attribute_exists(accountId) AND attribute_not_exists(retiredAt)',
      ExpressionAttributeValues: { ':at': at, ':never': NEVER_RESTAMP },
    },
  };
}

/**
 * The condition that the account's profile and bot report are still as read (`asRead`'s values, `#name` for the
 * reserved word): a write whose fleet stamps were derived from them is refused once either changed.
 */
const AS_READ = 'bot.updatedAt = :updated AND #name = :name AND broker = :broker AND environment = :environment';

function asRead(account: Account, report: BotReport): Record<string, unknown> {
  return { ':updated': report.updatedAt, ':name': account.name, ':broker': account.broker, ':environment': account.environment };
}

/**
 * Brings a retired account back, its fleet stamps written in the same transaction from the profile and report as
 * read (`account`, `report`), vouching for heartbeats until `restampBy`; refused when it is not retired or its
 * profile or report changed since they were read.
 */
export function restore(store: Store, account: Account, report: BotReport, restampBy: string | null): TransactItem {
  return {
    Update: {
      TableName: store.tables.accounts,
      Key: accountKey(account.id),
      UpdateExpression: restampBy === null ? 'REMOVE retiredAt, botRestampBy' : 'REMOVE retiredAt SET botRestampBy = :by',
      ConditionExpression: `attribute_exists(retiredAt) AND ${AS_READ}`,
      ExpressionAttributeNames: { '#name': 'name' },
      ExpressionAttributeValues: { ...(restampBy === null ? {} : { ':by': restampBy }), ...asRead(account, report) },
    },
  };
}

/** Creates the account item; refused (its condition fails) when the account exists. */
export function createAccount(store: Store, account: Account, bot: BotReport): TransactItem {
  return {
    Put: { TableName: store.tables.accounts, Item: accountItem(account, bot), ConditionExpression: 'attribute_not_exists(accountId)' },
  };
}

/**
 * Changes an existing account's profile; refused when the account is missing, has another currency, or has been
 * retired or restored since it was read (`retired`: as read; its fleet stamps follow from that).
 */
export function updateProfile(store: Store, accountId: string, currency: string, profile: Profile, retired: boolean): TransactItem {
  return {
    Update: {
      TableName: store.tables.accounts,
      Key: accountKey(accountId),
      UpdateExpression: 'SET #name = :name, broker = :broker, environment = :environment',
      ConditionExpression: `attribute_exists(accountId) AND currency = :currency AND ${retired ? 'attribute_exists' : 'attribute_not_exists'}(retiredAt)`,
      ExpressionAttributeNames: { '#name': 'name' },
      ExpressionAttributeValues: {
        ':name': profile.name,
        ':broker': profile.broker,
        ':environment': profile.environment,
        ':currency': currency,
      },
    },
  };
}

/**
 * Stores the bot's report (a heartbeat) with the time until which its fleet stamp, written in the same transaction,
 * vouches for later heartbeats (`botRestampBy`: the heartbeat plus the stamp's window; fleet-table.ts). Refused when
 * the account is missing, or when a later heartbeat is already stored: reports that arrive out of order never turn
 * the clock back. A stored heartbeat dated after `future` (the latest time the writer accepts now) came from a clock
 * ahead, before the writer refused such times: it does not hold back the true ones. (`botStampedAt` was format 1's
 * mark: removed.)
 */
export function reportBot(
  store: Store,
  accountId: string,
  report: BotReport,
  restampBy: string,
  future: string,
  /** Whether the account is retired as the writer read it (no fleet stamp goes with the report then). */
  retired: boolean,
): TransactItem {
  return {
    Update: {
      TableName: store.tables.accounts,
      Key: accountKey(accountId),
      UpdateExpression: 'SET bot = :bot, botRestampBy = :by REMOVE botStampedAt',
      ConditionExpression:
        `attribute_exists(accountId) AND ${retired ? 'attribute_exists' : 'attribute_not_exists'}(retiredAt) AND ` +
        '(attribute_not_exists(bot.lastHeartbeatAt) OR bot.lastHeartbeatAt <= :at OR bot.lastHeartbeatAt > :future)',
      ExpressionAttributeValues: { ':bot': storedReport(report), ':at': report.lastHeartbeatAt, ':by': restampBy, ':future': future },
    },
  };
}

/**
 * Records that the fleet's stamp now carries the stored heartbeat (the backfill's stamps), vouching for later ones
 * until `restampBy`, so the writer's cheap path may skip stamping until then; refused when the report or the
 * profile changed since they were read.
 */
export function markBotStamped(store: Store, account: Account, report: BotReport, restampBy: string | null): TransactItem {
  return {
    Update: {
      TableName: store.tables.accounts,
      Key: accountKey(account.id),
      UpdateExpression: restampBy === null ? 'REMOVE botRestampBy, botStampedAt' : 'SET botRestampBy = :by REMOVE botStampedAt',
      ConditionExpression: AS_READ,
      ExpressionAttributeNames: { '#name': 'name' },
      ExpressionAttributeValues: { ...(restampBy === null ? {} : { ':by': restampBy }), ...asRead(account, report) },
    },
  };
}

/**
 * A heartbeat that changes nothing the fleet shows but its time: moves the heartbeat time alone, on condition that
 * the stored report has the same state, strategy and message, an earlier heartbeat, and a fleet stamp that still
 * vouches for this heartbeat's time (`botRestampBy` after it). False (nothing written) otherwise: the caller then
 * stores the report with a new stamp (reportBot).
 */
export async function touchHeartbeat(store: Store, accountId: string, report: BotReport): Promise<boolean> {
  const same = (name: 'strategy' | 'message') => (report[name] === null ? `attribute_not_exists(bot.#${name})` : `bot.#${name} = :${name}`);
  return updateItem(store, {
    TableName: store.tables.accounts,
    Key: accountKey(accountId),
    UpdateExpression: 'SET bot.lastHeartbeatAt = :at, bot.updatedAt = :at',
    ConditionExpression: [
      'bot.lastHeartbeatAt <= :at',
      'botRestampBy > :at',
      'bot.#state = :state',
      same('strategy'),
      same('message'),
    ].join(' AND '),
    ExpressionAttributeNames: { '#state': 'state', '#strategy': 'strategy', '#message': 'message' },
    ExpressionAttributeValues: {
      ':at': report.lastHeartbeatAt,
      ':state': report.state,
      ...(report.strategy === null ? {} : { ':strategy': report.strategy }),
      ...(report.message === null ? {} : { ':message': report.message }),
    },
  });
}
