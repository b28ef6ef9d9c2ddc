import { orderKey } from '@trading-bot-api/core/store/trades-table';
import type { Trade } from '@trading-bot-api/core/types';

/**
 * Merges lists that are each newest first into one list newest first, keeping the first `count`.
 * This is the order of the global index, so a merge of per-account pages equals the all-accounts page.
 */
export function mergeNewestFirst(lists: readonly (readonly Trade[])[], count: number): Trade[] {
  const heads = lists.map(() => 0);
  const merged: Trade[] = [];
  while (merged.length < count) {
    let best = -1;
    let bestKey = '';
    lists.forEach((list, i) => {
      const trade = list[heads[i]];
      if (!trade) return;
      const key = orderKey(trade);
      if (best === -1 || key > bestKey) {
        best = i;
        bestKey = key;
      }
    });
    if (best === -1) break;
    merged.push(lists[best][heads[best]++]);
  }
  return merged;
}
