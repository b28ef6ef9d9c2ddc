/**
 * GET /api/all/pnl?period&from&to — realized P&L of every visible account, one series per currency.
 * 200 `AllPnl`; 400 INVALID_PARAMETER, 401, 403, 503.
 */
import { httpHandler } from '../api/http/handler';
import { PNL_QUERY } from '../api/http/params';
import { readAllPnl } from '../api/operations/series';

export const handler = httpHandler(PNL_QUERY, ({ query, principal, now }) => readAllPnl(query, principal, now));
