import { readAccountRecords } from '@trading-bot-api/core/store/accounts-table';
import type { Account, AccountList } from '@trading-bot-api/core/types';
import type { Principal } from '../access';
import { stampedAccounts } from './fleet';
import type { Held, Validated } from './validated';
import { store } from '../database';

/**
 * The accounts the principal may see, sorted by id, and how many; none when `held` says the client has them. Read
 * through the fleet's stamps and the instance's cache (fleet.ts), or whole while the stamps are not complete.
 */
export async function readAccounts(principal: Principal, held: Held): Promise<Validated<AccountList>> {
  return (await stampedAccounts(principal, held)).map((accounts) => ({ accounts, count: accounts.length }));
}

/**
 * The profiles of `ids` by id, retired accounts' too (their trades are still listed): one BatchGetItem of just
 * those accounts, for what a trade does not carry (its account's broker and currency, in a CoinTracking export).
 */
export async function readProfiles(ids: readonly string[]): Promise<Map<string, Account>> {
  if (!ids.length) return new Map();
  const records = await readAccountRecords(store, ids);
  return new Map(records.map(({ account }) => [account.id, account]));
}
