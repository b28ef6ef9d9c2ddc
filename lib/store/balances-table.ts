import { compareIds } from '../access';
import { accountKey, readAccountScopedItems } from './accounts-table';
import { config } from '../config';
import { sumDecimals } from '../decimal';
import { getItem, type Item } from './dynamodb';
import type { Balance, Principal, Total } from '../types';

/** Keys of the balances table: one item per account, keyed like the accounts table. */
export const balanceKey = accountKey;

const AMOUNTS = ['balance', 'unrealizedPL', 'nav', 'realizedPL', 'marginUsed', 'marginAvailable'] as const;

/** The stored item for a balance. */
export function balanceItem(balance: Balance): Item {
  return { ...balance };
}

/** The API shape of a stored balance. */
export function toBalance(item: Item): Balance {
  return {
    accountId: item.accountId as string,
    currency: item.currency as string,
    balance: item.balance as string,
    unrealizedPL: item.unrealizedPL as string,
    nav: item.nav as string,
    realizedPL: item.realizedPL as string,
    marginUsed: item.marginUsed as string,
    marginAvailable: item.marginAvailable as string,
    openTradeCount: Number(item.openTradeCount),
    updatedAt: item.updatedAt as string,
  };
}

/** Reads one account's balance; `undefined` when the account does not exist. */
export async function getBalance(accountId: string): Promise<Balance | undefined> {
  const item = await getItem(config.tables.balances, balanceKey(accountId));
  return item && toBalance(item);
}

/** Balances `principal` may see, sorted by account id. */
export async function listBalances(principal: Principal): Promise<Balance[]> {
  const items = await readAccountScopedItems(config.tables.balances, principal);
  return items.map(toBalance).sort((a, b) => compareIds(a.accountId, b.accountId));
}

/**
 * One total per currency, sorted by currency code. Amounts are summed exactly and never converted between
 * currencies: a total in USD and one in EUR are two totals.
 */
export function totalBalances(balances: readonly Balance[]): Total[] {
  const byCurrency = new Map<string, Balance[]>();
  for (const balance of balances) {
    const group = byCurrency.get(balance.currency) ?? [];
    group.push(balance);
    byCurrency.set(balance.currency, group);
  }
  return [...byCurrency.entries()]
    .sort(([a], [b]) => compareIds(a, b))
    .map(([currency, group]) => {
      const amounts = Object.fromEntries(
        AMOUNTS.map((field) => [field, sumDecimals(group.map((balance) => balance[field]))]),
      ) as Record<(typeof AMOUNTS)[number], string>;
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
