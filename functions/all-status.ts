/**
 * GET /api/all/status — no parameters.
 * 200 `{accounts: AccountStatus[], summary}` over every visible account, sorted by id; 400, 401, 403, 503.
 */
import { httpHandler } from '../api/http/handler';
import { NO_QUERY } from '../api/http/params';
import { readFleetStatus } from '../api/operations/status';

export const handler = httpHandler(NO_QUERY, ({ principal, now, held }) => readFleetStatus(principal, now, held));
