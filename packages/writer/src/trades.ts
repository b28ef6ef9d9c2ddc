/**
 * The read-modify-writes of trades: creating a group of new trades, closing one, updating one. Each function here is
 * one attempt: it reads, computes what must be stored next (rules.ts) and writes it in one transaction conditioned
 * on what it read, throwing Retry when another writer changed it meanwhile. Callers run them inside `attempts`
 * (retry.ts), which reads again and retries.
 */
import { type BalanceRecord, getBalanceRecord, putBalance } from '../../../lib/store/balances-table';
import { type Store, TransactionCancelled, type TransactItem, transactWrite } from '../../../lib/store/dynamodb';
import {
  readStatusStamp,
  type Stamps,
  type StoredStatus,
  shardOf,
  statusAfter,
  stampWrites,
  tradesStamp,
} from '../../../lib/store/fleet-table';
import {
  fleetStatsOwner,
  getAggregates,
  getRegisteredOpenTime,
  type PnlEntry,
  putPnl,
  putStats,
  registerTradeId,
  type StatsEntry,
} from '../../../lib/store/ledger-table';
import { getTradeRecord, putTrade } from '../../../lib/store/trades-table';
import type { Trade } from '../../../lib/types';
import * as errors from './errors';
import { commit, Retry } from './retry';
import { aggregatesAfter, balanceAfter, pnlId, pnlPeriodsOf, statsAfter, statsId, statsKeyOf, type TradeEvent } from './rules';

/** What makes a trade that trade: a stored trade given again with another of these is another trade (a conflict). */
export const IDENTITY = ['instrument', 'side', 'openTime'] as const;
/** The position of an open trade, which changes when a bot adds to it or exits part of it. */
export const POSITION = ['units', 'openPrice'] as const;
export const CLOSING = ['closePrice', 'closeTime', 'realizedPL'] as const;
export const MARKS = ['unrealizedPL', 'stopLoss', 'takeProfit'] as const;

/** A stored trade and the version it was read at. */
export interface StoredTrade {
  trade: Trade;
  version: number;
}

/** The fields among `fields` in which two trades differ. */
export function differing(a: Trade, b: Trade, fields: readonly (keyof Trade)[]): string[] {
  return fields.filter((field) => a[field] !== b[field]);
}

export function pick<T extends object, K extends keyof T>(value: T, keys: readonly K[]): Pick<T, K> {
  return Object.fromEntries(keys.map((key) => [key, value[key]])) as Pick<T, K>;
}

/** The account's balance record, read for a read-modify-write; ACCOUNT_NOT_FOUND without one. */
export async function balanceOf(store: Store, accountId: string): Promise<BalanceRecord> {
  const record = await getBalanceRecord(store, accountId);
  if (!record) throw errors.accountNotFound(accountId);
  return record;
}

/** The trade counts `next` stamps, when they differ from those of `read` (undefined: a new account). */
function tradesChange(next: BalanceRecord, read: BalanceRecord | undefined): Stamps {
  const trades = tradesStamp(next);
  return read && tradesStamp(read) === trades ? {} : { trades };
}

/**
 * Writes `next` in place of the balance record `read` (undefined: a new account), with the fleet's stamps of it: its
 * version always, its trade counts when they changed (half of the status's stamp, written only then: `status` is
 * that stamp as read), and any other `stamps` of the same write (a transaction may touch each stamp item once, so
 * they go together).
 */
export function balanceWrites(
  store: Store,
  next: BalanceRecord,
  read: BalanceRecord | undefined,
  stamps: Stamps = {},
  status?: StoredStatus,
): TransactItem[] {
  return [
    putBalance(store, next, read),
    ...stampWrites(store, next.accountId, { ...stamps, balance: next.version, ...tradesChange(next, read) }, status),
  ];
}

/** At most this many items of a transaction are the balance and its fleet stamps (see balanceWrites). */
export const BALANCE_ITEMS = 3;

/** The stored trade with `tradeId`, found through the ledger's register of ids. */
export async function storedTrade(store: Store, accountId: string, tradeId: string): Promise<StoredTrade | undefined> {
  const openTime = await getRegisteredOpenTime(store, accountId, tradeId);
  if (openTime === undefined) return undefined;
  return getTradeRecord(store, { accountId, id: tradeId, openTime });
}

/** The balance, its status stamp and the aggregates as a run of createTrades calls last stored them (see createTrades). */
export interface Written {
  balance?: BalanceRecord;
  status?: StoredStatus;
  pnl: Map<string, PnlEntry>;
  stats: Map<string, StatsEntry>;
  /** The fleet's sums of the account's currency and shard (ledger-table's fleetStatsOwner), as last stored. */
  fleet: Map<string, StatsEntry>;
}

export function carrying(): Written {
  return { pnl: new Map(), stats: new Map(), fleet: new Map() };
}

export function forget(written: Written): void {
  written.balance = undefined;
  written.status = undefined;
  written.pnl.clear();
  written.stats.clear();
  written.fleet.clear();
}

/** The fleet's statistics `closed` touch, as stored: those carried by `written`, and the rest read once `balance` gives the currency. */
async function storedFleetStats(
  store: Store,
  balance: Promise<BalanceRecord>,
  days: readonly { start: string; instrument: string }[],
  carried?: Written,
): Promise<{ owner: string; stored: StatsEntry[] }> {
  const { accountId, currency } = await balance;
  const owner = fleetStatsOwner(currency, shardOf(accountId));
  const wanted = byCarried(days, carried?.fleet, statsId);
  const { stats: read } = await getAggregates(store, owner, [], wanted.unread);
  return { owner, stored: [...read, ...wanted.held] };
}

/** `keys` split by what a run carried (`held`, entries by id): the keys to read, and the carried entries of the rest. */
function byCarried<K, E>(keys: readonly K[], held: ReadonlyMap<string, E> | undefined, id: (key: K) => string): { unread: K[]; held: E[] } {
  if (!held) return { unread: [...keys], held: [] };
  return { unread: keys.filter((key) => !held.has(id(key))), held: keys.flatMap((key) => held.get(id(key)) ?? []) };
}

/** The days and instruments whose statistics `closed` touch, each once. */
export function uniqueStatsKeys(closed: readonly Trade[]): { start: string; instrument: string }[] {
  return [...new Map(closed.map((trade) => statsKeyOf(trade)).map((key) => [statsId(key), key])).values()];
}

function uniquePeriods(closed: readonly Trade[]) {
  const keys = new Map(closed.flatMap((trade) => pnlPeriodsOf(trade.closeTime!)).map((key) => [pnlId(key), key]));
  return [...keys.values()];
}

/**
 * Writes new trades (none of them stored yet, open or closed) and their effect on the balance and the aggregates, in
 * one transaction. Returns false, writing nothing, when one of the ids is registered already.
 *
 * `written`, given by a run of calls (a history), carries the balance and aggregates as the last call stored them,
 * so the next call starts from them instead of reading them again: an import's transactions follow one another
 * without a read between them. Their versions are still the transaction's conditions, so if anyone else wrote
 * meanwhile the transaction is cancelled, the carried state is dropped and the retry reads afresh.
 */
export async function createTrades(store: Store, accountId: string, trades: readonly Trade[], written?: Written): Promise<boolean> {
  const closed = trades.filter((trade) => trade.status === 'closed');
  const periods = uniquePeriods(closed);
  const days = uniqueStatsKeys(closed);
  const carried = written?.balance && written.status ? written : undefined;
  const balanceRead = carried?.balance ? Promise.resolve(carried.balance) : balanceOf(store, accountId);
  const pnlWanted = byCarried(periods, carried?.pnl, pnlId);
  const statsWanted = byCarried(days, carried?.stats, statsId);
  const [balance, status, read, fleetRead] = await Promise.all([
    balanceRead,
    carried?.status ?? readStatusStamp(store, accountId),
    getAggregates(store, accountId, pnlWanted.unread, statsWanted.unread),
    storedFleetStats(store, balanceRead, days, carried),
  ]);
  const stored = [...read.pnl, ...pnlWanted.held];
  const storedStats = [...read.stats, ...statsWanted.held];
  const events: TradeEvent[] = trades.map((trade) => ({ kind: trade.status === 'open' ? 'opened' : 'recordedClosed', trade }));
  const nextBalance = balanceAfter(balance, events);
  const aggregates = aggregatesAfter(accountId, stored, closed);
  const stats = statsAfter(accountId, storedStats, closed);
  const fleet = statsAfter(fleetRead.owner, fleetRead.stored, closed);
  const items: TransactItem[] = [
    ...trades.flatMap((trade) => [registerTradeId(store, accountId, trade.id, trade.openTime), putTrade(store, trade, undefined)]),
    ...balanceWrites(store, nextBalance, balance, {}, status),
    ...aggregates.map((entry) => putPnl(store, entry, findEntry(stored, entry))),
    ...stats.map((entry) => putStats(store, entry, findStats(storedStats, entry))),
    ...fleet.map((entry) => putStats(store, entry, findStats(fleetRead.stored, entry))),
  ];
  try {
    await transactWrite(store, items);
  } catch (error) {
    if (written) forget(written);
    if (!(error instanceof TransactionCancelled)) throw error;
    // An id already registered (or a trade already at that key): the caller sorts out which.
    if (trades.some((_, i) => error.conditionFailed(2 * i) || error.conditionFailed(2 * i + 1))) return false;
    throw new Retry();
  }
  if (written) {
    written.balance = nextBalance;
    written.status = { stamp: statusAfter(tradesChange(nextBalance, balance), status) ?? status.stamp };
    for (const entry of aggregates) written.pnl.set(pnlId(entry), entry);
    for (const entry of stats) written.stats.set(statsId(entry), entry);
    for (const entry of fleet) written.fleet.set(statsId(entry), entry);
  }
  return true;
}

function findEntry(entries: readonly PnlEntry[], key: { period: string; start: string }): PnlEntry | undefined {
  return entries.find((entry) => entry.period === key.period && entry.start === key.start);
}

function findStats(entries: readonly StatsEntry[], key: { start: string; instrument: string }): StatsEntry | undefined {
  return entries.find((entry) => entry.start === key.start && entry.instrument === key.instrument);
}

/** Stores `closed` (the stored open trade `read`, closed), counting it in the balance, the aggregates and the statistics. */
export async function writeClose(store: Store, accountId: string, read: StoredTrade, closed: Trade): Promise<void> {
  const balanceRead = balanceOf(store, accountId);
  const [balance, status, { pnl: stored, stats: storedStats }, fleetRead] = await Promise.all([
    balanceRead,
    readStatusStamp(store, accountId),
    getAggregates(store, accountId, pnlPeriodsOf(closed.closeTime!), [statsKeyOf(closed)]),
    storedFleetStats(store, balanceRead, [statsKeyOf(closed)]),
  ]);
  const aggregates = aggregatesAfter(accountId, stored, [closed]);
  const stats = statsAfter(accountId, storedStats, [closed]);
  const fleet = statsAfter(fleetRead.owner, fleetRead.stored, [closed]);
  await commit(store, [
    putTrade(store, closed, read),
    ...balanceWrites(store, balanceAfter(balance, [{ kind: 'closed', trade: closed }]), balance, {}, status),
    ...aggregates.map((entry) => putPnl(store, entry, findEntry(stored, entry))),
    ...stats.map((entry) => putStats(store, entry, findStats(storedStats, entry))),
    ...fleet.map((entry) => putStats(store, entry, findStats(fleetRead.stored, entry))),
  ]);
}

/** Stores `updated` in place of the open trade `read` (its marks or position changed; no figure of the account does). */
export async function writeUpdate(store: Store, read: StoredTrade, updated: Trade): Promise<void> {
  await commit(store, [putTrade(store, updated, read)]);
}
