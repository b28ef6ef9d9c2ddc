/**
 * GET /api/{account}/performance?from&to&instrument — the performance of one account's closed trades over whole UTC
 * days: counts, win rate, gross profit and loss, profit factor, expectancy, best and worst trade, holding times and
 * the drawdown of realized equity, overall and per instrument.
 * 200 `AccountPerformance`; 404 ACCOUNT_NOT_FOUND; 400 INVALID_PARAMETER, 401, 403, 503.
 */
import { httpHandler } from '../api/http/handler';
import { PERFORMANCE_QUERY } from '../api/http/params';
import { readAccountPerformance } from '../api/operations/performance';

export const handler = httpHandler(PERFORMANCE_QUERY, ({ path, query, principal, now }) =>
  readAccountPerformance(path.account, query, principal, now),
);
