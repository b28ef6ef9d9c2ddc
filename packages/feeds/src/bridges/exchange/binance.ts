/**
 * Binance spot, as the exchange feed reads it (profile.ts): the spot API (`/api/v3`) and the wallet's (`/sapi/v1`),
 * through ccxt, every amount read from Binance's own strings (ccxt's `info`), never from a float. Weights, limits and
 * shapes as Binance documents them (binance/binance-spot-api-docs rest-api.md; the wallet's endpoints):
 *
 * - `GET /sapi/v1/account/apiRestrictions` (1 of the SAPI's IP weight): what the key may do;
 * - `GET /api/v3/exchangeInfo` (20), `/api/v3/account` (20), `/api/v3/myTrades` (20, by `fromId`, 1,000 a page),
 *   `/api/v3/ticker/price` (4, several symbols), `/api/v3/klines` (2): of the IP's 6,000 a minute;
 * - `GET /sapi/v1/capital/deposit/hisrec` (1) and `/sapi/v1/capital/withdraw/history` (18,000 of the key's UID weight,
 *   180,000 a minute: 10 a minute), each at most 90 days a call.
 *
 * A fill's base-asset commission is paid out of the coins bought (or on top of those sold): the position holds what
 * the account holds, and its cost what was paid (positions.ts counts the commission as a fee at the fill's price).
 */
import { isDecimal, sumDecimals, trimDecimal } from '@trading-bot-api/writer';
import type { Exchange } from 'ccxt';
import type { Fill } from '../positions';
import { ExchangeFeedError } from './errors';
import type { ExchangeProfile, ExchangeTransfer, MarketInfo } from './profile';

type Raw = Record<string, unknown>;

/** What apiRestrictions answers that is no power: reading, the FIX API's reading, and whether an IP list restricts the key. */
const READING = new Set(['enableReading', 'enableFixReadOnly', 'ipRestrict']);

/** A raw amount as the exact decimal it is (Binance's 8 places, trailing zeros dropped); a bad one is the exchange's fault. */
function amount(raw: Raw, field: string, what: string): string {
  const value = raw[field];
  if (typeof value !== 'string' || !isDecimal(value))
    throw new ExchangeFeedError('failed', `Binance answered ${what} with ${field} ${JSON.stringify(value)}, not a decimal string`);
  return trimDecimal(value);
}

function integer(raw: Raw, field: string, what: string): number {
  const value = Number(raw[field]);
  if (!Number.isSafeInteger(value))
    throw new ExchangeFeedError('failed', `Binance answered ${what} with ${field} ${JSON.stringify(raw[field])}`);
  return value;
}

/** `2019-10-12 11:12:02` (UTC, the withdrawal history's), in ms. */
function utcMs(text: unknown): number | undefined {
  if (typeof text !== 'string' || !/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(text)) return undefined;
  return Date.parse(`${text.replace(' ', 'T')}Z`);
}

/** Deposit statuses: 1 success and 6 credited (not yet withdrawable) are in the account; 2 rejected and 7 wrong deposit never will be. */
function depositState(status: number): ExchangeTransfer['state'] {
  if (status === 1 || status === 6) return 'done';
  return status === 2 || status === 7 ? 'failed' : 'pending';
}

/** Withdrawal statuses: 6 completed; 1 cancelled, 3 rejected and 5 failure never leave; 0, 2 and 4 are on their way. */
function withdrawalState(status: number): ExchangeTransfer['state'] {
  if (status === 6) return 'done';
  return status === 1 || status === 3 || status === 5 ? 'failed' : 'pending';
}

const call = (exchange: Exchange, method: string, params: Raw): Promise<unknown> =>
  (exchange as unknown as Record<string, (params: Raw) => Promise<unknown>>)[method](params);

/** A fill of `myTrades` as the feed's Fill, its own id, and the cursor after it. */
export function fillOf(input: unknown, market: MarketInfo): { fill: Fill; id: string; next: string } {
  const raw = input as Raw;
  const what = `a fill of ${market.id}`;
  const id = integer(raw, 'id', what);
  const orderId = String(integer(raw, 'orderId', what));
  const qty = amount(raw, 'qty', what);
  const commission = amount(raw, 'commission', what);
  const token = String(raw.commissionAsset ?? '');
  const side = raw.isBuyer === true ? 'buy' : 'sell';
  // The base changes by qty, less (bought) or more (sold) a commission paid in the base.
  const inBase = token === market.base && commission !== '0';
  const units = inBase ? trimDecimal(sumDecimals([qty, side === 'buy' ? `-${commission}` : commission])) : qty;
  const fill: Fill = {
    orderId,
    exchangeTradeId: String(id),
    exchangeOrderId: orderId,
    pair: `${market.base}-${market.quote}`,
    base: market.base,
    quote: market.quote,
    side,
    price: amount(raw, 'price', what),
    amount: units,
    fee: { percent: '0', flat: commission === '0' ? [] : [{ token, amount: commission }] },
    position: 'NIL',
    leverage: '1',
    time: new Date(integer(raw, 'time', what)).toISOString(),
  };
  return { fill, id: String(id), next: String(id + 1) };
}

/** A deposit (`capital/deposit/hisrec`) or withdrawal (`capital/withdraw/history`) in the feed's terms. */
export function transferOf(kind: ExchangeTransfer['kind'], input: unknown): ExchangeTransfer {
  const raw = input as Raw;
  const what = `a ${kind}`;
  const reference = typeof raw.txId === 'string' && raw.txId ? raw.txId : null;
  const common = { id: `${kind}-${String(raw.id)}`, kind, asset: String(raw.coin), amount: amount(raw, 'amount', what), reference };
  if (kind === 'deposit') {
    const listedAt = integer(raw, 'insertTime', what);
    const complete = Number(raw.completeTime);
    const time = Number.isSafeInteger(complete) && complete > 0 ? complete : listedAt;
    return { ...common, fee: '0', time, listedAt, state: depositState(Number(raw.status)) };
  }
  const listedAt = utcMs(raw.applyTime);
  if (listedAt === undefined)
    throw new ExchangeFeedError('failed', `Binance answered ${what} with applyTime ${JSON.stringify(raw.applyTime)}`);
  const fee = raw.transactionFee === undefined ? '0' : amount(raw, 'transactionFee', what);
  return { ...common, fee, time: utcMs(raw.completeTime) ?? listedAt, listedAt, state: withdrawalState(Number(raw.status)) };
}

export const binance: ExchangeProfile = {
  id: 'binance',
  name: 'Binance',
  ccxtOptions: {
    defaultType: 'spot',
    // One exchangeInfo (spot), none of the futures', options' or margin's; no private currency list.
    fetchMarkets: { types: ['spot'] },
    fetchCurrencies: false,
    fetchMargins: false,
  },
  pools: {
    ip: { limit: 6000, header: 'x-mbx-used-weight-1m', per: 'ip' },
    sapiIp: { limit: 12_000, header: 'x-sapi-used-ip-weight-1m', per: 'ip' },
    sapiUid: { limit: 180_000, header: 'x-sapi-used-uid-weight-1m', per: 'key' },
  },
  calls: {
    permissions: { pool: 'sapiIp', weight: 1 },
    markets: { pool: 'ip', weight: 20 },
    holdings: { pool: 'ip', weight: 20 },
    fills: { pool: 'ip', weight: 20 },
    prices: { pool: 'ip', weight: 4 },
    priceAt: { pool: 'ip', weight: 2 },
    deposits: { pool: 'sapiIp', weight: 1 },
    withdrawals: { pool: 'sapiUid', weight: 18_000 },
  },
  pageSize: 1000,
  // "less than 90 days" between startTime and endTime.
  transferWindowMs: 90 * 86_400_000 - 1,
  historyStart: '2017-07-01T00:00:00.000Z',
  firstCursor: '0',

  excessPermissions(answer) {
    if (!answer || typeof answer !== 'object') throw new ExchangeFeedError('failed', 'Binance answered apiRestrictions with no object');
    // Any power it grants, named or new: a flag Binance adds later (`enable…`, `permits…`) counts until known harmless.
    return Object.entries(answer as Raw)
      .filter(([name, value]) => value === true && !READING.has(name))
      .map(([name]) => name)
      .sort();
  },

  fetchPermissions: (exchange) => call(exchange, 'sapiGetAccountApiRestrictions', {}),

  async fetchFills(exchange, market, cursor, limit) {
    // A plain fromId page (never ccxt's `paginate`, which stops after 10 calls and loses fills sharing a millisecond).
    const trades = await exchange.fetchMyTrades(market.symbol, undefined, limit, { fromId: cursor });
    // In the exchange's id order, as it answered: ccxt sorts by time, and fills of one millisecond may come reordered.
    return trades
      .map((trade) => trade.info as Raw)
      .sort((a, b) => Number(a.id) - Number(b.id))
      .map((raw) => fillOf(raw, market));
  },

  async fetchHoldings(exchange) {
    const answer = (await call(exchange, 'privateGetAccount', { omitZeroBalances: true })) as Raw;
    if (!Array.isArray(answer?.balances)) throw new ExchangeFeedError('failed', 'Binance answered account with no balances');
    return answer.balances.map((raw: Raw) => ({
      asset: String(raw.asset),
      free: amount(raw, 'free', 'a balance'),
      locked: amount(raw, 'locked', 'a balance'),
    }));
  },

  async fetchPrices(exchange, marketIds) {
    const answer = await call(exchange, 'publicGetTickerPrice', { symbols: JSON.stringify(marketIds) });
    return (Array.isArray(answer) ? answer : [answer]).map((raw: Raw) => [String(raw.symbol), amount(raw, 'price', 'a price')]);
  },

  async fetchPriceAt(exchange, marketId, atMs) {
    const answer = await call(exchange, 'publicGetKlines', {
      symbol: marketId,
      interval: '1m',
      startTime: Math.floor(atMs / 60_000) * 60_000,
      limit: 1,
    });
    // The minute's kline: its open price is its second field.
    const open = Array.isArray(answer) && Array.isArray(answer[0]) ? answer[0][1] : undefined;
    return typeof open === 'string' && isDecimal(open) ? trimDecimal(open) : undefined;
  },

  async fetchTransfers(exchange, kind, fromMs, toMs, offset) {
    const method = kind === 'deposit' ? 'sapiGetCapitalDepositHisrec' : 'sapiGetCapitalWithdrawHistory';
    const answer = await call(exchange, method, { startTime: fromMs, endTime: toMs, offset, limit: 1000 });
    return Array.isArray(answer) ? answer.map((raw) => transferOf(kind, raw)) : [];
  },
};
