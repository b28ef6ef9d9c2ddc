import type { AccountList } from '@trading-bot-api/core/types';
import type { Principal } from '../access';
import { stampedAccounts } from './fleet';
import type { Held, Validated } from '../http/validated';

/**
 * The accounts the principal may see, sorted by id, and how many; none when `held` says the client has them. Read
 * through the fleet's stamps and the instance's cache (fleet.ts), or whole while the stamps are not complete.
 */
export async function readAccounts(principal: Principal, held: Held): Promise<Validated<AccountList>> {
  return (await stampedAccounts(principal, held)).map((accounts) => ({ accounts, count: accounts.length }));
}
