import { getBalance, listBalances, oldestUpdate, totalBalances } from '@trading-bot-api/core/store/balances-table';
import { accountNotFound } from '../errors';
import type { AllBalances, Balance } from '@trading-bot-api/core/types';
import type { Principal } from '../access';
import { readFleetList } from './fleet';
import type { Held, Validated } from './validated';
import { store } from '../database';
import { config } from '../config';
import { readRates } from '@trading-bot-api/core/store/ledger-table';
import { type RatesEntry, reportingOf } from '@trading-bot-api/core/reporting';
import { requireVisibleAccount } from './visible';

/** The balance of one account the principal may see; 404 otherwise. */
export async function readAccountBalance(accountId: string, principal: Principal): Promise<Balance> {
  requireVisibleAccount(principal, accountId);
  const balance = await getBalance(store, accountId);
  if (!balance) throw accountNotFound(accountId);
  return balance;
}

/**
 * Every balance the principal may see, with exact per-currency totals and the age of the oldest figure, and with a
 * reporting currency configured each NAV converted into it (core's reporting.ts); none when `held` says the client
 * has it already (fleet.ts).
 */
export async function readAllBalances(principal: Principal, held: Held): Promise<Validated<AllBalances>> {
  const currency = config.reportingCurrency;
  // Read only when the answer is (not for a poll that holds it already): one Query of a few items.
  let rates: RatesEntry[] = [];
  const read = await readFleetList('balance', principal, held, async (scope, consistent) => {
    const [accounts, prices] = await Promise.all([listBalances(store, scope, consistent), currency ? readRates(store) : []]);
    rates = prices;
    return accounts;
  });
  return read.map((accounts) => ({
    accounts,
    totals: totalBalances(accounts),
    asOf: oldestUpdate(accounts),
    ...(currency ? { reporting: reportingOf(currency, accounts, rates) } : {}),
  }));
}
