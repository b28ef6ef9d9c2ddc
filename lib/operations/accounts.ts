import { listAccounts } from '../store/accounts-table';
import type { AccountList, Principal } from '../types';
import { stampedAccounts } from './fleet';
import { type Held, Validated } from './validated';
import { store } from './store';

/**
 * The accounts the principal may see, sorted by id, and how many; none when `held` says the client has them. Read
 * through the fleet's stamps and the instance's cache (fleet.ts), or whole while the stamps are not complete.
 */
export async function readAccounts(principal: Principal, held: Held): Promise<Validated<AccountList>> {
  const stamped = await stampedAccounts(principal, held);
  if (stamped && !stamped.body) return new Validated(stamped.tag);
  const accounts = stamped?.body ?? (await listAccounts(store, principal));
  return new Validated(stamped?.tag, { accounts, count: accounts.length });
}
