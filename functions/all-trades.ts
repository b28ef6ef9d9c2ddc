/**
 * GET /api/all/trades?status&instrument&from&to&limit&cursor — trades of every visible account, newest first.
 * 200 `TradePage`; 400 INVALID_PARAMETER, 401, 403, 503.
 */
import { httpHandler } from '../api/http/handler';
import { TRADE_QUERY } from '../api/http/params';
import { tradePage } from '../api/http/trade-pages';

export const handler = httpHandler(TRADE_QUERY, ({ query, principal }) => tradePage('all', query, principal));
