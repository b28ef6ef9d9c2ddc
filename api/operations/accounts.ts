import { listAccounts, readAccountRecords } from '@trading-bot-api/core/store/accounts-table';
import type { Account, AccountList } from '@trading-bot-api/core/types';
import type { Principal } from '../access';
import { readFleetList } from './fleet';
import type { Held, Validated } from './validated';
import { store } from '../database';

/** The accounts the principal may see, sorted by id, and how many; none when `held` says the client has them (fleet.ts). */
export async function readAccounts(principal: Principal, held: Held): Promise<Validated<AccountList>> {
  const read = await readFleetList('profile', principal, held, (scope, consistent) => listAccounts(store, scope, consistent));
  return read.map((accounts) => ({ accounts, count: accounts.length }));
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
