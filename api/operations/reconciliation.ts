/**
 * A bot's account's last reconciliation against its exchange account (1.8): what the exchange feed's check kept
 * (packages/writer/src/reconcile.ts, by core's rules in reconciliation.ts), read as it is.
 */
import { getAccountRecord } from '@trading-bot-api/core/store/accounts-table';
import { getReconciliation } from '@trading-bot-api/core/store/ledger-table';
import { AMOUNT_TOLERANCE, BALANCE_TOLERANCE_PERCENT, FEE_TOLERANCE } from '@trading-bot-api/core/reconciliation';
import type { Reconciliation } from '@trading-bot-api/core/types';
import type { Principal } from '../access';
import { store } from '../database';
import { accountNotFound, notReconciled } from '../errors';
import { requireVisibleAccount } from './visible';

/** The reconciliation of one account the principal may see; 404 when there is none (one read, two when absent). */
export async function readReconciliation(accountId: string, principal: Principal): Promise<Reconciliation> {
  requireVisibleAccount(principal, accountId);
  const entry = await getReconciliation(store, accountId);
  if (!entry) throw (await getAccountRecord(store, accountId)) ? notReconciled(accountId) : accountNotFound(accountId);
  // As stored, less its version; the differences after their count, as the contract lists them.
  const { version: _, differences, ...checked } = entry;
  const tolerances = { amount: AMOUNT_TOLERANCE, fee: FEE_TOLERANCE, balancePercent: BALANCE_TOLERANCE_PERCENT };
  return { ...checked, differences, tolerances };
}
