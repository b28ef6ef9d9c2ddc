import { listAccounts } from '../store/accounts-table';
import type { AccountList, Principal } from '../types';
import { store } from './store';

/** The accounts the principal may see, sorted by id, and how many. */
export async function readAccounts(principal: Principal): Promise<AccountList> {
  const accounts = await listAccounts(store, principal);
  return { accounts, count: accounts.length };
}
