/**
 * GET /api/all/balance — no parameters.
 * 200 `{accounts: Balance[], totals: Total[], asOf}`: per-currency exact totals; 400, 401, 403, 503.
 */
import { readAllBalances } from '../lib/operations/balances';
import { httpHandler } from '../lib/http/handler';
import { NO_QUERY } from '../lib/http/params';

export const handler = httpHandler(NO_QUERY, ({ principal, held }) => readAllBalances(principal, held));
