/**
 * GET /api/health — public, no parameters; also run on a schedule as a probe.
 * 200 `Health` when DynamoDB answers; 503 `Health` (status "unavailable") with Retry-After when it does not; a 500
 * problem when it refuses the function for its configuration (a missing table or permission), the cause in the log.
 */
import { httpHandler, unavailableReply } from '../api/http/handler';
import { NO_QUERY } from '../api/http/params';
import { checkHealth } from '../api/operations/health';

export const handler = httpHandler(
  NO_QUERY,
  async ({ now, requestId }) => {
    const health = await checkHealth(now, requestId);
    return health.status === 'ok' ? health : unavailableReply(health);
  },
  { public: true },
);
