import { TRADE_INDEXES } from '../../../../resources/tables';
import { ABOVE_EVERY_ID } from '../ids';
import { feeTotalOf } from '../fees';
import { type Fee, TRADE_FIELDS, type Trade, type TradeStatus } from '../types';
import { batchGetItems, getItem, type Item, queryItems, type Store, type TransactItem, versionedPut, withoutNulls } from './dynamodb';

/**
 * Keys of the trades table: the only place that builds them.
 *
 * Every trade carries one `orderKey` = `openTime#id#accountId`. Times are fixed-width RFC 3339 UTC and ids use no
 * character below `#`, so comparing order keys as strings is the API's order (newest `openTime` first, then `id`,
 * then `accountId`), both here and in DynamoDB's byte-wise sort. Each filter combination has an index partitioned
 * by exactly that filter and sorted by `orderKey`, so a page is one key-range Query with no FilterExpression.
 */

type IndexName = keyof typeof TRADE_INDEXES;

export interface TradeFilter {
  status?: TradeStatus;
  instrument?: string;
}

/** Where one listing lives: a table or index, the partition key attribute and its value. */
export interface Listing {
  indexName?: IndexName;
  partitionKey: string;
  partitionValue: string;
}

const ALL = 'ALL';
const SEPARATOR = '#';

/** The sort position of a trade in every listing. */
export function orderKey(trade: Pick<Trade, 'openTime' | 'id' | 'accountId'>): string {
  return [trade.openTime, trade.id, trade.accountId].join(SEPARATOR);
}

/** The account a position (an order key) belongs to. */
export function accountOfOrderKey(key: string): string {
  return key.slice(key.lastIndexOf(SEPARATOR) + 1);
}

const ORDER_KEY = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z#[^#]+#[^#]+$/;

/** True when `key` has the shape of an order key. */
export function isOrderKey(key: string): boolean {
  return ORDER_KEY.test(key);
}

function compose(...parts: string[]): string {
  return parts.join(SEPARATOR);
}

/**
 * The stored item for a trade: its fields plus the key of every listing it appears in, and a version the writer
 * increments on every change (a write is made on condition that the version is the one read).
 */
export function tradeItem(trade: Trade, version = 1): Item {
  // `feeTotal` is derived from the fees and the currency whenever a trade is read (toTrade): stored, it could disagree.
  const { feeTotal: _derived, ...fields } = trade;
  // The fields a trade may not have are absent attributes rather than NULLs: nothing to index, and they read back as null.
  return {
    ...withoutNulls(fields),
    version,
    orderKey: orderKey(trade),
    accountStatus: compose(trade.accountId, trade.status),
    accountInstrument: compose(trade.accountId, trade.instrument),
    accountStatusInstrument: compose(trade.accountId, trade.status, trade.instrument),
    allTrades: ALL,
    statusInstrument: compose(trade.status, trade.instrument),
  };
}

/** The listing that holds exactly the trades of `accountId` (or of every account) matching `filter`. */
export function tradeListing(accountId: string | undefined, filter: TradeFilter): Listing {
  const { status, instrument } = filter;
  if (accountId !== undefined) {
    if (status && instrument) return index('account-status-instrument', compose(accountId, status, instrument));
    if (status) return index('account-status', compose(accountId, status));
    if (instrument) return index('account-instrument', compose(accountId, instrument));
    return { partitionKey: 'accountId', partitionValue: accountId };
  }
  if (status && instrument) return index('status-instrument', compose(status, instrument));
  if (status) return index('status', status);
  if (instrument) return index('instrument', instrument);
  return index('all', ALL);
}

function index(indexName: IndexName, partitionValue: string): Listing {
  return { indexName, partitionKey: TRADE_INDEXES[indexName], partitionValue };
}

/** The key of a trade in the table: its account and its order key. */
function tradeKey(trade: Pick<Trade, 'openTime' | 'id' | 'accountId'>): Item {
  return { accountId: trade.accountId, orderKey: orderKey(trade) };
}

/** A stored trade and its version, read for a read-modify-write; `undefined` when there is none. */
export async function getTradeRecord(
  store: Store,
  trade: Pick<Trade, 'openTime' | 'id' | 'accountId'>,
): Promise<{ trade: Trade; version: number } | undefined> {
  const item = await getItem(store, store.tables.trades, tradeKey(trade), true);
  return item && toRecord(item);
}

const toRecord = (item: Item) => ({ trade: toTrade(item), version: Number(item.version ?? 1) });

/** Stored trades and their versions by id, read in batches; trades not stored are absent. */
export async function getTradeRecords(
  store: Store,
  trades: readonly Pick<Trade, 'openTime' | 'id' | 'accountId'>[],
): Promise<Map<string, { trade: Trade; version: number }>> {
  if (!trades.length) return new Map();
  const found = await batchGetItems(store, { [store.tables.trades]: trades.map(tradeKey) }, true);
  return new Map(found[store.tables.trades].map((item) => [item.id as string, toRecord(item)]));
}

/**
 * Writes `trade` with every listing key (moving it between listings when its status changed): as a new trade
 * (`read` undefined; refused if one exists at that key), or in place of the version read (refused if it changed).
 */
export function putTrade(store: Store, trade: Trade, read: { version: number } | undefined): TransactItem {
  return versionedPut(store.tables.trades, tradeItem(trade, (read?.version ?? 0) + 1), read);
}

/**
 * Gives a trade stored before API 1.5 its account's `currency` (the backfill), moving its version as any write does,
 * on condition that it still has none: a writer that read it before then reads it again.
 */
export function stampCurrency(store: Store, trade: Pick<Trade, 'openTime' | 'id' | 'accountId'>, currency: string): TransactItem {
  return {
    Update: {
      TableName: store.tables.trades,
      Key: tradeKey(trade),
      UpdateExpression: 'SET #currency = :currency, #version = #version + :one',
      ConditionExpression: 'attribute_exists(#version) AND attribute_not_exists(#currency)',
      ExpressionAttributeNames: { '#currency': 'currency', '#version': 'version' },
      ExpressionAttributeValues: { ':currency': currency, ':one': 1 },
    },
  };
}

/**
 * The API shape of a stored trade: key attributes dropped, absent optional fields as null (a trade stored before API
 * 1.5 has none of that version's fields: each reads as unknown, never as zero), `feeTotal` derived.
 */
export function toTrade(item: Item): Trade {
  // Field by field in the contract's order (TRADE_FIELDS), so the JSON reads as before; an absent field is null.
  const trade = {} as Record<string, unknown>;
  for (const field of TRADE_FIELDS) trade[field] = item[field] ?? null;
  const fees = trade.fees as Fee[] | null;
  // The SDK reads a list of maps back as new objects: in the contract's key order, whatever the item's.
  trade.fees = fees ? fees.map(({ amount, currency, leg }) => ({ amount, currency, leg })) : null;
  trade.feeTotal = feeTotalOf(fees, trade.currency as string | null);
  return trade as Trade;
}

/**
 * Where a read of a listing starts and stops, newest first: strictly after the position `after` (an order key),
 * and within the window of open times [`from`, `to`) (stored-form times).
 */
export interface Range {
  after?: string;
  from?: string;
  to?: string;
}

/**
 * The greatest string that sorts below `key` among the keys this table can hold: `key` with its last character
 * lowered by one and ABOVE_EVERY_ID (`~`) appended. A key condition has `BETWEEN` (inclusive) but no exclusive range,
 * so an exclusive upper bound is written as its predecessor. Exact because every character of an order key (times,
 * the separator `#`, and trade and account ids, whose alphabet is packages/core/src/ids.ts's) sorts below
 * ABOVE_EVERY_ID: no key lies between the two.
 */
export function keyBefore(key: string): string {
  return `${key.slice(0, -1)}${String.fromCharCode(key.charCodeAt(key.length - 1) - 1)}${ABOVE_EVERY_ID}`;
}

/** The key condition on `orderKey` for a range: one key range, so a page reads only what it returns (plus one). */
function orderCondition(range: Range): { condition: string; values: Record<string, string> } | undefined {
  // Exclusive upper bound: the position of the last trade returned, or the window's end (an order key starting
  // with a time sorts above that bare time, so `orderKey < to` is `openTime < to`).
  const upper = [range.after, range.to].filter((bound) => bound !== undefined).sort()[0];
  if (range.from !== undefined && upper !== undefined) {
    return { condition: '#order BETWEEN :from AND :upper', values: { ':from': range.from, ':upper': keyBefore(upper) } };
  }
  if (upper !== undefined) return { condition: '#order < :upper', values: { ':upper': upper } };
  // An order key starts with its open time, so it sorts at or above `from` exactly when the trade opened then or later.
  if (range.from !== undefined) return { condition: '#order >= :from', values: { ':from': range.from } };
  return undefined;
}

/**
 * Reads up to `count` trades of a listing (every one without `count`), newest first, within `range`. Continuing from a position (rather than
 * from a LastEvaluatedKey) lets one cursor format serve single listings and merges alike.
 */
export async function readTrades(store: Store, listing: Listing, range: Range, count?: number): Promise<Trade[]> {
  const order = orderCondition(range);
  const items = await queryItems(
    store,
    {
      TableName: store.tables.trades,
      IndexName: listing.indexName,
      KeyConditionExpression: order ? `#pk = :pk AND ${order.condition}` : '#pk = :pk',
      ExpressionAttributeNames: { '#pk': listing.partitionKey, ...(order && { '#order': 'orderKey' }) },
      ExpressionAttributeValues: { ':pk': listing.partitionValue, ...order?.values },
      ScanIndexForward: false,
    },
    count,
  );
  return items.map(toTrade);
}
