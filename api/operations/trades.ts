import { canSee } from '../access';
import { getAccountRecord } from '@trading-bot-api/core/store/accounts-table';
import { accountNotFound, invalidParameter } from '../errors';
import {
  accountOfOrderKey,
  isOrderKey,
  orderKey,
  type Range,
  readTrades,
  tradeListing,
  type TradeFilter,
} from '@trading-bot-api/core/store/trades-table';
import { type TimeWindow, timestamp } from '@trading-bot-api/core/time';
import type { Trade, TradeStatus } from '@trading-bot-api/core/types';
import type { Principal } from '../access';
import { mergeNewestFirst } from './newest-first';
import { store } from '../database';
import { requireVisibleAccount } from './visible';

/** The scope of a listing: one account, or every account the principal may see. */
export type TradeScope = { accountId: string } | 'all';

/** A page of a listing, asked for with checked values: the window's `from` comes before its `to`. */
export interface TradeRequest extends TimeWindow {
  /** Only trades with this status; every status when absent. */
  status?: TradeStatus;
  instrument?: string;
  limit: number;
  /** The order key of the last trade of the page before (which the caller's cursor carried). */
  after?: string;
}

/**
 * One page of trades, newest first, and the order key to continue after (null on the last page). It reads
 * `limit + 1` trades: the extra one only tells whether another page exists, so `nextCursor` is null exactly on the
 * last page.
 */
export async function listTrades(scope: TradeScope, request: TradeRequest, principal: Principal) {
  const accountId = scope === 'all' ? undefined : scope.accountId;
  if (accountId !== undefined) requireVisibleAccount(principal, accountId);

  const filter: TradeFilter = { status: request.status, instrument: request.instrument };
  const { limit } = request;
  const window = storedWindow(request);
  const after = request.after === undefined ? undefined : checkPosition(request.after, accountId ?? 'all', window, principal);
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
  if (accountId !== undefined && trades.length === 0 && after === undefined && !(await getAccountRecord(store, accountId))) {
    throw accountNotFound(accountId);
  }

  const page = trades.slice(0, limit);
  return { trades: page, next: trades.length > limit ? orderKey(page[page.length - 1]) : null };
}

/**
 * A window as bounds on stored times (whole milliseconds): a trade opened at or after `from` opened at or after
 * its next whole millisecond, and one opened before `to`, before `to`'s next whole millisecond.
 */
export function storedWindow(window: TimeWindow): { from?: string; to?: string } {
  return {
    ...(window.from !== undefined ? { from: timestamp(Math.ceil(window.from)) } : {}),
    ...(window.to !== undefined ? { to: timestamp(Math.ceil(window.to)) } : {}),
  };
}

/**
 * A position to continue after, once it is known to lie in this listing: a trade of the scope, visible to the
 * principal, inside the window. The HTTP layer's signed cursor already binds it to the listing; this guards the
 * invariant should the secret leak (and keeps every key range the Query is given a valid one).
 */
function checkPosition(position: string, scope: string, window: { from?: string; to?: string }, principal: Principal): string {
  const owner = isOrderKey(position) ? accountOfOrderKey(position) : undefined;
  const outside = (window.from !== undefined && position < window.from) || (window.to !== undefined && position > window.to);
  if (!owner || outside || !canSee(principal, owner) || (scope !== 'all' && owner !== scope)) {
    throw invalidParameter('cursor', 'is not a cursor issued for this listing (same scope, filters and window)');
  }
  return position;
}
