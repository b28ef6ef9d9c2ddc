import { ABOVE_EVERY_ID } from '../ids';
import type { StatsFigures } from '../performance';
import type { Interval, Period } from '../time';
import {
  batchGetItems,
  getItem,
  type Item,
  numbersOf,
  queryItems,
  type Store,
  stringsOf,
  type TransactItem,
  versionedPut,
} from './dynamodb';

/**
 * The ledger table: the writer's bookkeeping per account (partition key `accountId`), sorted by `entryKey`:
 *
 *   trade#<tradeId>                  the register of trade ids: the open time of the one trade with that id, which
 *                                    finds it in the trades table (keyed by open time) and keeps an id to one trade
 *   pnl#<day|week|month>#<start>     realized P&L of the trades closed in that UTC period, summed exactly
 *   equity#<hour|day>#<start>        the last balance snapshot recorded in that UTC hour or day
 *
 * Starts are stored times (`YYYY-MM-DDTHH:mm:ss.sssZ`), so each kind sorts by time and a series of N points is one
 * key-range Query reading about N items, however many trades or snapshots went into them.
 *
 * Beside the accounts' partitions, the fleet's statistics (`fleetStatsOwner`): per currency and fleet shard, the
 * `stats#...` entries of its accounts summed, so the fleet's performance reads a few partitions, not one per account.
 */

/** The aggregate of the trades closed in one period. */
export interface PnlEntry {
  accountId: string;
  period: Period;
  start: string;
  realizedPL: string;
  tradesClosed: number;
  wins: number;
  losses: number;
  /** Incremented by every write (optimistic concurrency, as on the balances item). */
  version: number;
}

/** The last snapshot of one equity bucket. */
export interface EquityEntry {
  accountId: string;
  interval: Interval;
  start: string;
  time: string;
  balance: string;
  nav: string;
  unrealizedPL: string;
}

/**
 * The performance figures of the trades of one instrument closed in one UTC day (packages/core/src/performance.ts),
 * keyed `stats#day#<start>#<instrument>`: a window of days is one key range holding one item per day and instrument
 * traded.
 */
export interface StatsEntry extends StatsFigures {
  accountId: string;
  start: string;
  instrument: string;
  version: number;
}

const KEY = 'entryKey';

/**
 * The partition holding the fleet's statistics of one currency and shard (fleet-table's `shardOf` of the account):
 * per day and instrument, the figures of every account of that currency in that shard merged, under the same sort
 * keys as an account's own (`statsKey`). `@` is in no account id (packages/core/src/ids.ts). The writer updates the
 * shard's entry in the same transaction as the account's; the shard is the one whose status stamp that transaction
 * writes anyway, so the sums make no two writers conflict that did not already.
 */
export function fleetStatsOwner(currency: string, shard: number): string {
  return `@fleet#${currency}#${shard}`;
}

/** The aggregates the ledger keeps, by kind, and the units each is kept in. */
export interface LedgerUnits {
  pnl: Period;
  equity: Interval;
  stats: 'day';
}

/** The sort-key prefix of a kind of aggregate (`pnl#`), or of one unit of it (`pnl#day#`): a key range's bounds. */
export function entryPrefix<K extends keyof LedgerUnits>(kind: K, unit?: LedgerUnits[K]): string {
  return unit === undefined ? `${kind}#` : `${kind}#${unit}#`;
}

/** The sort key of the aggregate of one unit starting at `start` (a stored time). */
export function entryKeyOf<K extends keyof LedgerUnits>(kind: K, unit: LedgerUnits[K], start: string): string {
  return `${entryPrefix(kind, unit)}${start}`;
}

/** True when a ledger item is an aggregate of `kind`. */
export function isEntryOf(item: Item, kind: keyof LedgerUnits): boolean {
  return String(item[KEY] ?? '').startsWith(entryPrefix(kind));
}

export function pnlKey(accountId: string, period: Period, start: string): Item {
  return { accountId, [KEY]: entryKeyOf('pnl', period, start) };
}

export function statsKey(accountId: string, start: string, instrument: string): Item {
  return { accountId, [KEY]: `${entryKeyOf('stats', 'day', start)}#${instrument}` };
}

export function equityKey(accountId: string, interval: Interval, start: string): Item {
  return { accountId, [KEY]: entryKeyOf('equity', interval, start) };
}

const TRADE_ID_PREFIX = 'trade#';

export function tradeIdKey(accountId: string, tradeId: string): Item {
  return { accountId, [KEY]: `${TRADE_ID_PREFIX}${tradeId}` };
}

/** The open time registered for a trade id; undefined when no trade has that id. */
export async function getRegisteredOpenTime(store: Store, accountId: string, tradeId: string): Promise<string | undefined> {
  const item = await getItem(store, store.tables.ledger, tradeIdKey(accountId, tradeId), true);
  return item?.openTime as string | undefined;
}

/** The open times registered for `tradeIds`, by id, read in batches; ids no trade has are absent. */
export async function getRegisteredOpenTimes(store: Store, accountId: string, tradeIds: readonly string[]): Promise<Map<string, string>> {
  if (!tradeIds.length) return new Map();
  const found = await batchGetItems(store, { [store.tables.ledger]: tradeIds.map((id) => tradeIdKey(accountId, id)) }, true);
  return new Map(found[store.tables.ledger].map((item) => [String(item[KEY]).slice(TRADE_ID_PREFIX.length), item.openTime as string]));
}

/** Registers a trade id with its open time; refused when the id is registered already. */
export function registerTradeId(store: Store, accountId: string, tradeId: string, openTime: string): TransactItem {
  return {
    Put: {
      TableName: store.tables.ledger,
      Item: { ...tradeIdKey(accountId, tradeId), openTime },
      ConditionExpression: 'attribute_not_exists(accountId)',
    },
  };
}

function toPnlEntry(item: Item): PnlEntry {
  return {
    ...stringsOf(item, ['accountId', 'start', 'realizedPL']),
    period: item.period as Period,
    ...numbersOf(item, ['tradesClosed', 'wins', 'losses', 'version']),
  };
}

/** The stored aggregates among `keys` (period and start), read for a read-modify-write; missing ones are absent. */
export async function getPnlEntries(store: Store, accountId: string, keys: { period: Period; start: string }[]): Promise<PnlEntry[]> {
  return (await getAggregates(store, accountId, keys, [])).pnl;
}

/** The P&L aggregate of one period of each of `accountIds` (none closed: absent), batched, as a fleet reads them. */
export async function getPnlOfAccounts(
  store: Store,
  accountIds: readonly string[],
  period: Period,
  start: string,
  consistent = false,
): Promise<PnlEntry[]> {
  if (!accountIds.length) return [];
  const keys = accountIds.map((accountId) => pnlKey(accountId, period, start));
  return (await batchGetItems(store, { [store.tables.ledger]: keys }, consistent))[store.tables.ledger].map(toPnlEntry);
}

/**
 * The stored P&L aggregates among `periods` and statistics among `days`, read together (one BatchGetItem) for a
 * read-modify-write; missing ones are absent.
 */
export async function getAggregates(
  store: Store,
  accountId: string,
  periods: readonly { period: Period; start: string }[],
  days: readonly { start: string; instrument: string }[],
): Promise<{ pnl: PnlEntry[]; stats: StatsEntry[] }> {
  const keys = [
    ...periods.map((key) => pnlKey(accountId, key.period, key.start)),
    ...days.map((key) => statsKey(accountId, key.start, key.instrument)),
  ];
  if (!keys.length) return { pnl: [], stats: [] };
  const found = (await batchGetItems(store, { [store.tables.ledger]: keys }, true))[store.tables.ledger];
  return {
    pnl: found.filter((item) => isEntryOf(item, 'pnl')).map(toPnlEntry),
    stats: found.filter((item) => isEntryOf(item, 'stats')).map(toStatsEntry),
  };
}

/** The stored statistics of `keys` (days and instruments) of each of `owners`, read consistently; missing ones are absent. */
export async function getStatsOfOwners(
  store: Store,
  owners: readonly string[],
  keys: readonly { start: string; instrument: string }[],
): Promise<StatsEntry[]> {
  const wanted = owners.flatMap((owner) => keys.map((key) => statsKey(owner, key.start, key.instrument)));
  if (!wanted.length) return [];
  return (await batchGetItems(store, { [store.tables.ledger]: wanted }, true))[store.tables.ledger].map(toStatsEntry);
}

/** Writes an aggregate in place of the version read (or as new when `read` is undefined); refused if it changed. */
export function putPnl(store: Store, entry: PnlEntry, read: PnlEntry | undefined): TransactItem {
  return versionedPut(store.tables.ledger, { ...pnlKey(entry.accountId, entry.period, entry.start), ...entry }, read);
}

/**
 * Stores a bucket's snapshot unless a later one of that bucket is stored already; a stored one dated after `future`
 * (the latest time a writer accepts now: it came from a clock ahead) does not count as later.
 */
export function putEquity(store: Store, entry: EquityEntry, future: string): TransactItem {
  return {
    Put: {
      TableName: store.tables.ledger,
      Item: { ...equityKey(entry.accountId, entry.interval, entry.start), ...entry },
      ConditionExpression: 'attribute_not_exists(accountId) OR #time <= :time OR #time > :future',
      ExpressionAttributeNames: { '#time': 'time' },
      ExpressionAttributeValues: { ':time': entry.time, ':future': future },
    },
  };
}

/**
 * The entries of one kind and unit (`pnl#day#`, `equity#hour#`, ...) of an account whose start lies in [`first`,
 * `last`] (stored times), oldest first: one key range, reading the entries there are and nothing else (at most
 * `points`).
 */
function readEntries(store: Store, accountId: string, prefix: string, first: string, last: string, points: number): Promise<Item[]> {
  return readKeyRange(store, accountId, `${prefix}${first}`, `${prefix}${last}`, points);
}

/**
 * An account's ledger items with a sort key in [`first`, `last`], in key order: one Query (the whole range without
 * `wanted`, in pages of at most `pageSize` items when given).
 */
export function readKeyRange(
  store: Store,
  accountId: string,
  first: string,
  last: string,
  wanted?: number,
  pageSize?: number,
  /** False: from `last` back (the latest first). */
  forward = true,
): Promise<Item[]> {
  return queryItems(
    store,
    {
      TableName: store.tables.ledger,
      KeyConditionExpression: 'accountId = :accountId AND #entry BETWEEN :first AND :last',
      ExpressionAttributeNames: { '#entry': KEY },
      ExpressionAttributeValues: { ':accountId': accountId, ':first': first, ':last': last },
      ScanIndexForward: forward,
    },
    wanted,
    pageSize,
  );
}

/** The P&L aggregates of `period` starting from `first` to `last` (both period starts), oldest first. */
export async function readPnlEntries(
  store: Store,
  accountId: string,
  period: Period,
  first: string,
  last: string,
  points: number,
): Promise<PnlEntry[]> {
  return (await readEntries(store, accountId, entryPrefix('pnl', period), first, last, points)).map(toPnlEntry);
}

/** The equity points of `interval` starting from `first` to `last` (both interval starts), oldest first. */
export async function readEquityEntries(
  store: Store,
  accountId: string,
  interval: Interval,
  first: string,
  last: string,
  points: number,
): Promise<EquityEntry[]> {
  const items = await readEntries(store, accountId, entryPrefix('equity', interval), first, last, points);
  return items.map(toEquityEntry);
}

function toEquityEntry(item: Item): EquityEntry {
  return { ...stringsOf(item, ['accountId', 'start', 'time', 'balance', 'nav', 'unrealizedPL']), interval: item.interval as Interval };
}

/**
 * Each account's balance at the start of the day `firstDay` (a day start), read from its daily equity points: the
 * last one before that day (one BatchGetItem for the day before, which a bot that snapshots daily has, then one
 * Query per account that lacks it), or, for an account with none before, its first one up to `lastDay`. Accounts
 * without any are absent.
 */
export async function readStartBalances(
  store: Store,
  accountIds: readonly string[],
  firstDay: string,
  lastDay: string,
  concurrency: number,
): Promise<Map<string, EquityEntry>> {
  const dayBefore = new Date(Date.parse(firstDay) - 86_400_000).toISOString();
  const found = new Map<string, EquityEntry>();
  if (!accountIds.length) return found;
  const keys = accountIds.map((id) => equityKey(id, 'day', dayBefore));
  for (const item of (await batchGetItems(store, { [store.tables.ledger]: keys }))[store.tables.ledger])
    found.set(item.accountId as string, toEquityEntry(item));
  const prefix = entryPrefix('equity', 'day');
  const each = async (read: (id: string) => Promise<Item[]>) => {
    const missing = accountIds.filter((id) => !found.has(id));
    for (let at = 0; at < missing.length; at += concurrency) {
      const items = await Promise.all(missing.slice(at, at + concurrency).map(read));
      for (const [item] of items) if (item) found.set(item.accountId as string, toEquityEntry(item));
    }
  };
  // The last point before the window, then (none before) the first in it.
  await each((id) => readKeyRange(store, id, prefix, `${prefix}${dayBefore}`, 1, undefined, false));
  await each((id) => readKeyRange(store, id, `${prefix}${firstDay}`, `${prefix}${lastDay}`, 1));
  return found;
}

/** The statistics an item of the ledger holds (an account's, by day and instrument). */
export function toStatsEntry(item: Item): StatsEntry {
  const mark = (value: unknown) => (value ? (value as StatsEntry['best']) : null);
  return {
    ...stringsOf(item, ['accountId', 'start', 'instrument', 'grossProfit', 'grossLoss', 'holdingMs']),
    ...numbersOf(item, ['closedTrades', 'wins', 'losses', 'breakEvens', 'longestHoldingMs', 'places', 'version']),
    best: mark(item.best),
    worst: mark(item.worst),
  };
}

/** Writes the statistics of a day and instrument in place of the version read (or as new); refused if it changed. */
export function putStats(store: Store, entry: StatsEntry, read: StatsEntry | undefined): TransactItem {
  return versionedPut(store.tables.ledger, { ...statsKey(entry.accountId, entry.start, entry.instrument), ...entry }, read);
}

/** Removes the statistics of a day and instrument at the version read (the backfill's sum no account has any more). */
export function deleteStats(store: Store, read: StatsEntry): TransactItem {
  return {
    Delete: {
      TableName: store.tables.ledger,
      Key: statsKey(read.accountId, read.start, read.instrument),
      ConditionExpression: 'version = :version',
      ExpressionAttributeValues: { ':version': read.version },
    },
  };
}

/**
 * Items per page of a statistics range. A year of one account is about 2,000 items (a day per instrument), read
 * whole as one page, and the fleet's performance reads 16 accounts at once. DynamoDB Local, parsing every item on
 * two cores, took longer over each of 16 such pages than the 1.5 s per-attempt timeout, so a year over the bench's
 * 20 accounts answered 503. Pages of 500 items keep each request's work bounded, for a few more round trips (about
 * 5 for an account's year).
 */
export const STATS_PAGE_ITEMS = 500;

/** The sort keys that bound the statistics of the days [`firstDay`, `lastDay`] (day starts), every instrument. */
export function statsRangeKeys(firstDay: string, lastDay: string): { first: string; last: string } {
  // ABOVE_EVERY_ID sorts after every character of an instrument (A-Z, 0-9, _): the last day's instruments are all inside.
  return { first: entryKeyOf('stats', 'day', firstDay), last: `${entryKeyOf('stats', 'day', lastDay)}#${ABOVE_EVERY_ID}` };
}

/**
 * The statistics of an account whose day lies in [`firstDay`, `lastDay`] (day starts), every instrument, oldest
 * first: one key range, read whole, one item per day and instrument traded.
 */
export async function readStatsEntries(store: Store, accountId: string, firstDay: string, lastDay: string): Promise<StatsEntry[]> {
  const { first, last } = statsRangeKeys(firstDay, lastDay);
  return (await readKeyRange(store, accountId, first, last, undefined, STATS_PAGE_ITEMS)).map(toStatsEntry);
}
