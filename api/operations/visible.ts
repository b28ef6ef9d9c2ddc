import { canSee } from '../access';
import { isAccountId } from '@trading-bot-api/core/ids';
import { accountNotFound } from '../errors';
import type { Principal } from '../access';

/**
 * Stops a request for an account the principal may not see, or for an id no account can have, with the same
 * 404 as for a missing account: a key cannot learn that other accounts exist.
 */
export function requireVisibleAccount(principal: Principal, accountId: string): void {
  if (!isAccountId(accountId) || !canSee(principal, accountId)) {
    throw accountNotFound(accountId);
  }
}
