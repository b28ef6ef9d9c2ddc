import { getBalance, listBalances, oldestUpdate, totalBalances } from '../store/balances-table';
import { accountNotFound } from '../errors';
import type { AllBalances, Balance, Principal } from '../types';
import { store } from './store';
import { requireVisibleAccount } from './visible';

/** The balance of one account the principal may see; 404 otherwise. */
export async function readAccountBalance(accountId: string, principal: Principal): Promise<Balance> {
  requireVisibleAccount(principal, accountId);
  const balance = await getBalance(store, accountId);
  if (!balance) throw accountNotFound(accountId);
  return balance;
}

/** Every balance the principal may see, with exact per-currency totals and the age of the oldest figure. */
export async function readAllBalances(principal: Principal): Promise<AllBalances> {
  const accounts = await listBalances(store, principal);
  return { accounts, totals: totalBalances(accounts), asOf: oldestUpdate(accounts) };
}
