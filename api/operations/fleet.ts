import { balanceKey, listBalances, toBalanceRecord } from '@trading-bot-api/core/store/balances-table';
import { accountKey, listAccounts, toAccount } from '@trading-bot-api/core/store/accounts-table';
import { batchGetItems, type Item } from '@trading-bot-api/core/store/dynamodb';
import { profileStamp } from '@trading-bot-api/core/store/fleet-table';
import { readStamps } from './fleet-stamps';
import type { Account, Balance } from '@trading-bot-api/core/types';
import type { Principal } from '../access';
import { derivedOnce, idsWith, tagOf } from './fleet-tags';
import { type Held, unlessHeld, type Validated } from './validated';
import { store } from '../database';

/**
 * The fleet answers read through the fleet's stamps: tagged from the stamps alone (fleet-tags.ts), and their bodies
 * read through this instance's caches, only where a stamp moved.
 */

/**
 * Items this instance has read for a fleet answer, by account, each with the stamp it matches. A changed poll reads
 * only the accounts whose stamp differs from the one held, so its cost follows what changed, not the fleet.
 */
class StampedCache<T> {
  private readonly held = new Map<string, { stamp: string | number; value: T }>();

  constructor(
    private readonly table: string,
    private readonly key: (id: string) => Item,
    /** The entry an item holds: its account, the stamp it matches, the value the answer shows. */
    private readonly entry: (item: Item) => { id: string; stamp: string | number; value: T },
    /** Whether `held` is older than `stamp` (read it again). */
    private readonly behind: (held: string | number, stamp: string | number) => boolean,
    /** Whether an item read with stamp `read` replaces the one held with `held`. */
    private readonly replaces: (read: string | number, held: string | number) => boolean,
  ) {}

  /**
   * The values of `ids` as their `stamps` say, read where the instance holds none or an older one. Eventually
   * consistent first; an item read older than its stamp (a replica behind the write) is read again consistently,
   * so the body is never older than the tag says.
   */
  async values(ids: readonly string[], stamp: (id: string) => string | number): Promise<T[]> {
    const stale = (id: string) => {
      const held = this.held.get(id);
      return held === undefined || this.behind(held.stamp, stamp(id));
    };
    for (const consistent of [false, true]) {
      const missing = ids.filter(stale);
      if (!missing.length) break;
      const items = (await batchGetItems(store, { [this.table]: missing.map(this.key) }, consistent))[this.table];
      for (const read of items.map(this.entry)) {
        const held = this.held.get(read.id);
        if (held === undefined || this.replaces(read.stamp, held.stamp)) this.held.set(read.id, read);
      }
    }
    return ids.flatMap((id) => this.held.get(id)?.value ?? []);
  }
}

const profiles = new StampedCache<Account>(
  store.tables.accounts,
  accountKey,
  (item) => {
    const account = toAccount(item);
    return { id: account.id, stamp: profileStamp(account), value: account };
  },
  (held, stamp) => held !== stamp,
  // A digest has no order: the last read wins (it is at least as new as the stamps read before it).
  () => true,
);

const balances = new StampedCache<Balance>(
  store.tables.balances,
  balanceKey,
  (item) => {
    const { lastTradeAt, snapshotAt, retiredAt, version, ...balance } = toBalanceRecord(item);
    return { id: balance.accountId, stamp: version, value: balance };
  },
  (held, stamp) => Number(held) < Number(stamp),
  // Never back to an older item: a replica behind may serve one.
  (read, held) => Number(read) >= Number(held),
);

/**
 * A fleet answer read through the stamps of `aspect` and the instance's `cache`: the visible accounts' values,
 * sorted by id, with the answer's tag (their stamps); none when `held` says the client has them. While the stamps
 * are not complete, `whole` reads the table and the HTTP layer tags the body itself.
 */
function stampedFleet<T>(aspect: 'profile' | 'balance', cache: StampedCache<T>, whole: (principal: Principal) => Promise<T[]>) {
  const tagged = derivedOnce((stamps) => {
    const ids = idsWith(stamps, aspect);
    return {
      ids,
      tag: tagOf(
        aspect,
        ids.map((id) => `${id} ${stamps.get(id)![aspect]}`),
      ),
    };
  });
  return async (principal: Principal, held: Held): Promise<Validated<T[]>> => {
    const stamps = await readStamps(store, aspect, principal.accounts);
    if (!stamps) return unlessHeld(undefined, held, () => whole(principal));
    const { ids, tag } = tagged(stamps);
    return unlessHeld(tag, held, () => cache.values(ids, (id) => stamps.get(id)![aspect]!));
  };
}

/** The accounts of `/api/accounts`, tagged by their profiles' digests. */
export const stampedAccounts = stampedFleet('profile', profiles, (principal) => listAccounts(store, principal.accounts));

/** The balances of `/api/all/balance`, tagged by their versions. */
export const stampedBalances = stampedFleet('balance', balances, (principal) => listBalances(store, principal.accounts));
