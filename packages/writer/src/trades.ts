/**
 * The read-modify-writes of trades: creating a group of new trades, closing one, updating one. Each function here is
 * one attempt: it reads, computes what must be stored next (rules.ts) and writes it in one transaction conditioned
 * on what it read, throwing Retry when another writer changed it meanwhile. Callers run them inside `attempts`
 * (retry.ts), which reads again and retries.
 */
import { type BalanceRecord, getBalanceRecord, putBalance } from '@trading-bot-api/core/store/balances-table';
import { type Store, TransactionCancelled, type TransactItem, transactWrite } from '@trading-bot-api/core/store/dynamodb';
import {
  deletePeriod,
  getAggregates,
  getRegisteredOpenTime,
  getRegisteredOpenTimes,
  type PeriodEntry,
  type PnlEntry,
  putPeriod,
  putPnl,
  registerTradeId,
} from '@trading-bot-api/core/store/ledger-table';
import { type PeriodKey, periodId } from '@trading-bot-api/core/rollups';
import { getTradeRecord, getTradeRecords, putTrade, readTrades, tradeListing } from '@trading-bot-api/core/store/trades-table';
import { canonicalJson } from '@trading-bot-api/core/canonical';
import { contractOf, pairOfInstrument } from '@trading-bot-api/core/instruments';
import type { Period } from '@trading-bot-api/core/time';
import type { Trade } from '@trading-bot-api/core/types';
import * as errors from './errors';
import type { Close, TradeMarks } from './validate';
import { commit, Retry } from './retry';
import {
  aggregatesAfter,
  balanceAfter,
  balanceAfterCorrection,
  pnlId,
  pnlPeriodsOf,
  periodKeysOf,
  periodRecomputed,
  periodsAfter,
  pnlRecomputed,
  type TradeEvent,
} from './rules';

/** What makes a trade that trade: a stored trade given again with another of these is another trade (a conflict). */
export const IDENTITY = ['instrument', 'side', 'openTime'] as const;
/** The position of an open trade, which changes when a bot adds to it or exits part of it. */
export const POSITION = ['units', 'openPrice'] as const;
export const CLOSING = ['closePrice', 'closeTime', 'realizedPL'] as const;
export const MARKS = ['unrealizedPL', 'stopLoss', 'takeProfit'] as const;
/**
 * What a source may say of a trade besides (API 1.5): each null when it did not say. Given null, what is stored
 * stands: a source that says less than before (an event line's close without fees) never erases what was said.
 */
export const DETAILS = ['market', 'leverage', 'fees', 'fundingFees', 'liquidationPrice', 'orderIds'] as const;

/** A stored trade and the version it was read at. */
export interface StoredTrade {
  trade: Trade;
  version: number;
}

/** The fields among `fields` in which two trades differ (lists, such as the fees, by their content). */
export function differing(a: Trade, b: Trade, fields: readonly (keyof Trade)[]): (keyof Trade)[] {
  return fields.filter((field) =>
    typeof a[field] === 'object' && a[field] !== null && b[field] !== null
      ? canonicalJson(a[field]) !== canonicalJson(b[field])
      : a[field] !== b[field],
  );
}

/**
 * `stored` with what `given` says of it besides (DETAILS, and why it closed), where `given` says it: a detail given
 * null keeps the stored one. A futures trade stored before API 1.5 under its pair (`SOL_USDT`, its market unknown)
 * takes the instrument that names its contract (`SOL_USDT_PERP`): the same trade, now said whole.
 */
export function withDetails(stored: Trade, given: Trade): Trade {
  const merged: Trade = { ...stored, closeReason: given.closeReason ?? stored.closeReason };
  for (const field of DETAILS) if (given[field] !== null) Object.assign(merged, { [field]: given[field] });
  if (namesContractOf(stored, given)) merged.instrument = given.instrument;
  return merged;
}

/** `stored` closed as `given` (a closed trade) says: its details merged (withDetails), and why it closed its own. */
export function closedAs(stored: Trade, given: Trade): Trade {
  return {
    ...withDetails(stored, given),
    ...pick(given, [...POSITION, ...CLOSING, ...MARKS]),
    status: 'closed',
    closeReason: given.closeReason,
  };
}

/** Whether `given` names the contract of `stored`, a trade stored before API 1.5 under its pair alone. */
export function namesContractOf(stored: Trade, given: Trade): boolean {
  return (
    stored.market === null &&
    contractOf(stored.instrument) === 'none' &&
    contractOf(given.instrument) !== 'none' &&
    pairOfInstrument(given.instrument) === stored.instrument
  );
}

/**
 * The fees of a trade after its close reported `given` (leg `close` unless said): the opening's as stored, then the
 * close's. Fees given with leg `open` too are the trade's whole list; and so are those given at the close of a trade
 * whose opening's fees are unknown (a bot that says its fees once, when it closes). Given none, the stored stand.
 */
function feesAfterClose(stored: Trade['fees'], given: Trade['fees']): Trade['fees'] {
  if (given === null) return stored;
  if (stored === null || given.some((fee) => fee.leg === 'open')) return given;
  return [...stored.filter((fee) => fee.leg === 'open'), ...given];
}

/** The order ids of `stored` with those of `given` after them, each once (null when neither has any). */
function orderIdsWith(stored: Trade['orderIds'], given: Trade['orderIds']): Trade['orderIds'] {
  if (given === null) return stored;
  return [...new Set([...(stored ?? []), ...given])];
}

/**
 * `trade` (open, or gone: the bot knew its outcome after all) as `close` leaves it: closed, why (a gone trade's reason
 * was why it was gone, not why it closed), its fees (feesAfterClose), funding and order ids. What closeTrade stores,
 * and what an ingester folds an open and its close into.
 */
export function tradeAfterClose(trade: Trade, close: Close): Trade {
  return {
    ...trade,
    ...pick(close, [...CLOSING, 'unrealizedPL']),
    status: 'closed',
    closeReason: close.closeReason ?? (trade.status === 'closed' ? trade.closeReason : null),
    fees: feesAfterClose(trade.fees, close.fees),
    fundingFees: close.fundingFees ?? trade.fundingFees,
    orderIds: orderIdsWith(trade.orderIds, close.orderIds),
  };
}

/** `trade` as `marks` leave it: what updateTradeMarks stores (an opening's fees given replace those it had). */
export function tradeAfterMarks(trade: Trade, marks: TradeMarks): Trade {
  const { fees, orderIds, ...plain } = marks;
  return { ...trade, ...plain, fees: fees ?? trade.fees, orderIds: orderIdsWith(trade.orderIds, orderIds ?? null) };
}

/** `trade` in its account's currency (which the writer stamps on every trade it writes, from the balance it read). */
function inCurrency(trade: Trade, currency: string): Trade {
  return trade.currency === currency ? trade : { ...trade, currency };
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

/** How many items of a transaction the balance takes. */
export const BALANCE_ITEMS = 1;

/** The stored trade with `tradeId`, found through the ledger's register of ids. */
export async function storedTrade(store: Store, accountId: string, tradeId: string): Promise<StoredTrade | undefined> {
  const openTime = await getRegisteredOpenTime(store, accountId, tradeId);
  if (openTime === undefined) return undefined;
  return getTradeRecord(store, { accountId, id: tradeId, openTime });
}

/** The stored trades among `tradeIds`, by id (ids no trade has are absent): their registers, then the trades, in batches. */
export async function storedTrades(store: Store, accountId: string, tradeIds: readonly string[]): Promise<Map<string, StoredTrade>> {
  const registered = await getRegisteredOpenTimes(store, accountId, tradeIds);
  return getTradeRecords(
    store,
    [...registered].map(([id, openTime]) => ({ accountId, id, openTime })),
  );
}

/** The balance and the aggregates as a run of createTrades calls last stored them (see createTrades). */
export interface Written {
  balance?: BalanceRecord;
  pnl: Map<string, PnlEntry>;
  perf: Map<string, PeriodEntry>;
  /** Aggregates read and found not stored, by pnlId and periodId: the first transaction to count in one creates it. */
  absentPnl: Set<string>;
  absentPerf: Set<string>;
}

export function carrying(): Written {
  return { pnl: new Map(), perf: new Map(), absentPnl: new Set(), absentPerf: new Set() };
}

export function forget(written: Written): void {
  written.balance = undefined;
  written.pnl.clear();
  written.perf.clear();
  written.absentPnl.clear();
  written.absentPerf.clear();
}

/**
 * `keys` split by what a run carried (`held`, entries by id; `absent`, ids known not stored): the keys to read, and
 * the carried entries of the rest.
 */
function byCarried<K, E>(
  keys: readonly K[],
  held: ReadonlyMap<string, E> | undefined,
  absent: ReadonlySet<string> | undefined,
  id: (key: K) => string,
): { unread: K[]; held: E[] } {
  if (!held) return { unread: [...keys], held: [] };
  return {
    unread: keys.filter((key) => !held.has(id(key)) && !absent?.has(id(key))),
    held: keys.flatMap((key) => held.get(id(key)) ?? []),
  };
}

/**
 * Reads, into `written`, the balance and every aggregate that creating `trades` will rewrite, in one batch of reads
 * before their first transaction: the transactions of a history then follow one another without a read between
 * them, where each used to read the periods it was first to touch (a round trip per transaction). What is read is
 * only a starting point: each transaction is still conditioned on the versions it builds on.
 */
export async function preload(store: Store, accountId: string, trades: readonly Trade[], written: Written): Promise<void> {
  const closed = trades.filter((trade) => trade.status === 'closed');
  const periods = uniquePeriods(closed);
  const rollups = periodKeysOf(closed);
  const [balance, read] = await Promise.all([balanceOf(store, accountId), getAggregates(store, accountId, periods, rollups)]);
  forget(written);
  written.balance = balance;
  for (const entry of read.pnl) written.pnl.set(pnlId(entry), entry);
  for (const entry of read.perf) written.perf.set(periodId(entry), entry);
  for (const key of periods) if (!written.pnl.has(pnlId(key))) written.absentPnl.add(pnlId(key));
  for (const key of rollups) if (!written.perf.has(periodId(key))) written.absentPerf.add(periodId(key));
}

export function uniquePeriods(closed: readonly Trade[]): { period: Period; start: string }[] {
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
  const rollups = periodKeysOf(closed);
  const carried = written?.balance ? written : undefined;
  const pnlWanted = byCarried(periods, carried?.pnl, carried?.absentPnl, pnlId);
  const perfWanted = byCarried(rollups, carried?.perf, carried?.absentPerf, periodId);
  const [balance, read] = await Promise.all([
    carried?.balance ?? balanceOf(store, accountId),
    getAggregates(store, accountId, pnlWanted.unread, perfWanted.unread),
  ]);
  const stored = [...read.pnl, ...pnlWanted.held];
  const storedPerf = [...read.perf, ...perfWanted.held];
  // A gone trade of a history counts nowhere: neither open, nor in any figure.
  const events: TradeEvent[] = trades
    .filter((trade) => trade.status !== 'gone')
    .map((trade) => ({ kind: trade.status === 'open' ? 'opened' : 'recordedClosed', trade }));
  const nextBalance = balanceAfter(balance, events);
  const aggregates = aggregatesAfter(accountId, stored, closed);
  const perf = periodsAfter(accountId, balance.currency, storedPerf, closed);
  const items: TransactItem[] = [
    ...trades.flatMap((trade) => [
      registerTradeId(store, accountId, trade.id, trade.openTime),
      putTrade(store, inCurrency(trade, balance.currency), undefined),
    ]),
    putBalance(store, nextBalance, balance),
    ...aggregates.map((entry) => putPnl(store, entry, findEntry(stored, entry))),
    ...perf.map((entry) => putPeriod(store, entry, findPeriod(storedPerf, entry))),
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
    for (const entry of aggregates) written.pnl.set(pnlId(entry), entry);
    for (const entry of perf) written.perf.set(periodId(entry), entry);
  }
  return true;
}

/** The stored P&L aggregate of `key`'s period, and the stored statistics of a roll-up period (undefined: none yet). */
export const findEntry = (entries: readonly PnlEntry[], key: { period: string; start: string }) =>
  entries.find((entry) => pnlId(entry) === pnlId(key));
export const findPeriod = (entries: readonly PeriodEntry[], key: PeriodKey) => entries.find((entry) => periodId(entry) === periodId(key));

/**
 * Stores `closed` (the stored trade `read`, open or gone, closed), counting it in the balance, the aggregates and the
 * statistics; a gone trade was out of the open count already.
 */
export async function writeClose(store: Store, accountId: string, read: StoredTrade, closing: Trade): Promise<void> {
  const [balance, { pnl: stored, perf: storedPerf }] = await Promise.all([
    balanceOf(store, accountId),
    getAggregates(store, accountId, pnlPeriodsOf(closing.closeTime!), periodKeysOf([closing])),
  ]);
  const closed = inCurrency(closing, balance.currency);
  const aggregates = aggregatesAfter(accountId, stored, [closed]);
  const perf = periodsAfter(accountId, balance.currency, storedPerf, [closed]);
  await commit(store, [
    putTrade(store, closed, read),
    putBalance(
      store,
      balanceAfter(balance, [{ kind: read.trade.status === 'gone' ? 'recordedClosed' : 'closed', trade: closed }]),
      balance,
    ),
    ...aggregates.map((entry) => putPnl(store, entry, findEntry(stored, entry))),
    ...perf.map((entry) => putPeriod(store, entry, findPeriod(storedPerf, entry))),
  ]);
}

/** Stores `gone` (the stored open trade `read`, gone from the bot) and takes it out of the open count. */
export async function writeGone(store: Store, accountId: string, read: StoredTrade, gone: Trade): Promise<void> {
  const balance = await balanceOf(store, accountId);
  await commit(store, [
    putTrade(store, inCurrency(gone, balance.currency), read),
    putBalance(store, balanceAfter(balance, [{ kind: 'gone', trade: gone }]), balance),
  ]);
}

/**
 * What a run of corrections of one account reads once and keeps while nobody else writes: the account's closed trades
 * as stored (by id). Cleared when a write is refused (someone else wrote): the next attempt reads afresh.
 */
export interface Corrections {
  closed?: Map<string, Trade>;
}

/** Every closed trade of an account, by id (one Query, followed to the end). */
async function closedTradesOf(store: Store, accountId: string): Promise<Map<string, Trade>> {
  const trades = await readTrades(store, tradeListing(accountId, { status: 'closed' }), {});
  return new Map(trades.map((trade) => [trade.id, trade]));
}

/**
 * Stores `corrected` in place of the closed trade `read` (its source corrected its record: a P&L, a price, a time),
 * and moves every figure that counted it: the realized P&L, the P&L aggregates of its periods and the statistics of
 * its roll-up periods (before and after) are recomputed from the account's closed trades, as the closes would have
 * made them (a sum cannot take out a noisy figure without keeping its places, nor a merge undo a best or worst
 * trade); the balance moves by the difference when the close counted in it (balanceAfterCorrection). One
 * transaction: all of it or none. (The fleet projector recomputes the fleet's figures of those periods from it.)
 */
export async function writeCorrection(
  store: Store,
  accountId: string,
  read: StoredTrade,
  correcting: Trade,
  corrections: Corrections,
): Promise<void> {
  const was = read.trade;
  const rollups = periodKeysOf([was, correcting]);
  const [balance, stored] = await Promise.all([
    balanceOf(store, accountId),
    getAggregates(store, accountId, uniquePeriods([was, correcting]), rollups),
  ]);
  const corrected = inCurrency(correcting, balance.currency);
  corrections.closed ??= await closedTradesOf(store, accountId);
  const trades = [...corrections.closed.values()].map((trade) => (trade.id === corrected.id ? corrected : trade));
  const items: TransactItem[] = [
    putTrade(store, corrected, read),
    putBalance(store, balanceAfterCorrection(balance, was, corrected, trades), balance),
    ...uniquePeriods([was, corrected]).map((period) => {
      const storedPnl = findEntry(stored.pnl, period);
      return putPnl(store, pnlRecomputed(accountId, period, trades, storedPnl), storedPnl);
    }),
  ];
  for (const key of rollups) {
    const storedPerf = findPeriod(stored.perf, key);
    const perf = periodRecomputed(accountId, balance.currency, key, trades, storedPerf);
    if (perf) items.push(putPeriod(store, perf, storedPerf));
    else if (storedPerf) items.push(deletePeriod(store, storedPerf));
  }
  try {
    await commit(store, items);
  } catch (error) {
    if (error instanceof Retry) corrections.closed = undefined;
    throw error;
  }
  corrections.closed.set(corrected.id, corrected);
}
