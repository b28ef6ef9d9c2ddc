import { compareIds } from '@trading-bot-api/core/ids';
import { readAccountScopedItems } from '@trading-bot-api/core/store/accounts-table';
import { readMembers, statsComplete } from '@trading-bot-api/core/store/fleet-table';
import type { Principal } from '../access';
import { store } from '../database';

/** Currencies sorted by code, each with its account ids sorted. */
function sorted(byCurrency: Map<string, string[]>): Map<string, string[]> {
  return new Map([...byCurrency].sort(([a], [b]) => compareIds(a, b)).map(([currency, ids]) => [currency, [...ids].sort(compareIds)]));
}

/**
 * The accounts `principal` may see, by currency (sorted by code), retired ones too (their history counts), and
 * whether their figures may be read from the currencies' sums: for a key that sees every account, once the fleet's
 * summary is complete (the lists and sums kept by the fleet projector: one item per currency, whatever the number of
 * accounts); otherwise each account's own (a key that sees some accounts reads only theirs).
 */
export async function accountsByCurrency(principal: Principal): Promise<{ byCurrency: Map<string, string[]>; summed: boolean }> {
  if (principal.accounts === '*') {
    // Both at once: the lists are one small item per currency, read in vain only while the summary is incomplete.
    const [complete, members] = await Promise.all([statsComplete(store), readMembers(store)]);
    if (complete) return { byCurrency: sorted(members), summed: true };
  }
  const byCurrency = new Map<string, string[]>();
  for (const account of await readAccountScopedItems(store, store.tables.accounts, principal.accounts)) {
    const currency = account.currency as string;
    byCurrency.set(currency, [...(byCurrency.get(currency) ?? []), account.accountId as string]);
  }
  return { byCurrency: sorted(byCurrency), summed: false };
}
