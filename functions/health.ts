/**
 * GET /api/health — public, no parameters; also run on a schedule as a probe.
 * 200 `Health` when DynamoDB answers; 503 `Health` (status "unavailable") with Retry-After when it does not.
 */
import { checkHealth } from '../lib/operations/health';
import { httpHandler } from '../lib/http/handler';
import { NO_QUERY } from '../lib/http/params';

export const handler = httpHandler(NO_QUERY, ({ now }) => checkHealth(now), { public: true });
