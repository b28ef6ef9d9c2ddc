import type { Aspect } from '@trading-bot-api/core/fleet';
import type { AccountScope } from '@trading-bot-api/core/ids';
import { readVersion } from '@trading-bot-api/core/store/fleet-table';
import type { Principal } from '../access';
import { type Held, unlessHeld, type Validated } from './validated';
import { tagged, tagOf, versionTag } from './fleet-tags';
import { store } from '../database';

/**
 * The fleet's lists (`/api/accounts`, `/api/all/balance`; `/api/all/status` is status.ts's), tagged by fleet-tags.ts.
 * For a key that sees every account the tag is the answer's version in the fleet table, which the projector moves with
 * every change the answer shows: an unchanged poll reads that one item and is a 304, whatever the fleet's size; a
 * changed one reads the table whole, consistently, so that it holds every change the version counts. For a key that
 * sees some accounts, their items are read and the tag made of what they show: another account's change never moves it.
 */

/** A fleet answer that lists the visible accounts' items of one table, as `list` reads them. */
export async function readFleetList<T>(
  aspect: Aspect,
  principal: Principal,
  held: Held,
  list: (scope: AccountScope, consistent: boolean) => Promise<T[]>,
): Promise<Validated<T[]>> {
  if (principal.accounts !== '*') {
    const values = await list(principal.accounts, false);
    return tagged(tagOf(aspect, values), held, values);
  }
  return unlessHeld(versionTag(aspect, await readVersion(store, aspect)), held, () => list('*', true));
}
