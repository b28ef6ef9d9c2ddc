import { isAccountId } from '@trading-bot-api/core/ids';
import { nearestIds } from '@trading-bot-api/core/nearest-ids';
import { canSee, type Principal } from '../access';
import { accountsByCurrency } from './currencies';

/**
 * The ids to suggest for an account the principal asked for and could not see (a 404's `suggestions`): the nearest
 * among those it may see (the fleet's account lists, one item per currency, for a key that sees every account; its
 * own accounts otherwise), never another. Undefined when `asked` cannot be an id or the lists could not be read: the
 * 404 stands without them.
 */
export async function suggestAccounts(principal: Principal, asked: string): Promise<string[] | undefined> {
  if (!isAccountId(asked)) return undefined;
  try {
    const visible = [...(await accountsByCurrency(principal)).values()].flat().filter((id) => canSee(principal, id));
    return nearestIds(asked, visible);
  } catch {
    return undefined;
  }
}
