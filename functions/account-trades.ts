/**
 * GET /api/{account}/trades?status&instrument&from&to&limit&cursor — one account's trades, newest first.
 * 200 `TradePage`; 400 INVALID_PARAMETER; 404 ACCOUNT_NOT_FOUND; 401, 403, 503.
 */
import { httpHandler } from '../api/http/handler';
import { TRADE_QUERY } from '../api/http/params';
import { tradePage } from '../api/http/trade-pages';

export const handler = httpHandler(TRADE_QUERY, ({ path, query, principal }) => tradePage({ accountId: path.account }, query, principal));
