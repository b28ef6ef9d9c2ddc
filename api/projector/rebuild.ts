/**
 * The fleet's summary rebuilt from the tables (`npm run backfill`): for a stage whose data predates the fleet
 * projector, or a summary to check. Every account's stamps are computed from its items as the projector computes
 * them and written where the stored ones differ (a stamp of an account no longer in the fleet is taken away); every
 * period of each currency's roll-ups and P&L aggregates is recomputed from its accounts' own. Then the summary is marked
 * complete for every source, and the fleet's answers use it from then on. Safe while bots write and the projector
 * runs: each sum is read before the accounts' figures and written on condition it did not change, and
 * a stamp written here from an item that changed since is written again by the projector from that change.
 */
import { scanAll, type Store } from '@trading-bot-api/core/store/dynamodb';
import {
  type FleetStamps,
  markComplete,
  readShards,
  rebuildPeriod,
  pnlShare,
  rebuildPnl,
  SHARDS,
  type StampChange,
  type StampName,
  writeMembers,
  writeStamps,
} from '@trading-bot-api/core/store/fleet-table';
import {
  entryPrefix,
  getPeriodOfOwners,
  getPnlOfOwners,
  isEntryOf,
  readKeyRange,
  toPeriodEntry,
  toPnlEntry,
} from '@trading-bot-api/core/store/ledger-table';
import { ABOVE_EVERY_ID } from '@trading-bot-api/core/ids';
import { accountStamps, balanceStamps } from './project';

export interface Rebuilt {
  accounts: number;
  /** Accounts whose stamps were missing or wrong, or taken away. */
  stamped: number;
  /** The currencies' roll-up periods and P&L aggregates recomputed, and how many of them were missing or wrong. */
  sums: number;
  sumsWritten: number;
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

const SUMS_AT_ONCE = 16;

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
  // Every account in its currency's list (adding one listed already changes nothing).
  await writeMembers(
    store,
    accounts.map((item) => ({ accountId: item.accountId as string, currency: item.currency as string, present: true })),
  );

  // The sums: every period any account of a currency has a roll-up of, and any account has a P&L aggregate of.
  const currencyOf = new Map(accounts.map((item) => [item.accountId as string, item.currency as string]));
  const groups = new Map<string, { rebuild: (accountIds: readonly string[]) => Promise<boolean>; accountIds: string[] }>();
  for (const item of accounts) {
    const [accountId, currency] = [item.accountId as string, item.currency as string];
    const entries = await Promise.all(
      (['perf', 'pnl'] as const).map((kind) => readKeyRange(store, accountId, entryPrefix(kind), `${entryPrefix(kind)}${ABOVE_EVERY_ID}`)),
    );
    for (const entry of entries.flat()) {
      // A currency's roll-ups; the fleet's P&L, every currency's in one sum.
      const id = isEntryOf(entry, 'perf') ? `${currency}#${entry.entryKey}` : String(entry.entryKey);
      if (!groups.has(id)) {
        if (isEntryOf(entry, 'perf')) {
          const key = toPeriodEntry(entry);
          const period = { unit: key.unit, start: key.start };
          const read = (ids: readonly string[]) => getPeriodOfOwners(store, ids, period);
          groups.set(id, { rebuild: (ids) => rebuildPeriod(store, currency, period, ids, read), accountIds: [] });
        } else {
          const { period, start } = toPnlEntry(entry);
          const read = async (ids: readonly string[]) =>
            (await getPnlOfOwners(store, ids, { period, start })).map((held) => ({
              accountId: held.accountId,
              version: held.version,
              value: pnlShare(currencyOf.get(held.accountId) ?? '', held),
            }));
          groups.set(id, { rebuild: (ids) => rebuildPnl(store, { period, start }, ids, read), accountIds: [] });
        }
      }
      groups.get(id)!.accountIds.push(accountId);
    }
  }
  // A few sums at a time: each is a read, a batch read of its accounts' and a conditional write, of its own item.
  let sumsWritten = 0;
  const pending = [...groups.values()];
  await Promise.all(
    Array.from({ length: SUMS_AT_ONCE }, async () => {
      for (let group = pending.shift(); group; group = pending.shift()) if (await group.rebuild(group.accountIds)) sumsWritten += 1;
    }),
  );
  await markComplete(store, ['accounts', 'balances', 'ledger'], now.toISOString());
  return { accounts: accounts.length, stamped: changes.size, sums: groups.size, sumsWritten };
}
