/**
 * GET /api/{account}/reconciliation — no parameters (1.8).
 * 200 `Reconciliation`; 404 ACCOUNT_NOT_FOUND (also for an account the key may not see), 404 NOT_FOUND (not
 * reconciled); 400, 401, 403, 503.
 */
import { readReconciliation } from '../api/operations/reconciliation';
import { httpHandler } from '../api/http/handler';
import { NO_QUERY } from '../api/http/params';

export const handler = httpHandler(NO_QUERY, ({ path, principal }) => readReconciliation(path.account, principal));
