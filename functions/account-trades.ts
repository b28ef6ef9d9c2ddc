/**
 * GET /api/{account}/trades?status&instrument&from&to&limit&cursor&format — one account's trades, newest first.
 * 200 `TradePage` (JSON), or CSV (`Accept: text/csv`, `format=csv|cointracking`) with the next page in `Link`;
 * 400 INVALID_PARAMETER; 404 ACCOUNT_NOT_FOUND; 406 NOT_ACCEPTABLE; 401, 403, 503.
 */
import { httpHandler } from '../api/http/handler';
import { TRADE_QUERY } from '../api/http/params';
import { tradePage } from '../api/http/trade-pages';
import { TRADE_REPRESENTATIONS } from '../api/http/trade-representations';

export const handler = httpHandler(
  TRADE_QUERY,
  ({ path, query, principal, format }) => tradePage({ accountId: path.account }, query, principal, format),
  { representations: TRADE_REPRESENTATIONS },
);
