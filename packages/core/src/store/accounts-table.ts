import type { AccountFacts } from '../fleet';
import { type AccountScope, accountSet, compareIds } from '../ids';
import type { Account, BotReport } from '../types';
import { batchGetItems, getItem, type Item, scanAll, type Store, type TransactItem, updateItem, withoutNulls } from './dynamodb';
import { reader, text } from './items';

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
function accountItem(account: Account, bot: BotReport): Item {
  const { id, ...profile } = account;
  const { stateSince, lastError, ...report } = bot;
  return { ...accountKey(id), ...profile, bot: withoutNulls(report) };
}

/** The API shape of a stored account. */
export const toAccount = reader<Account>({
  id: (_, item) => item.accountId as string,
  name: text,
  currency: text,
  broker: text,
  environment: text,
  createdAt: text,
});

/** What the bot last reported, as stored on an account item. */
export function toBotReport(item: Item): BotReport {
  const bot = item.bot as Record<string, string | null | undefined>;
  return {
    state: bot.state as BotReport['state'],
    lastHeartbeatAt: bot.lastHeartbeatAt ?? null,
    strategy: bot.strategy ?? null,
    message: bot.message ?? null,
    updatedAt: bot.updatedAt as string,
    stateSince: bot.stateSince ?? null,
    lastError: bot.lastErrorAt ? { message: bot.lastErrorMessage ?? null, at: bot.lastErrorAt } : null,
  };
}

/**
 * An account as stored: its profile, what its bot last reported, and when it was retired (null: in the fleet); the
 * same facts the fleet's rules read.
 */
export type AccountRecord = AccountFacts;

function toAccountRecord(item: Item): AccountRecord {
  return { account: toAccount(item), bot: toBotReport(item), retiredAt: retiredAtOf(item) };
}

/** One account as stored; `undefined` when it does not exist. */
export async function getAccountRecord(store: Store, accountId: string, consistent = false): Promise<AccountRecord | undefined> {
  const item = await getAccountItem(store, accountId, consistent);
  return item && toAccountRecord(item);
}

/** The accounts in `scope` as stored, retired ones included, in no order (the whole table for `*`). */
export async function readAccountRecords(store: Store, scope: AccountScope): Promise<AccountRecord[]> {
  return (await readAccountScopedItems(store, store.tables.accounts, scope)).map(toAccountRecord);
}

/** The names of these accounts by id (an account without an item is absent): only the two attributes are read. */
export async function readAccountNames(store: Store, accountIds: readonly string[]): Promise<Map<string, string>> {
  const table = store.tables.accounts;
  const { [table]: items } = await batchGetItems(store, { [table]: accountIds.map(accountKey) }, false, ['accountId', 'name']);
  return new Map(items.map((item) => [item.accountId as string, String(item.name ?? item.accountId)]));
}

/** Reads one account item; `undefined` when the account does not exist. */
export async function getAccountItem(store: Store, accountId: string, consistent = false): Promise<Item | undefined> {
  return getItem(store, store.tables.accounts, accountKey(accountId), consistent);
}

/**
 * Reads the items of `table` (keyed by account id) of the accounts in `scope`: the whole table for `*`, otherwise
 * only those accounts by BatchGetItem, so a scoped read reads nothing it cannot return.
 */
export async function readAccountScopedItems(store: Store, table: string, scope: AccountScope, consistent = false): Promise<Item[]> {
  if (scope === '*') return scanAll(store, table, consistent);
  const results = await batchGetItems(store, { [table]: accountSet(scope).map(accountKey) }, consistent);
  return results[table];
}

/** When the account was retired (`retiredAt`): out of the fleet's answers, its history kept; null when it is not. */
export function retiredAtOf(item: Item): string | null {
  return (item.retiredAt as string | undefined) ?? null;
}

/** The accounts in `scope`, sorted by id; retired ones left out. */
export async function listAccounts(store: Store, scope: AccountScope, consistent = false): Promise<Account[]> {
  const items = await readAccountScopedItems(store, store.tables.accounts, scope, consistent);
  return items
    .filter((item) => retiredAtOf(item) === null)
    .map(toAccount)
    .sort((a, b) => compareIds(a.id, b.id));
}

/**
 * Retires the account at `at`: refused when the account is missing or retired already. The balances item says the
 * same in the same transaction (balances-table): a retired account is in no fleet answer.
 */
export function retire(store: Store, accountId: string, at: string): TransactItem {
  return accountUpdate(store, accountId, {
    UpdateExpression: 'SET retiredAt = :at',
    ConditionExpression: 'attribute_exists(accountId) AND attribute_not_exists(retiredAt)',
    ExpressionAttributeValues: { ':at': at },
  });
}

type Update = NonNullable<TransactItem['Update']>;

/** An update of the account's item (in a transaction), refused when its condition fails. */
function accountUpdate(store: Store, accountId: string, update: Omit<Update, 'TableName' | 'Key'>): TransactItem {
  return { Update: { TableName: store.tables.accounts, Key: accountKey(accountId), ...update } };
}

/**
 * Marks the account as one with deposits or withdrawals kept (`hasTransfers`), in the transaction that keeps them (the
 * backfill marks those kept before the mark): an account without the mark has none, and the comparison reads no
 * transfers for it. Refused when the account is missing; marking it again changes nothing.
 */
export function markTransfers(store: Store, accountId: string): TransactItem {
  return accountUpdate(store, accountId, {
    UpdateExpression: 'SET hasTransfers = :yes',
    ConditionExpression: 'attribute_exists(accountId)',
    ExpressionAttributeValues: { ':yes': true },
  });
}

/** Whether the account's item says deposits or withdrawals are kept for it (markTransfers). */
export const hasTransfers = (item: Item): boolean => item.hasTransfers === true;

/** Brings a retired account back; refused when it is not retired. */
export function restore(store: Store, accountId: string): TransactItem {
  return accountUpdate(store, accountId, { UpdateExpression: 'REMOVE retiredAt', ConditionExpression: 'attribute_exists(retiredAt)' });
}

/** Creates the account item; refused (its condition fails) when the account exists. */
export function createAccount(store: Store, account: Account, bot: BotReport): TransactItem {
  return {
    Put: { TableName: store.tables.accounts, Item: accountItem(account, bot), ConditionExpression: 'attribute_not_exists(accountId)' },
  };
}

/** Changes an existing account's profile; refused when the account is missing or has another currency. */
export function updateProfile(store: Store, accountId: string, currency: string, profile: Profile): TransactItem {
  return profileUpdate(store, accountId, profile, '', 'currency = :currency', { ':currency': currency });
}

/** Sets the profile (after `set`, more assignments) of an existing account on `condition`, `values` beside the profile's. */
function profileUpdate(store: Store, accountId: string, profile: Profile, set: string, condition: string, values: Item): TransactItem {
  return accountUpdate(store, accountId, {
    UpdateExpression: `SET ${set}#name = :name, broker = :broker, environment = :environment`,
    ConditionExpression: `attribute_exists(accountId) AND ${condition}`,
    ExpressionAttributeNames: { '#name': 'name' },
    ExpressionAttributeValues: { ...values, ':name': profile.name, ':broker': profile.broker, ':environment': profile.environment },
  });
}

/**
 * ISO 4217's code for "no currency": the currency of an account created before its bot said its own (a bridge that
 * could not reach its bot at its first start creates the account to report why). The account takes its bot's
 * currency once, while it has no trade (adoptCurrency).
 */
export const NO_CURRENCY = 'XXX';

/** Gives an account created without a currency (NO_CURRENCY) its currency and profile; refused once it has one. */
export function adoptCurrency(store: Store, accountId: string, currency: string, profile: Profile): TransactItem {
  return profileUpdate(store, accountId, profile, 'currency = :currency, ', 'currency = :none', {
    ':currency': currency,
    ':none': NO_CURRENCY,
  });
}

/**
 * Stores the bot's report (a heartbeat); false (nothing written) when the account is missing, or when a later
 * heartbeat is already stored: reports that arrive out of order never turn the clock back. A stored heartbeat dated
 * after `future` (the latest time the writer accepts now) came from a clock ahead, before the writer refused such
 * times: it does not hold back the true ones.
 *
 * Beside the report the item keeps `stateSince`, the time of the first report of the current state (a stopped bot's
 * "stopped since"), and the last error: its message, and when that error began (what a stale alert names). A report
 * of the state stored keeps them (one write); a report of another state starts them again (a second write, on
 * condition that the state is not the one the first write expected).
 */
export async function reportBot(store: Store, accountId: string, report: BotReport, future: string): Promise<boolean> {
  // A third write: the state is the report's when a change of state took effect and lost its answer (the SDK's retry
  // of it then found the state the report's), or when another report of it came between the two writes.
  for (const state of ['same', 'changed', 'same'] as const) if (await writeReport(store, accountId, report, future, state)) return true;
  return false;
}

function writeReport(store: Store, accountId: string, report: BotReport, future: string, state: 'same' | 'changed'): Promise<boolean> {
  const at = report.lastHeartbeatAt;
  const set = ['bot.#state = :state', 'bot.lastHeartbeatAt = :at', 'bot.updatedAt = :updatedAt'];
  const remove: string[] = [];
  const values: Item = { ':state': report.state, ':at': at, ':updatedAt': report.updatedAt, ':future': future };
  for (const field of ['strategy', 'message'] as const) {
    if (report[field] === null) remove.push(`bot.${field}`);
    else {
      set.push(`bot.${field} = :${field}`);
      values[`:${field}`] = report[field];
    }
  }
  set.push(state === 'same' ? 'bot.stateSince = if_not_exists(bot.stateSince, :at)' : 'bot.stateSince = :at');
  if (report.state === 'error') {
    set.push(state === 'changed' ? 'bot.lastErrorAt = :at' : 'bot.lastErrorAt = if_not_exists(bot.lastErrorAt, :at)');
    if (report.message === null) remove.push('bot.lastErrorMessage');
    else set.push('bot.lastErrorMessage = :message');
  }
  return updateItem(store, {
    TableName: store.tables.accounts,
    Key: accountKey(accountId),
    UpdateExpression: `SET ${set.join(', ')}${remove.length ? ` REMOVE ${remove.join(', ')}` : ''}`,
    ConditionExpression:
      'attribute_exists(accountId) AND (attribute_not_exists(bot.lastHeartbeatAt) OR bot.lastHeartbeatAt <= :at OR bot.lastHeartbeatAt > :future) AND ' +
      (state === 'same' ? 'bot.#state = :state' : 'bot.#state <> :state'),
    ExpressionAttributeNames: { '#state': 'state' },
    ExpressionAttributeValues: values,
  });
}
