import { listAccounts } from '../store/accounts-table';
import type { AccountList, Principal } from '../types';
import { accountsTag } from './fleet';
import { type Held, unlessHeld, type Validated } from './validated';
import { store } from './store';

/** The accounts the principal may see, sorted by id, and how many; none when `held` says the client has them. */
export async function readAccounts(principal: Principal, held: Held): Promise<Validated<AccountList>> {
  return unlessHeld(await accountsTag(principal), held, async () => {
    const accounts = await listAccounts(store, principal);
    return { accounts, count: accounts.length };
  });
}
