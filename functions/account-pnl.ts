/**
 * GET /api/{account}/pnl?period&from&to — realized P&L per day, ISO week or month, zero-filled.
 * 200 `AccountPnl`; 404 ACCOUNT_NOT_FOUND; 400 INVALID_PARAMETER, 401, 403, 503.
 */
import { httpHandler } from '../api/http/handler';
import { PNL_QUERY } from '../api/http/params';
import { readAccountPnl } from '../api/operations/series';

export const handler = httpHandler(PNL_QUERY, ({ path, query, principal, now }) => readAccountPnl(path.account, query, principal, now));
