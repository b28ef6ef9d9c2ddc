import type { AccountScope } from '@trading-bot-api/core/ids';
import {
  type Aspect,
  type FleetStamps,
  readShardCounts,
  readShards,
  SHARDS,
  type ShardStamps,
  type Stamps,
  shardsHolding,
} from '@trading-bot-api/core/store/fleet-table';
import type { Store } from '@trading-bot-api/core/store/dynamodb';

/**
 * The fleet's stamps as this API instance reads them: the store's reads (fleet-table.ts) behind two caches of the
 * instance, so an unchanged poll reads the shards' change counts alone and derives nothing again. The caches are the
 * instance's, not the store's: a writer or a script reading the same table keeps none.
 */

/**
 * The most stamp items a fleet answer reads: the meta item and the shards' change counts, then whole the shards
 * whose count moved (every one, on an instance's first poll). An unchanged poll on a warm instance reads SHARDS + 1.
 */
export const MOST_STAMP_ITEMS = 2 * SHARDS + 1;

/**
 * The shards this instance has read whole, by table, aspect and shard. An unchanged poll then reads only the shards'
 * change counts: at 1,000 bots, 9 small answers rather than 9 of 4 KB with a thousand values to parse (which took
 * DynamoDB Local and the SDK twice as long as a 5-bot poll). The read is billed the same: by the items' size.
 */
const shardsRead = new Map<string, ShardStamps>();

/** The stamps readStamps last answered, per table, aspect and accounts asked for, with the shard counts they came from. */
const lastStamps = new Map<string, { version: string; stamps: FleetStamps }>();

/**
 * The stamps of `aspect` of `accounts` (every account for `*`): the shards' change counts and the meta item in one
 * BatchGetItem (at most SHARDS + 1 items, whatever the fleet's size), then whole only the shards whose change count
 * moved since this instance read them. Undefined while the stamps are not known to be complete: the caller then
 * reads the tables.
 */
export async function readStamps(store: Store, aspect: Aspect, accounts: AccountScope): Promise<FleetStamps | undefined> {
  const shards = shardsHolding(accounts);
  const counts = await readShardCounts(store, aspect, shards);
  if (!counts) return undefined;
  const held = (shard: number) => `${store.tables.fleet}/${aspect}#${shard}`;
  // A shard no write reached yet has no item: nothing to read. A replica behind may answer an older count than
  // the one held: the held shard is newer, and stays.
  const moved = (shard: number) => counts.has(shard) && (shardsRead.get(held(shard))?.count ?? -1) < counts.get(shard)!;
  // Eventually consistent first; a shard read older than its count is read again consistently.
  for (const consistent of [false, true]) {
    const stale = shards.filter(moved);
    if (!stale.length) break;
    for (const [shard, read] of await readShards(store, aspect, stale, consistent)) {
      if (read.count > (shardsRead.get(held(shard))?.count ?? -1)) shardsRead.set(held(shard), read);
    }
  }
  // The same shards as held last time for the same accounts: the same stamps, the same object (callers key what
  // they derive from them on it, so an unchanged poll derives nothing again).
  const scope = scopeOf(store, aspect, accounts);
  const version = shards.map((shard) => (counts.has(shard) ? (shardsRead.get(held(shard))?.count ?? -1) : 'none')).join(',');
  const last = lastStamps.get(scope);
  if (last?.version === version) return last.stamps;
  const wanted = accounts === '*' ? undefined : new Set(accounts);
  const stamps = new Map<string, Stamps>();
  for (const shard of shards) {
    if (!counts.has(shard)) continue;
    for (const [accountId, stamp] of shardsRead.get(held(shard))?.stamps ?? []) {
      // Only the accounts asked for: a scoped key never sees its shard-mates' stamps, nor that they exist.
      if (!wanted || wanted.has(accountId)) stamps.set(accountId, stamp);
    }
  }
  lastStamps.set(scope, { version, stamps });
  return stamps;
}

/** The key of `accounts`' stamps of `aspect` among those this instance answered. */
function scopeOf(store: Store, aspect: Aspect, accounts: AccountScope): string {
  return `${store.tables.fleet}/${aspect}/${accounts === '*' ? '*' : [...accounts].sort().join(',')}`;
}

/**
 * Whether this instance has read the stamps of `aspect` of `accounts` before (readStamps answered them): its copy of
 * their shards is then there for a conditional poll to compare change counts against, reading only what moved since.
 */
export function holdsStamps(store: Store, aspect: Aspect, accounts: AccountScope): boolean {
  return lastStamps.has(scopeOf(store, aspect, accounts));
}
