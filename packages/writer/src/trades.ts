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
  periodsAfter,
  figuresRecomputed,
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
  const keys = [...registered].map(([id, openTime]) => ({ accountId, id, openTime }));
  return getTradeRecords(store, keys);
}

/**
 * The balance and the aggregates as a run of writeTrades calls last stored them (see writeTrades), by pnlId and
 * periodId: after preload, every aggregate the run's trades count in that is stored.
 */
export interface Written {
  balance?: BalanceRecord;
  pnl: Map<string, PnlEntry>;
  perf: Map<string, PeriodEntry>;
}

/**
 * Reads, into `written`, the balance and every aggregate that creating `trades` will rewrite, in one batch of reads
 * before their first transaction: the transactions of a history then follow one another without a read between
 * them, where each used to read the periods it was first to touch (a round trip per transaction). What is read is
 * only a starting point: each transaction is still conditioned on the versions it builds on.
 */
export async function preload(store: Store, accountId: string, trades: readonly Trade[], written: Written): Promise<void> {
  const closed = trades.filter((trade) => trade.status === 'closed');
  const [balance, read] = await Promise.all([
    balanceOf(store, accountId),
    getAggregates(store, accountId, uniquePeriods(closed), periodKeysOf(closed)),
  ]);
  written.balance = balance;
  written.pnl = new Map(read.pnl.map((entry) => [pnlId(entry), entry]));
  written.perf = new Map(read.perf.map((entry) => [periodId(entry), entry]));
}

export function uniquePeriods(closed: readonly Trade[]): { period: Period; start: string }[] {
  const keys = new Map(closed.flatMap((trade) => pnlPeriodsOf(trade.closeTime!)).map((key) => [pnlId(key), key]));
  return [...keys.values()];
}

/** A trade to store: as it is to be stored, and the stored one it replaces (none: a new trade, its id registered with it). */
export interface Change {
  trade: Trade;
  read?: StoredTrade;
}

/**
 * What a change of a trade from status `was` (undefined: new) to `now` counts as (rules.ts): none when its status
 * stays (an update; a correction moves the figures itself: writeCorrection). A gone trade counted open no more, so
 * closing it is as a history's close; a trade gone before it was ever stored counts nowhere.
 */
function eventOf(was: Trade['status'] | undefined, now: Trade['status']): TradeEvent['kind'] | undefined {
  if (was === now) return undefined;
  if (now === 'open') return 'opened';
  if (now === 'gone') return was === 'open' ? 'gone' : undefined;
  return was === 'open' ? 'closed' : 'recordedClosed';
}

/**
 * Writes `changes` in the account's currency (which the writer stamps on every trade it writes, from the balance it
 * reads), their effect on the balance, the P&L aggregates and the statistics, and `extra` items, in one transaction
 * conditioned on what was read: Retry when another writer changed it meanwhile. Returns false, writing nothing, when
 * the id of a new trade is registered already (or a trade is at its key): the caller sorts out which.
 *
 * `written`, given by a run of calls creating new trades (a history), carries the balance and aggregates as the last
 * call stored them, so the next call starts from them instead of reading them again: an import's transactions follow
 * one another without a read between them. Their versions are still the transaction's conditions, so if anyone else
 * wrote meanwhile the transaction is cancelled, the carried state is dropped and the retry reads afresh.
 */
export async function writeTrades(
  store: Store,
  accountId: string,
  changes: readonly Change[],
  { extra = [], written }: { extra?: readonly TransactItem[]; written?: Written } = {},
): Promise<boolean> {
  const closedOf = (trades: readonly Change[]) =>
    trades.filter(({ trade, read }) => trade.status === 'closed' && read?.trade.status !== 'closed').map(({ trade }) => trade);
  const periods = uniquePeriods(closedOf(changes));
  const rollups = periodKeysOf(closedOf(changes));
  // Carried (preloaded, then as the last call stored them): every aggregate these trades count in that is stored.
  const carried = written?.balance ? written : undefined;
  const [balance, { pnl: stored, perf: storedPerf }] = carried
    ? [
        carried.balance!,
        {
          pnl: periods.flatMap((key) => carried.pnl.get(pnlId(key)) ?? []),
          perf: rollups.flatMap((key) => carried.perf.get(periodId(key)) ?? []),
        },
      ]
    : await Promise.all([balanceOf(store, accountId), getAggregates(store, accountId, periods, rollups)]);
  const stamped = changes.map(({ trade, read }) => ({ read, trade: inCurrency(trade, balance.currency) }));
  const events = stamped.flatMap(({ trade, read }) => {
    const kind = eventOf(read?.trade.status, trade.status);
    return kind ? [{ kind, trade }] : [];
  });
  const closed = closedOf(stamped);
  const nextBalance = balanceAfter(balance, events);
  const aggregates = aggregatesAfter(accountId, stored, closed);
  const perf = periodsAfter(accountId, balance.currency, storedPerf, closed);
  const items: TransactItem[] = [
    ...stamped.flatMap(({ trade, read }) =>
      read
        ? [putTrade(store, trade, read)]
        : [registerTradeId(store, accountId, trade.id, trade.openTime), putTrade(store, trade, undefined)],
    ),
    ...(events.length ? [putBalance(store, nextBalance, balance)] : []),
    ...aggregates.map((entry) => putPnl(store, entry, findEntry(stored, entry))),
    ...perf.map((entry) => putPeriod(store, entry, findPeriod(storedPerf, entry))),
    ...extra,
  ];
  try {
    await transactWrite(store, items);
  } catch (error) {
    // Dropped: the run's next call reads afresh.
    if (written) written.balance = undefined;
    if (!(error instanceof TransactionCancelled)) throw error;
    // New trades alone: two items each (their register, then the trade).
    const refused = (i: number) => error.conditionFailed(2 * i) || error.conditionFailed(2 * i + 1);
    if (changes.every(({ read }) => !read) && changes.some((_, i) => refused(i))) return false;
    throw new Retry();
  }
  // Read afresh (after a conflict dropped what was carried), what is stored of the run's later trades is unknown.
  if (carried) {
    carried.balance = nextBalance;
    for (const entry of aggregates) carried.pnl.set(pnlId(entry), entry);
    for (const entry of perf) carried.perf.set(periodId(entry), entry);
  }
  return true;
}

/** The stored P&L aggregate of `key`'s period, and the stored statistics of a roll-up period (undefined: none yet). */
const findEntry = (entries: readonly PnlEntry[], key: { period: string; start: string }) =>
  entries.find((entry) => pnlId(entry) === pnlId(key));
const findPeriod = (entries: readonly PeriodEntry[], key: PeriodKey) => entries.find((entry) => periodId(entry) === periodId(key));

/**
 * What a run of corrections of one account reads once and keeps while nobody else writes: the account's closed trades
 * as stored (by id). Cleared when a write is refused (someone else wrote): the next attempt reads afresh.
 */
export interface Corrections {
  closed?: Map<string, Trade>;
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
  const [periods, rollups] = [uniquePeriods([was, correcting]), periodKeysOf([was, correcting])];
  const [balance, stored] = await Promise.all([balanceOf(store, accountId), getAggregates(store, accountId, periods, rollups)]);
  const corrected = inCurrency(correcting, balance.currency);
  // Every closed trade of the account, by id (one Query, followed to the end).
  corrections.closed ??= new Map(
    (await readTrades(store, tradeListing(accountId, { status: 'closed' }), {})).map((trade) => [trade.id, trade]),
  );
  const trades = [...corrections.closed.values()].map((trade) => (trade.id === corrected.id ? corrected : trade));
  const figures = figuresRecomputed(accountId, balance.currency, { periods, rollups }, trades, stored);
  const items: TransactItem[] = [
    putTrade(store, corrected, read),
    putBalance(store, balanceAfterCorrection(balance, was, corrected, trades), balance),
    ...figures.pnl.map((entry) => putPnl(store, entry, findEntry(stored.pnl, entry))),
  ];
  for (const [index, key] of rollups.entries()) {
    const [perf, storedPerf] = [figures.perf[index], findPeriod(stored.perf, key)];
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
