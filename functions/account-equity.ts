/**
 * GET /api/{account}/equity?interval&from&to — the last balance snapshot of each hour or day that has one.
 * 200 `AccountEquity`; 404 ACCOUNT_NOT_FOUND; 400 INVALID_PARAMETER, 401, 403, 503.
 */
import { httpHandler } from '../api/http/handler';
import { EQUITY_QUERY } from '../api/http/params';
import { readAccountEquity } from '../api/operations/series';

export const handler = httpHandler(EQUITY_QUERY, ({ path, query, principal, now }) =>
  readAccountEquity(path.account, query, principal, now),
);
