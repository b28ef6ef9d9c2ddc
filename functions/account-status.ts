/**
 * GET /api/{account}/status — no parameters.
 * 200 `AccountStatus`; 404 ACCOUNT_NOT_FOUND, or NOT_FOUND for `all` (status is per account); 400, 401, 403, 503.
 */
import { httpHandler } from '../api/http/handler';
import { NO_QUERY } from '../api/http/params';
import { readAccountStatus } from '../api/operations/status';

export const handler = httpHandler(NO_QUERY, ({ path, principal, now }) => readAccountStatus(path.account, principal, now));
