/**
 * The fleet's summary rebuilt from the tables (`npm run backfill`): for a stage whose data predates the fleet
 * projector, or a summary to check. Every account's stamps are computed from its items as the projector computes
 * them and written where the stored ones differ (a stamp of an account no longer in the fleet is taken away); every
 * day and instrument of the fleet's statistics is recomputed from the accounts' own. Then the summary is marked
 * complete for every source, and the fleet's answers use it from then on. Safe while bots write and the projector
 * runs: each statistics item is read before the accounts' figures and written on condition it did not change, and
 * a stamp written here from an item that changed since is written again by the projector from that change.
 */
import { scanAll, type Store } from '@trading-bot-api/core/store/dynamodb';
import {
  type FleetStamps,
  markComplete,
  rebuildStats,
  readShards,
  SHARDS,
  type StampChange,
  type StampName,
  shardOf,
  writeStamps,
} from '@trading-bot-api/core/store/fleet-table';
import { getStatsOfOwners, readStatsEntries } from '@trading-bot-api/core/store/ledger-table';
import { accountStamps, balanceStamps } from './project';

export interface Rebuilt {
  accounts: number;
  /** Accounts whose stamps were missing or wrong, or taken away. */
  stamped: number;
  /** Days × instruments of the fleet's statistics recomputed, and how many of them were missing or wrong. */
  statistics: number;
  statisticsWritten: number;
}

/** Every stamp as stored, by account. */
async function storedStamps(store: Store): Promise<Map<string, StampChange>> {
  const shards = [...Array(SHARDS).keys()];
  const stored = new Map<string, StampChange>();
  for (const aspect of ['profile', 'status', 'balance'] as const) {
    for (const { stamps } of (await readShards(store, aspect, shards, true)).values()) {
      for (const [accountId, held] of stamps as FleetStamps) {
        const change = stored.get(accountId) ?? {};
        for (const [name, value] of Object.entries(held) as [StampName, string | number][]) {
          change[name] = name === 'balance' ? (value as number).toString(36) : (value as string);
        }
        stored.set(accountId, change);
      }
    }
  }
  return stored;
}

const NAMES: StampName[] = ['profile', 'bot', 'trades', 'balance'];

export async function rebuildFleet(store: Store, windowSeconds: number, now = new Date()): Promise<Rebuilt> {
  const [accounts, balances, stored] = await Promise.all([
    scanAll(store, store.tables.accounts),
    scanAll(store, store.tables.balances),
    storedStamps(store),
  ]);
  const balanceOf = new Map(balances.map((item) => [item.accountId as string, item]));
  const changes = new Map<string, StampChange>();
  for (const item of accounts) {
    const accountId = item.accountId as string;
    const wanted: StampChange = { ...accountStamps(item, windowSeconds), ...balanceStamps(balanceOf.get(accountId)) };
    const held = stored.get(accountId) ?? {};
    stored.delete(accountId);
    const differing = NAMES.filter((name) => (wanted[name] ?? null) !== (held[name] ?? null));
    if (differing.length) changes.set(accountId, Object.fromEntries(differing.map((name) => [name, wanted[name] ?? null])));
  }
  // Stamps of accounts the accounts table no longer has.
  for (const [accountId, held] of stored) changes.set(accountId, Object.fromEntries(Object.keys(held).map((name) => [name, null])));
  await writeStamps(store, changes);

  // The statistics: every day and instrument any account of a currency's shard traded.
  const groups = new Map<string, { currency: string; shard: number; start: string; instrument: string; accountIds: string[] }>();
  for (const item of accounts) {
    const [accountId, currency] = [item.accountId as string, item.currency as string];
    for (const entry of await readStatsEntries(store, accountId, '0000-01-01T00:00:00.000Z', '9999-12-31T00:00:00.000Z')) {
      const at = { currency, shard: shardOf(accountId), start: entry.start, instrument: entry.instrument };
      const id = `${currency}#${at.shard}#${at.start}#${at.instrument}`;
      const group = groups.get(id) ?? { ...at, accountIds: [] };
      group.accountIds.push(accountId);
      groups.set(id, group);
    }
  }
  let statisticsWritten = 0;
  for (const group of groups.values()) {
    const read = (ids: readonly string[]) => getStatsOfOwners(store, ids, [{ start: group.start, instrument: group.instrument }]);
    if (await rebuildStats(store, group, group.accountIds, read)) statisticsWritten += 1;
  }
  await markComplete(store, ['accounts', 'balances', 'ledger'], now.toISOString());
  return { accounts: accounts.length, stamped: changes.size, statistics: groups.size, statisticsWritten };
}
