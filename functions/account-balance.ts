/**
 * GET /api/{account}/balance — no parameters.
 * 200 `Balance`; 404 ACCOUNT_NOT_FOUND (also for an account the key may not see); 400, 401, 403, 503.
 */
import { readAccountBalance } from '../api/operations/balances';
import { httpHandler } from '../api/http/handler';
import { NO_QUERY } from '../api/http/params';

export const handler = httpHandler(NO_QUERY, ({ path, principal }) => readAccountBalance(path.account, principal));
