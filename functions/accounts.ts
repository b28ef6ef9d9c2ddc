/**
 * GET /api/accounts — no parameters.
 * 200 `{accounts: Account[], count}` sorted by id (only the API key's accounts); 400, 401, 403, 503.
 */
import { httpHandler } from '../api/http/handler';
import { NO_QUERY } from '../api/http/params';
import { readAccounts } from '../api/operations/accounts';

export const handler = httpHandler(NO_QUERY, ({ principal, held }) => readAccounts(principal, held));
