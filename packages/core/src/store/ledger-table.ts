import pMap from 'p-map';
import type { PnlSum } from '../fleet';
import { ABOVE_EVERY_ID } from '../ids';
import type { ExchangeFill } from '../reconciliation';
import type { RatesAt, RatesEntry } from '../reporting';
import { type PeriodFigures, type PeriodKey, periodId, type ReadPeriod, type StatsUnit } from '../rollups';
import { INTERVALS, type Interval, type Period, periodStart, timestamp } from '../time';
import type { Balance, Reconciliation, ReconciliationDifference } from '../types';
import { batchGetItems, getItem, type Item, queryItems, type Store, type TransactItem, versionedPut, withoutNulls } from './dynamodb';
import { count, json, orNull, reader, text } from './items';

/**
 * The ledger table: the writer's bookkeeping per account (partition key `accountId`), sorted by `entryKey`:
 *
 *   trade#<tradeId>                  the register of trade ids: the open time of the one trade with that id, which
 *                                    finds it in the trades table (keyed by open time) and keeps an id to one trade
 *   pnl#<day|week|month>#<start>     realized P&L of the trades closed in that UTC period, summed exactly
 *   equity#<hour|day>#<start>        the last balance snapshot recorded in that UTC hour or day
 *   perf#<day|block|month>#<start>   the performance figures of the trades closed in that period, every instrument's
 *                                    in the one item (packages/core/src/rollups.ts)
 *   feed#<name>                      a feed's checkpoint (an exchange feed's cursor and positions in one market): what
 *                                    it has written so far, rewritten in the transaction that writes what it covers
 *   transfer#<time>#<id>             a deposit or withdrawal of the account (money moved, not traded): never P&L
 *   fill#<instrument>#<id>             an exchange feed's fill as the exchange recorded it (its order's id, amount and
 *                                    fee), written with the checkpoint that covers it: what a reconciliation reads
 *   reconciliation                   the last reconciliation of a bot's account against its exchange account
 *
 * and, in the partition `@rates` (no account id starts with `@`), for the reporting currency
 * (packages/core/src/reporting.ts):
 *
 *   rates#<exchange>#<account>                          the last prices each exchange feed read
 *   ratesat#<hour|day>#<start>#<exchange>#<account>     the last prices it read in that UTC hour or day: what values
 *                                                       an equity point of that interval at its own time
 *
 * Starts are stored times (`YYYY-MM-DDTHH:mm:ss.sssZ`), so each kind sorts by time and a series of N points is one
 * key-range Query reading about N items, however many trades or snapshots went into them.
 *
 * Stages written before the roll-ups also hold `stats#day#<start>#<instrument>` items, one per day and instrument:
 * nothing reads them; `npm run backfill` replaces them with the roll-ups (`legacyStatsRemovals`).
 */

/** The aggregate of the trades closed in one period. */
export interface PnlEntry extends PnlSum {
  accountId: string;
  period: Period;
  start: string;
  /** Incremented by every write (optimistic concurrency, as on the balances item). */
  version: number;
}

/** The last snapshot of one equity bucket: the balance's figures at `time`. */
export interface EquityEntry extends Pick<Balance, 'accountId' | 'balance' | 'nav' | 'unrealizedPL'> {
  interval: Interval;
  start: string;
  time: string;
}

/**
 * The performance figures of the trades closed in one period (a UTC day, a block of a month or a UTC month), every
 * instrument's (packages/core/src/rollups.ts), keyed `perf#<unit>#<start>`: a window reads its months, blocks and edge
 * days, a few key ranges (windowPeriods).
 */
export interface PeriodEntry extends PeriodKey {
  accountId: string;
  figures: PeriodFigures;
  version: number;
}

const KEY = 'entryKey';

/** The aggregates the ledger keeps, by kind, and the units each is kept in. */
export interface LedgerUnits {
  pnl: Period;
  equity: Interval;
  perf: StatsUnit;
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

/** The key of an account's aggregate of `kind` for one unit starting at `start`. */
function entryItemKey<K extends keyof LedgerUnits>(accountId: string, kind: K, unit: LedgerUnits[K], start: string): Item {
  return { accountId, [KEY]: entryKeyOf(kind, unit, start) };
}

const pnlKey = (accountId: string, period: Period, start: string) => entryItemKey(accountId, 'pnl', period, start);
const periodKey = (accountId: string, period: PeriodKey) => entryItemKey(accountId, 'perf', period.unit, period.start);

const TRADE_ID_PREFIX = 'trade#';

function tradeIdKey(accountId: string, tradeId: string): Item {
  return { accountId, [KEY]: `${TRADE_ID_PREFIX}${tradeId}` };
}

/** The open time registered for a trade id; undefined when no trade has that id. */
export async function getRegisteredOpenTime(store: Store, accountId: string, tradeId: string): Promise<string | undefined> {
  const item = await getItem(store, store.tables.ledger, tradeIdKey(accountId, tradeId), true);
  return item?.openTime as string | undefined;
}

/**
 * The ledger's items at `keys` (missing ones absent), read consistently unless told, in BatchGetItems of a hundred
 * keys `concurrency` at a time; none for no keys.
 */
async function getLedgerItems(store: Store, keys: Item[], consistent = true, concurrency = 1): Promise<Item[]> {
  return (await batchGetItems(store, { [store.tables.ledger]: keys }, consistent, undefined, concurrency))[store.tables.ledger];
}

/** The open times registered for `tradeIds`, by id, read in batches; ids no trade has are absent. */
export async function getRegisteredOpenTimes(store: Store, accountId: string, tradeIds: readonly string[]): Promise<Map<string, string>> {
  const keys = tradeIds.map((id) => tradeIdKey(accountId, id));
  const found = await getLedgerItems(store, keys);
  return new Map(found.map((item) => [String(item[KEY]).slice(TRADE_ID_PREFIX.length), item.openTime as string]));
}

/** Registers a trade id with its open time; refused when the id is registered already. */
export function registerTradeId(store: Store, accountId: string, tradeId: string, openTime: string): TransactItem {
  return ledgerPut(store, { ...tradeIdKey(accountId, tradeId), openTime }, { ConditionExpression: 'attribute_not_exists(accountId)' });
}

type Put = NonNullable<TransactItem['Put']>;

/** A Put of `item` into the ledger (in a transaction), on the condition `rest` gives if any. */
function ledgerPut(store: Store, item: Item, rest?: Omit<Put, 'TableName' | 'Item'>): TransactItem {
  return { Put: { TableName: store.tables.ledger, Item: item, ...rest } };
}

/** A P&L aggregate as stored (a year of daily P&L converts 366 items: about 0.15 ms through a reader). */
export const toPnlEntry = reader<PnlEntry>({
  accountId: text,
  period: text,
  start: text,
  realizedPL: text,
  tradesClosed: count,
  wins: count,
  losses: count,
  version: count,
});

/** The P&L aggregate of one period of each of `accountIds` (none closed: absent), batched, as a fleet reads them. */
export async function getPnlOfAccounts(
  store: Store,
  accountIds: readonly string[],
  period: Period,
  start: string,
  consistent = false,
): Promise<PnlEntry[]> {
  const keys = accountIds.map((accountId) => pnlKey(accountId, period, start));
  return (await getLedgerItems(store, keys, consistent)).map(toPnlEntry);
}

/**
 * The stored P&L aggregates among `pnl` and performance figures among `perf`, read together (one BatchGetItem) for a
 * read-modify-write; missing ones are absent.
 */
export async function getAggregates(
  store: Store,
  accountId: string,
  pnl: readonly { period: Period; start: string }[],
  perf: readonly PeriodKey[],
): Promise<{ pnl: PnlEntry[]; perf: PeriodEntry[] }> {
  const keys = [...pnl.map((key) => pnlKey(accountId, key.period, key.start)), ...perf.map((key) => periodKey(accountId, key))];
  const found = await getLedgerItems(store, keys);
  return {
    pnl: found.filter((item) => isEntryOf(item, 'pnl')).map(toPnlEntry),
    perf: found.filter((item) => isEntryOf(item, 'perf')).map(toPeriodEntry),
  };
}

/** The stored performance figures of `period` of each of `owners`, read consistently; missing ones are absent. */
export async function getPeriodOfOwners(store: Store, owners: readonly string[], period: PeriodKey): Promise<PeriodEntry[]> {
  const keys = owners.map((owner) => periodKey(owner, period));
  return (await getLedgerItems(store, keys)).map(toPeriodEntry);
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
  const item = { ...entryItemKey(entry.accountId, 'equity', entry.interval, entry.start), ...entry };
  return ledgerPut(store, item, {
    ConditionExpression: 'attribute_not_exists(accountId) OR #time <= :time OR #time > :future',
    ExpressionAttributeNames: { '#time': 'time' },
    ExpressionAttributeValues: { ':time': entry.time, ':future': future },
  });
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

/**
 * The aggregates of one kind and unit (`pnl` by day, `equity` by hour, ...) of an account whose start lies in
 * [`first`, `last`] (stored times, unit starts), oldest first: one key range, reading the entries there are and
 * nothing else (at most `points`).
 */
export async function readEntries<K extends 'pnl' | 'equity'>(
  store: Store,
  accountId: string,
  kind: K,
  unit: LedgerUnits[K],
  [first, last]: readonly [string, string],
  points: number,
): Promise<ReturnType<(typeof ENTRY_OF)[K]>[]> {
  const items = await readKeyRange(store, accountId, entryKeyOf(kind, unit, first), entryKeyOf(kind, unit, last), points);
  return items.map((item) => ENTRY_OF[kind](item) as ReturnType<(typeof ENTRY_OF)[K]>);
}

const toEquityEntry = reader<EquityEntry>({
  accountId: text,
  interval: text,
  start: text,
  time: text,
  balance: text,
  nav: text,
  unrealizedPL: text,
});

const ENTRY_OF = { pnl: toPnlEntry, equity: toEquityEntry };

/** The daily equity points of `day` of each of `accountIds` that has one, by account (eventually consistent). */
async function dailyPoints(store: Store, accountIds: readonly string[], day: string): Promise<Map<string, EquityEntry>> {
  const keys = accountIds.map((id) => entryItemKey(id, 'equity', 'day', day));
  const items = await getLedgerItems(store, keys, false);
  return new Map(items.map((item) => [item.accountId as string, toEquityEntry(item)]));
}

/**
 * Each account's balance at the start of the day `firstDay` (a day start), read from its daily equity points: the
 * last one before that day (for several accounts, one BatchGetItem for the day before, which a bot that snapshots
 * daily has, then one Query per account that lacks it), or, for an account with none before, its first one up to
 * `lastDay`. Accounts without any are absent.
 */
export async function readStartBalances(
  store: Store,
  accountIds: readonly string[],
  firstDay: string,
  lastDay: string,
  concurrency: number,
): Promise<Map<string, EquityEntry>> {
  const dayBefore = new Date(Date.parse(firstDay) - 86_400_000).toISOString();
  // One account's Query below reads the day before as cheaply as the batch would, and finds an older point too: the
  // batch only saves requests for several accounts (one account's performance made one request more than it needed).
  const found = accountIds.length > 1 ? await dailyPoints(store, accountIds, dayBefore) : new Map<string, EquityEntry>();
  const prefix = entryPrefix('equity', 'day');
  const each = async (read: (id: string) => Promise<Item[]>) => {
    const lacking = accountIds.filter((id) => !found.has(id));
    for (const [item] of await pMap(lacking, read, { concurrency })) if (item) found.set(item.accountId as string, toEquityEntry(item));
  };
  // The last point before the window, then (none before) the first in it.
  await each((id) => readKeyRange(store, id, prefix, `${prefix}${dayBefore}`, 1, undefined, false));
  await each((id) => readKeyRange(store, id, `${prefix}${firstDay}`, `${prefix}${lastDay}`, 1));
  return found;
}

/**
 * As readStartBalances, for a short window of `days` days (a month: the comparison's) read in fewer requests: after
 * the batch for the day before, one Query per account that lacks it, from `lastDay` back, of at most `days` + 1 daily
 * points: the window holds at most `days`, so the last point before it is among them if there is one; if not, the
 * oldest read is the first in the window. One request where readStartBalances makes two for a bot that started in the
 * window, for at most `days` + 1 items.
 */
export async function readShortWindowStarts(
  store: Store,
  accountIds: readonly string[],
  firstDay: string,
  lastDay: string,
  days: number,
  concurrency: number,
): Promise<Map<string, EquityEntry>> {
  const dayBefore = new Date(Date.parse(firstDay) - 86_400_000).toISOString();
  const found = await dailyPoints(store, accountIds, dayBefore);
  const prefix = entryPrefix('equity', 'day');
  const lacking = accountIds.filter((id) => !found.has(id));
  const read = await pMap(lacking, (id) => readKeyRange(store, id, prefix, `${prefix}${lastDay}`, days + 1, days + 1, false), {
    concurrency,
  });
  for (const items of read) {
    const start = items.find((item) => String(item.start) < firstDay) ?? items[items.length - 1];
    if (start) found.set(start.accountId as string, toEquityEntry(start));
  }
  return found;
}

/** The performance figures an item of the ledger holds (an account's, of one period). */
export const toPeriodEntry = reader<PeriodEntry>({
  accountId: text,
  start: text,
  unit: text,
  figures: (_, item) => item.instruments as PeriodFigures,
  version: count,
});

/** The attributes of a period's figures, for the ledger's item and the fleet's alike. */
export function periodAttributes(period: PeriodKey, figures: PeriodFigures): Item {
  return { unit: period.unit, start: period.start, instruments: figures };
}

/** Writes a period's figures in place of the version read (or as new); refused if it changed. */
export function putPeriod(store: Store, entry: PeriodEntry, read: PeriodEntry | undefined): TransactItem {
  return versionedPut(
    store.tables.ledger,
    { ...periodKey(entry.accountId, entry), accountId: entry.accountId, ...periodAttributes(entry, entry.figures), version: entry.version },
    read,
  );
}

/** Removes a period's figures at the version read (no trade counts there any more). */
export function deletePeriod(store: Store, read: PeriodEntry): TransactItem {
  return {
    Delete: {
      TableName: store.tables.ledger,
      Key: periodKey(read.accountId, read),
      ConditionExpression: 'version = :version',
      ExpressionAttributeValues: { ':version': read.version },
    },
  };
}

/**
 * Where a set of period items lives: the ledger's partition of an account, or a partition of the fleet table
 * (fleet-table.ts), both sorted by `perf#<unit>#<start>`.
 */
export interface PeriodPartition {
  table: string;
  partitionKey: string;
  partition: string;
  sortKey: string;
}

/** An account's partition of the ledger. */
export function accountPeriods(store: Store, accountId: string): PeriodPartition {
  return { table: store.tables.ledger, partitionKey: 'accountId', partition: accountId, sortKey: KEY };
}

/**
 * The items of `periods` (windowPeriods: runs of days, blocks and months, in order) in `where`: one Query per run of
 * one unit, a key range holding exactly that run's items, so a window costs the periods that had closes, in a few
 * requests.
 */
export async function readPeriodItems(store: Store, where: PeriodPartition, periods: readonly PeriodKey[]): Promise<Item[]> {
  const runs: PeriodKey[][] = [];
  for (const period of periods) {
    const run = runs[runs.length - 1];
    if (run && run[0].unit === period.unit) run.push(period);
    else runs.push([period]);
  }
  const found = await Promise.all(
    runs.map((run) =>
      queryItems(store, {
        TableName: where.table,
        KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :first AND :last',
        ExpressionAttributeNames: { '#pk': where.partitionKey, '#sk': where.sortKey },
        ExpressionAttributeValues: {
          ':pk': where.partition,
          ':first': entryKeyOf('perf', run[0].unit, run[0].start),
          ':last': entryKeyOf('perf', run[0].unit, run[run.length - 1].start),
        },
      }),
    ),
  );
  return found.flat();
}

/** `periods` (as readPeriodItems) with their figures; a period with no item (no close) has none. */
export async function readPeriods(store: Store, where: PeriodPartition, periods: readonly PeriodKey[]): Promise<ReadPeriod[]> {
  const items = await readPeriodItems(store, where, periods);
  const figures = new Map(items.map((item) => [periodId(item as unknown as PeriodKey), item.instruments as PeriodFigures]));
  return periods.map((period) => ({ ...period, figures: figures.get(periodId(period)) ?? {} }));
}

/**
 * `periods` (as readPeriods) of each of `accountIds`, read consistently by key in BatchGetItems of a hundred keys,
 * `concurrency` at a time: a fleet's window in (accounts × periods) / 100 requests rather than a few Queries per
 * account. A key with no item (no close in that period) reads nothing and has no figures.
 */
export async function readPeriodsOfAccounts(
  store: Store,
  accountIds: readonly string[],
  periods: readonly PeriodKey[],
  concurrency: number,
): Promise<Map<string, ReadPeriod[]>> {
  const keys = accountIds.flatMap((id) => periods.map((period) => periodKey(id, period)));
  const found = await getLedgerItems(store, keys, true, concurrency);
  const figures = new Map(
    found.map((item) => [`${item.accountId}#${periodId(item as unknown as PeriodKey)}`, item.instruments as PeriodFigures]),
  );
  return new Map(
    accountIds.map((id) => [id, periods.map((period) => ({ ...period, figures: figures.get(`${id}#${periodId(period)}`) ?? {} }))]),
  );
}

/** Every period item of an account, any unit (the backfill's comparison with what its trades make). */
export async function readAllPeriods(store: Store, accountId: string): Promise<PeriodEntry[]> {
  const prefix = entryPrefix('perf');
  return (await readKeyRange(store, accountId, prefix, `${prefix}${ABOVE_EVERY_ID}`)).map(toPeriodEntry);
}

/**
 * The deletes of an account's statistics in the format before the roll-ups (`stats#day#<start>#<instrument>`), which the
 * backfill makes (one transaction item each).
 */
export async function legacyStatsRemovals(store: Store, accountId: string): Promise<TransactItem[]> {
  const prefix = 'stats#';
  const items = await readKeyRange(store, accountId, prefix, `${prefix}${ABOVE_EVERY_ID}`);
  return items.map((item) => ({ Delete: { TableName: store.tables.ledger, Key: { accountId, [KEY]: item[KEY] } } }));
}

const FEED_PREFIX = 'feed#';

/**
 * A feed's checkpoint (`feed#<name>`): the state, as JSON text the feed alone reads (a cursor, the positions it
 * builds), of what it has written; versioned, so a feed that lost a race with another learns it.
 */
export interface CheckpointEntry {
  accountId: string;
  name: string;
  /** JSON text. */
  state: string;
  version: number;
  updatedAt: string;
}

function checkpointKey(accountId: string, name: string): Item {
  return { accountId, [KEY]: `${FEED_PREFIX}${name}` };
}

const toCheckpoint = reader<CheckpointEntry>({
  accountId: text,
  name: (_, item) => String(item[KEY]).slice(FEED_PREFIX.length),
  state: text,
  version: count,
  updatedAt: text,
});

/** The account's checkpoints whose names start with `prefix`, by name (one Query). */
export async function readCheckpoints(store: Store, accountId: string, prefix = ''): Promise<CheckpointEntry[]> {
  const first = `${FEED_PREFIX}${prefix}`;
  return (await readKeyRange(store, accountId, first, `${first}${ABOVE_EVERY_ID}`)).map(toCheckpoint);
}

/** One checkpoint, read for a read-modify-write; undefined when there is none. */
export async function getCheckpoint(store: Store, accountId: string, name: string): Promise<CheckpointEntry | undefined> {
  const item = await getItem(store, store.tables.ledger, checkpointKey(accountId, name), true);
  return item && toCheckpoint(item);
}

/** Writes a checkpoint in place of the version read (0: none stored); refused if it moved. */
export function putCheckpoint(store: Store, entry: CheckpointEntry, readVersion: number): TransactItem {
  return versionedPut(
    store.tables.ledger,
    { ...checkpointKey(entry.accountId, entry.name), state: entry.state, version: entry.version, updatedAt: entry.updatedAt },
    readVersion === 0 ? undefined : { version: readVersion },
  );
}

const TRANSFER_PREFIX = 'transfer#';

/**
 * Money moved into or out of the account (`transfer#<time>#<id>`), which its trades did not make: a deposit or a
 * withdrawal, kept apart from every P&L figure so that a return can leave it out.
 */
export interface TransferEntry {
  accountId: string;
  /** The source's id of the transfer, unique in the account. */
  id: string;
  kind: 'deposit' | 'withdrawal';
  /** What moved, in its own asset: `amount`, and (a withdrawal's) the `fee` that left with it. */
  asset: string;
  amount: string;
  fee: string;
  /** When it reached or left the account. */
  time: string;
  /** What moved (amount and fee), in the account's currency at `rate`; null when no rate was known. */
  value: string | null;
  rate: string | null;
  /** The transaction's reference on its network or rail (a blockchain hash), if any. */
  reference: string | null;
}

function transferKey(accountId: string, time: string, id: string): Item {
  return { accountId, [KEY]: `${TRANSFER_PREFIX}${time}#${id}` };
}

const toTransfer = reader<TransferEntry>({
  accountId: text,
  id: text,
  kind: text,
  asset: text,
  amount: text,
  fee: text,
  time: text,
  value: orNull,
  rate: orNull,
  reference: orNull,
});

/** Writes a transfer (given again, the same item: a repeat changes nothing). */
export function putTransfer(store: Store, entry: TransferEntry): TransactItem {
  return ledgerPut(store, { ...transferKey(entry.accountId, entry.time, entry.id), ...withoutNulls(entry) });
}

/** The stored transfers among `keys`, read consistently; missing ones are absent. */
export async function getTransfers(
  store: Store,
  accountId: string,
  keys: readonly { time: string; id: string }[],
): Promise<TransferEntry[]> {
  const stored = keys.map((key) => transferKey(accountId, key.time, key.id));
  return (await getLedgerItems(store, stored)).map(toTransfer);
}

/** The account's transfers at times in [`from`, `to`] (stored times), oldest first: one key range. */
export async function readTransfers(store: Store, accountId: string, from: string, to: string): Promise<TransferEntry[]> {
  return (await readKeyRange(store, accountId, `${TRANSFER_PREFIX}${from}`, `${TRANSFER_PREFIX}${to}#${ABOVE_EVERY_ID}`)).map(toTransfer);
}

/** Whether any transfer of the account is kept (one item read at most). */
export async function holdsTransfers(store: Store, accountId: string): Promise<boolean> {
  return (await readKeyRange(store, accountId, TRANSFER_PREFIX, `${TRANSFER_PREFIX}${ABOVE_EVERY_ID}`, 1)).length > 0;
}

const FILL_PREFIX = 'fill#';

/** An exchange feed's fill (`fill#<instrument>#<fillId>`), kept once: given again, the same item. */
export function putFill(store: Store, accountId: string, fill: ExchangeFill): TransactItem {
  return ledgerPut(store, { accountId, [KEY]: `${FILL_PREFIX}${fill.instrument}#${fill.fillId}`, ...fill });
}

const toFill = reader<ExchangeFill>({
  orderId: text,
  fillId: text,
  instrument: text,
  side: text,
  amount: text,
  fee: text,
  feeCurrency: text,
  time: text,
});

/** Every fill an exchange feed kept of the account, by market and fill id (one Query, in pages). */
export async function readFills(store: Store, accountId: string): Promise<ExchangeFill[]> {
  return (await readKeyRange(store, accountId, FILL_PREFIX, `${FILL_PREFIX}${ABOVE_EVERY_ID}`)).map(toFill);
}

const RECONCILIATION_KEY = 'reconciliation';

/** A stored difference: the comparison's, with when it was first seen. */
export type StoredDifference = ReconciliationDifference;

/**
 * A bot's account's last reconciliation against its exchange account: the answer's figures but its tolerances, every
 * difference kept (DynamoDB's 400 KB hold some thousands; the check stores at most MAX_DIFFERENCES), and a version.
 */
export interface ReconciliationEntry extends Omit<Reconciliation, 'tolerances'> {
  version: number;
}

const toReconciliation = reader<ReconciliationEntry>({
  accountId: text,
  exchangeAccountId: text,
  checkedAt: text,
  matched: count,
  unchecked: count,
  differences: json,
  differenceCount: count,
  version: count,
});

/** The account's last reconciliation; undefined when it is not reconciled. */
export async function getReconciliation(store: Store, accountId: string, consistent = false): Promise<ReconciliationEntry | undefined> {
  const item = await getItem(store, store.tables.ledger, { accountId, [KEY]: RECONCILIATION_KEY }, consistent);
  return item && toReconciliation(item);
}

/** Writes a reconciliation in place of the version read (0: none stored); refused if it moved. */
export function putReconciliation(store: Store, entry: ReconciliationEntry, readVersion: number): TransactItem {
  const { differences, ...rest } = entry;
  return versionedPut(
    store.tables.ledger,
    { ...rest, [KEY]: RECONCILIATION_KEY, differences: JSON.stringify(differences) },
    readVersion === 0 ? undefined : { version: readVersion },
  );
}

/** The partition of the exchanges' last prices: not an account (no account id starts with `@`). */
const RATES_PARTITION = '@rates';
const RATES_PREFIX = 'rates#';

const RATES_AT_PREFIX = 'ratesat#';
/** How many of the latest `ratesat#` items before a window are read for the feeds' prices at its start. */
const RATES_BEFORE_WINDOW = 16;

/**
 * The last prices a feed read: `rates#<exchange>#<its account>` (one item a feed), and the same prices as the last of
 * their UTC hour and day (`ratesat#…`, one item a feed and interval), each rewritten by every sync in it.
 */
export function putRates(store: Store, feedAccountId: string, entry: RatesEntry): TransactItem[] {
  const item = {
    accountId: RATES_PARTITION,
    feed: feedAccountId,
    exchange: entry.exchange,
    time: entry.time,
    prices: JSON.stringify(entry.prices),
  };
  const at = Date.parse(entry.time);
  return [
    `${RATES_PREFIX}${entry.exchange}#${feedAccountId}`,
    ...INTERVALS.map(
      (interval) => `${RATES_AT_PREFIX}${interval}#${timestamp(periodStart(at, interval))}#${entry.exchange}#${feedAccountId}`,
    ),
  ].map((key) => ledgerPut(store, { ...item, [KEY]: key }));
}

const toRates = reader<RatesEntry>({
  exchange: text,
  time: text,
  prices: json,
});

/** Every exchange's last prices: one Query of a few items. */
export async function readRates(store: Store): Promise<RatesEntry[]> {
  return (await readKeyRange(store, RATES_PARTITION, RATES_PREFIX, `${RATES_PREFIX}${ABOVE_EVERY_ID}`)).map(toRates);
}

/**
 * The feeds' prices per `interval` for the intervals starting from `first` to `last` (stored times), oldest first,
 * after the latest items before `first` (the last RATES_BEFORE_WINDOW of them: every feed's last interval before the
 * window, for up to that many feeds): two Queries, about one item per interval and feed.
 */
export async function readRatesHistory(store: Store, interval: Interval, [first, last]: readonly [string, string]): Promise<RatesAt[]> {
  const prefix = `${RATES_AT_PREFIX}${interval}#`;
  const [before, within] = await Promise.all([
    readKeyRange(store, RATES_PARTITION, prefix, `${prefix}${first}`, RATES_BEFORE_WINDOW, undefined, false),
    readKeyRange(store, RATES_PARTITION, `${prefix}${first}`, `${prefix}${last}#${ABOVE_EVERY_ID}`),
  ]);
  return [...before.reverse(), ...within].map((item) => ({
    ...toRates(item),
    feed: item.feed as string,
    start: timestamp(periodStart(Date.parse(item.time as string), interval)),
  }));
}

/** The partition of the exchanges' request-weight limiters: not an account (no account id starts with `@`). */
const LIMITS_PARTITION = '@limits';
const LIMITS_PREFIX = 'limits#';

/**
 * An exchange's limiter as the last scheduled run of its feed left it (`@limits`, `limits#<exchange>`): its state as
 * JSON, one item an exchange, rewritten by each run. Read and written whole: runs take turns (one at a time).
 */
export async function getLimits(store: Store, exchange: string): Promise<string | undefined> {
  const item = await getItem(store, store.tables.ledger, { accountId: LIMITS_PARTITION, [KEY]: `${LIMITS_PREFIX}${exchange}` }, true);
  return item?.state as string | undefined;
}

export function putLimits(store: Store, exchange: string, state: string, time: string): TransactItem {
  return ledgerPut(store, { accountId: LIMITS_PARTITION, [KEY]: `${LIMITS_PREFIX}${exchange}`, state, time });
}
