/**
 * GET /api/accounts — no parameters.
 * 200 `{accounts: Account[], count}` sorted by id (only the API key's accounts); 400, 401, 403, 503.
 */
import { listAccounts } from '../lib/store/accounts-table';
import { httpHandler } from '../lib/http/handler';
import { NO_QUERY } from '../lib/http/params';

export const handler = httpHandler(NO_QUERY, async ({ principal }) => {
  const accounts = await listAccounts(principal);
  return { accounts, count: accounts.length };
});
