import { orderKey } from '@trading-bot-api/core/store/trades-table';
import type { Trade } from '@trading-bot-api/core/types';

/**
 * Merges lists that are each newest first into one list newest first, keeping the first `count`: their union sorted
 * by order key, descending. This is the order of the global index, so a merge of per-account pages equals the
 * all-accounts page. The lists are a scoped key's accounts' pages (each at most a page and one): sorting their union
 * costs little beside reading them.
 */
export function mergeNewestFirst(lists: readonly (readonly Trade[])[], count: number): Trade[] {
  const keyed = lists.flat().map((trade) => ({ key: orderKey(trade), trade }));
  keyed.sort((a, b) => (a.key < b.key ? 1 : a.key > b.key ? -1 : 0));
  return keyed.slice(0, count).map(({ trade }) => trade);
}
