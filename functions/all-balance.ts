/**
 * GET /api/all/balance — no parameters.
 * 200 `{accounts: Balance[], totals: Total[], asOf}`: per-currency exact totals; 400, 401, 403, 503.
 */
import { readAllBalances } from '../api/operations/balances';
import { httpHandler } from '../api/http/handler';
import { NO_QUERY } from '../api/http/params';

export const handler = httpHandler(NO_QUERY, ({ principal, held }) => readAllBalances(principal, held));
