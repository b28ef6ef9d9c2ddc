import { type AccountScope, compareIds } from '../ids';
import { sumDecimals } from '../decimal';
import type { Balance, Total } from '../types';
import { accountKey, readAccountScopedItems } from './accounts-table';
import { getItem, type Store, type TransactItem, versionedPut, withoutNulls } from './dynamodb';
import { count, orNull, reader, text } from './items';

/**
 * The balances table: one item per account, keyed like the accounts table. It holds the figures the API shows and
 * the writer's bookkeeping beside them; every trade write and balance snapshot rewrites it whole, on condition that
 * its version is the one read (optimistic concurrency), so concurrent writers can never lose an update.
 */
export const balanceKey = accountKey;

const AMOUNTS = ['balance', 'unrealizedPL', 'nav', 'realizedPL', 'marginUsed', 'marginAvailable'] as const;
type Amounts = Record<(typeof AMOUNTS)[number], string>;

/** A balance as stored: the API's figures and the writer's bookkeeping. */
export interface BalanceRecord extends Balance {
  /** The latest time a trade of the account opened or closed (the status's `lastTradeAt`). */
  lastTradeAt: string | null;
  /** The time of the broker's latest balance snapshot. */
  snapshotAt: string | null;
  /** When the account was retired (as on its accounts item): the fleet's answers leave it out. Null for an account in the fleet. */
  retiredAt: string | null;
  /** Incremented by every write. */
  version: number;
}

/** The API shape of a stored balance: its fields in the contract's order. */
const BALANCE = {
  accountId: text,
  currency: text,
  balance: text,
  unrealizedPL: text,
  nav: text,
  realizedPL: text,
  marginUsed: text,
  marginAvailable: text,
  openTradeCount: count,
  updatedAt: text,
};
export const toBalance = reader<Balance>(BALANCE);

/** A stored balance item as a record. */
export const toBalanceRecord = reader<BalanceRecord>({
  ...BALANCE,
  lastTradeAt: orNull,
  snapshotAt: orNull,
  retiredAt: orNull,
  version: count,
});

/** The balance of a new account: every figure zero, no trade, no snapshot. */
export function newBalanceRecord(accountId: string, currency: string, at: string): BalanceRecord {
  const zero = Object.fromEntries(AMOUNTS.map((name) => [name, '0'])) as Amounts;
  return {
    accountId,
    currency,
    ...zero,
    openTradeCount: 0,
    updatedAt: at,
    lastTradeAt: null,
    snapshotAt: null,
    retiredAt: null,
    version: 0,
  };
}

/** Reads one balance record for a read-modify-write; `undefined` when the account does not exist. */
export async function getBalanceRecord(store: Store, accountId: string): Promise<BalanceRecord | undefined> {
  const item = await getItem(store, store.tables.balances, balanceKey(accountId), true);
  return item && toBalanceRecord(item);
}

/**
 * Writes `record` (its version already incremented) in place of the version the writer read: refused if the item
 * changed meanwhile, or, for a new account (`read` undefined), if the item exists.
 */
export function putBalance(store: Store, record: BalanceRecord, read: BalanceRecord | undefined): TransactItem {
  return versionedPut(store.tables.balances, withoutNulls(record), read);
}

/** Reads one account's balance; `undefined` when the account does not exist. */
export async function getBalance(store: Store, accountId: string): Promise<Balance | undefined> {
  const item = await getItem(store, store.tables.balances, balanceKey(accountId));
  return item && toBalance(item);
}

/** The balances of the accounts in `scope`, retired accounts' included, in no order (the whole table for `*`). */
export async function readBalances(store: Store, scope: AccountScope): Promise<Balance[]> {
  return (await readAccountScopedItems(store, store.tables.balances, scope)).map(toBalance);
}

/** The balances of the accounts in `scope`, sorted by account id; retired accounts' left out. */
export async function listBalances(store: Store, scope: AccountScope, consistent = false): Promise<Balance[]> {
  const items = await readAccountScopedItems(store, store.tables.balances, scope, consistent);
  return items
    .filter((item) => item.retiredAt === undefined)
    .map(toBalance)
    .sort((a, b) => compareIds(a.accountId, b.accountId));
}

/**
 * One total per currency, sorted by currency code. Amounts are summed exactly and never converted between
 * currencies: a total in USD and one in EUR are two totals.
 */
export function totalBalances(balances: readonly Balance[]): Total[] {
  const byCurrency = new Map<string, Balance[]>();
  for (const balance of balances) byCurrency.get(balance.currency)?.push(balance) ?? byCurrency.set(balance.currency, [balance]);
  return [...byCurrency.entries()]
    .sort(([a], [b]) => compareIds(a, b))
    .map(([currency, group]) => {
      const amounts = Object.fromEntries(AMOUNTS.map((field) => [field, sumDecimals(group.map((balance) => balance[field]))])) as Amounts;
      return {
        currency,
        ...amounts,
        openTradeCount: group.reduce((sum, balance) => sum + balance.openTradeCount, 0),
        accountCount: group.length,
      };
    });
}

/** The oldest `updatedAt` among the balances (RFC 3339 UTC strings sort as times); null when there are none. */
export function oldestUpdate(balances: readonly Balance[]): string | null {
  return balances.reduce<string | null>((oldest, b) => (oldest === null || b.updatedAt < oldest ? b.updatedAt : oldest), null);
}
