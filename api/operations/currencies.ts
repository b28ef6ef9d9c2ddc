import { compareIds } from '@trading-bot-api/core/ids';
import { readAccountScopedItems } from '@trading-bot-api/core/store/accounts-table';
import { readMembers } from '@trading-bot-api/core/store/fleet-table';
import type { Principal } from '../access';
import { store } from '../database';

/**
 * The accounts `principal` may see, by currency (sorted by code), each with its ids sorted, retired ones too (their
 * history counts): for a key that sees every account, the fleet's lists (one item per currency, whatever the number of
 * accounts); otherwise its accounts' items. Only a key that sees every account may read the currencies' sums, which
 * hold every account's figures.
 */
export async function accountsByCurrency(principal: Principal): Promise<Map<string, string[]>> {
  const byCurrency = new Map<string, string[]>();
  if (principal.accounts === '*') for (const [currency, ids] of await readMembers(store)) byCurrency.set(currency, ids);
  else {
    for (const account of await readAccountScopedItems(store, store.tables.accounts, principal.accounts)) {
      const currency = String(account.currency);
      byCurrency.set(currency, [...(byCurrency.get(currency) ?? []), String(account.accountId)]);
    }
  }
  return new Map([...byCurrency].sort(([a], [b]) => compareIds(a, b)).map(([currency, ids]) => [currency, [...ids].sort(compareIds)]));
}
