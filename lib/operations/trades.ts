import { canSee } from '../access';
import { getAccountItem } from '../store/accounts-table';
import { config } from '../config';
import { decodeCursor, encodeCursor, type CursorBinding } from '../http/cursor';
import { accountNotFound, invalidParameter } from '../errors';
import { checkWindow, DEFAULT_LIMIT, type ParsedQuery, type TimeWindow, type TRADE_QUERY } from '../http/params';
import { accountOfOrderKey, isOrderKey, orderKey, type Range, readTrades, tradeListing, type TradeFilter } from '../store/trades-table';
import { timestamp } from '../time';
import type { Principal, Trade, TradePage } from '../types';
import { store } from './store';
import { requireVisibleAccount } from './visible';

export type TradeQuery = ParsedQuery<typeof TRADE_QUERY>;

/** The scope of a listing: one account, or every account the principal may see. */
export type TradeScope = { accountId: string } | 'all';

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

/**
 * One page of trades, newest first. It reads `limit + 1` trades: the extra one only tells whether another page
 * exists, so `nextCursor` is null exactly on the last page.
 */
export async function listTrades(scope: TradeScope, query: TradeQuery, principal: Principal): Promise<TradePage> {
  const accountId = scope === 'all' ? undefined : scope.accountId;
  if (accountId !== undefined) requireVisibleAccount(principal, accountId);

  const filter: TradeFilter = { status: query.status === 'all' ? undefined : query.status, instrument: query.instrument };
  const limit = query.limit ?? DEFAULT_LIMIT;
  const window = storedWindow(checkWindow(query));
  const binding: CursorBinding = { scope: accountId ?? 'all', ...filter, ...window, principal };
  const after = query.cursor === undefined ? undefined : positionOf(query.cursor, binding);
  const range: Range = { ...window, after };

  const wanted = limit + 1;
  let trades: Trade[];
  if (window.from !== undefined && window.to !== undefined && window.from >= window.to) {
    // A window narrower than a millisecond between two stored times holds no trade.
    trades = [];
  } else if (accountId !== undefined || principal.accounts === '*') {
    trades = await readTrades(store, tradeListing(accountId, filter), range, wanted);
  } else {
    // A key limited to some accounts cannot use the all-accounts index without reading others' trades;
    // it merges its own accounts' listings instead.
    const lists = await Promise.all(principal.accounts.map((id) => readTrades(store, tradeListing(id, filter), range, wanted)));
    trades = mergeNewestFirst(lists, wanted);
  }

  // An empty first page of an account that does not exist is a 404; only then is the account looked up.
  if (accountId !== undefined && trades.length === 0 && after === undefined && !(await getAccountItem(store, accountId))) {
    throw accountNotFound(accountId);
  }

  const page = trades.slice(0, limit);
  const nextCursor = trades.length > limit ? encodeCursor(orderKey(page[page.length - 1]), binding, config.cursorSecret) : null;
  return { trades: page, count: page.length, limit, nextCursor };
}

/**
 * A window as bounds on stored times (whole milliseconds): a trade opened at or after `from` opened at or after
 * its next whole millisecond, and one opened before `to`, before `to`'s next whole millisecond.
 */
function storedWindow(window: TimeWindow): { from?: string; to?: string } {
  return {
    ...(window.from !== undefined ? { from: timestamp(Math.ceil(window.from)) } : {}),
    ...(window.to !== undefined ? { to: timestamp(Math.ceil(window.to)) } : {}),
  };
}

function positionOf(cursor: string, binding: CursorBinding): string {
  const position = decodeCursor(cursor, binding, config.cursorSecret);
  // The signature already binds the cursor to this scope and window; this guards the invariant should the secret
  // leak (and keeps every key range the Query is given a valid one).
  const owner = isOrderKey(position) ? accountOfOrderKey(position) : undefined;
  const outside = (binding.from !== undefined && position < binding.from) || (binding.to !== undefined && position > binding.to);
  if (!owner || outside || !canSee(binding.principal, owner) || (binding.scope !== 'all' && owner !== binding.scope)) {
    throw invalidParameter('cursor', 'is not a cursor issued for this listing (same scope, filters and window)');
  }
  return position;
}
