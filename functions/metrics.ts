/**
 * GET /api/metrics — no parameters. The visible bots' state, heartbeat, balance and P&L, and the fleet's counts.
 * 200 Prometheus text format 0.0.4; 400, 406 NOT_ACCEPTABLE (an Accept without text/plain), 401, 403, 503.
 * The key may also come as `Authorization: Bearer <key>`, as Prometheus sends it.
 */
import { httpHandler } from '../api/http/handler';
import { NO_QUERY } from '../api/http/params';
import { METRICS_REPRESENTATION } from '../api/http/fleet-exposition';
import { readFleetFigures } from '../api/operations/metrics';

export const handler = httpHandler(NO_QUERY, ({ principal, now }) => readFleetFigures(principal, now), {
  representations: [METRICS_REPRESENTATION],
});
