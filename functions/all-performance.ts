/**
 * GET /api/all/performance?from&to&instrument — the performance of every visible account's closed trades, one
 * summary per currency (never converted), each with its instruments.
 * 200 `AllPerformance`; 400 INVALID_PARAMETER, 401, 403, 503.
 */
import { httpHandler } from '../api/http/handler';
import { PERFORMANCE_QUERY } from '../api/http/params';
import { readAllPerformance } from '../api/operations/performance';

export const handler = httpHandler(PERFORMANCE_QUERY, ({ query, principal, now }) => readAllPerformance(query, principal, now));
