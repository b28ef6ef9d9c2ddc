/**
 * GET /api/health — public, no parameters; also run on a schedule as a probe.
 * 200 `Health` when DynamoDB answers; 503 `Health` (status "unavailable") with Retry-After when it does not.
 */
import { httpHandler, unavailableReply } from '../api/http/handler';
import { NO_QUERY } from '../api/http/params';
import { checkHealth } from '../api/operations/health';

export const handler = httpHandler(
  NO_QUERY,
  async ({ now }) => {
    const health = await checkHealth(now);
    return health.status === 'ok' ? health : unavailableReply(health);
  },
  { public: true },
);
