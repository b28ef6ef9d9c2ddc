/**
 * GET /api/all/comparison — no parameters (1.8).
 * 200 `Comparison`: every visible account side by side over the last 30 UTC days; 304; 400, 401, 403, 503.
 */
import { httpHandler } from '../api/http/handler';
import { NO_QUERY } from '../api/http/params';
import { readComparison } from '../api/operations/comparison';

export const handler = httpHandler(NO_QUERY, ({ principal, now, held }) => readComparison(principal, now, held));
