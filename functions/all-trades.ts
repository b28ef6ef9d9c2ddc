/**
 * GET /api/all/trades?status&instrument&from&to&limit&cursor&format — trades of every visible account, newest first.
 * 200 `TradePage` (JSON), or CSV (`Accept: text/csv`, `format=csv|cointracking`) with the next page in `Link`;
 * 400 INVALID_PARAMETER, 406 NOT_ACCEPTABLE, 401, 403, 503.
 */
import { httpHandler } from '../api/http/handler';
import { TRADE_QUERY } from '../api/http/params';
import { tradePage } from '../api/http/trade-pages';
import { TRADE_REPRESENTATIONS } from '../api/http/trade-representations';

export const handler = httpHandler(TRADE_QUERY, ({ query, principal, format }) => tradePage('all', query, principal, format), {
  representations: TRADE_REPRESENTATIONS,
});
