import { config } from '../config';
import { invalidParameter } from '../errors';
import { listTrades, storedWindow, type TradeScope } from '../operations/trades';
import { requireVisibleAccount } from '../operations/visible';
import { checkWindow } from '../operations/window';
import type { TradePage } from '@trading-bot-api/core/types';
import type { Principal } from '../access';
import { type CursorBinding, decodeCursor, encodeCursor } from './cursor';
import { DEFAULT_LIMIT, MAX_LIMIT, type ParsedQuery, type TRADE_QUERY } from './params';

/**
 * A page size when `limit` is not given, per representation: 50 trades for JSON (a screen), the most a page may
 * hold for the CSV layouts, which are read whole by programs (fewer requests for the same export).
 */
const DEFAULT_CSV_LIMIT = MAX_LIMIT;

/**
 * A trade listing over HTTP: the query's defaults, and the cursor that carries a position from one page to the
 * next, signed for this very listing (scope, filters, window and key). The listing itself knows only positions.
 * `format` is the representation the page will be rendered in (trade-representations.ts): a CoinTracking page
 * without `status` lists every trade, to count those it has no records for (open and gone: X-Trades-Left-Out).
 */
export async function tradePage(
  scope: TradeScope,
  query: ParsedQuery<typeof TRADE_QUERY>,
  principal: Principal,
  format = 'json',
): Promise<TradePage> {
  // An account the key may not see is a 404 before anything about the request is judged.
  if (scope !== 'all') requireVisibleAccount(principal, scope.accountId);
  const window = checkWindow({ from: query.from, to: query.to });
  if (format === 'cointracking' && query.status !== undefined && query.status !== 'closed') {
    throw invalidParameter('status', 'must be closed or left out with format=cointracking, which exports closed trades only');
  }
  const status = query.status === 'all' ? undefined : query.status;
  const binding: CursorBinding = {
    scope: scope === 'all' ? 'all' : scope.accountId,
    // Bound as the closed listing it was before 1.5 (its cursors stay valid): a position in one is one in the other,
    // and the pages of both hold the same closed trades in the same order.
    status: format === 'cointracking' ? 'closed' : status,
    instrument: query.instrument,
    ...storedWindow(window),
    principal,
  };
  const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor, binding, config.cursorSecret);
  const limit = query.limit ?? (format === 'json' ? DEFAULT_LIMIT : DEFAULT_CSV_LIMIT);
  const { trades, next } = await listTrades(scope, { status, instrument: query.instrument, ...window, limit, after }, principal);
  return { trades, count: trades.length, limit, nextCursor: next === null ? null : encodeCursor(next, binding, config.cursorSecret) };
}
