/**
 * A fake Binance spot REST API for the exchange feed's tests and the bench, answering as Binance does (the spot API's
 * rest-api.md and errors.md at binance/binance-spot-api-docs a5e0bc3, July 2026; the wallet endpoints as Binance's
 * wallet docs show them): the same paths, HMAC-SHA256 signatures checked over the query string with the key's
 * secret (`-1022`), the key in `X-MBX-APIKEY` (`-2015`), `timestamp` within `recvWindow` (`-1021`), amounts as
 * strings with Binance's 8 places, ids and times as JSON numbers.
 *
 * - `GET /api/v3/exchangeInfo` (20), `/api/v3/account` (20), `/api/v3/myTrades` (20; `symbol` required, `fromId`
 *   returns ids ≥ it, `startTime`–`endTime` at most 24 hours (`-1127`) and never with `fromId`, `limit` up to 1,000,
 *   default 500; without either, the most recent), `/api/v3/ticker/price` (2, or 4 with `symbols` or none),
 *   `/api/v3/klines` (2);
 * - `GET /sapi/v1/account/apiRestrictions` (1), `/sapi/v1/capital/deposit/hisrec` (1) and
 *   `/sapi/v1/capital/withdraw/history` (18,000 of the UID's weight), each with the 90-day rule on `startTime` and
 *   `endTime`;
 * - every answer says the IP's weight used this minute (`X-MBX-USED-WEIGHT-1M`; the SAPI's own
 *   `X-SAPI-USED-IP-WEIGHT-1M` and `X-SAPI-USED-UID-WEIGHT-1M`), and a 429 the test asks for comes with
 *   `Retry-After` and `-1003`, as does one past the weight limit.
 *
 * The test drives it: accounts (a key, its secret and permissions), their fills (ids counted per symbol, as Binance
 * does), balances, deposits and withdrawals, the prices; and it reads every request back (`requests`).
 */
import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What a key may do, as `/sapi/v1/account/apiRestrictions` says it (a read-only key: only `enableReading`). */
export interface Restrictions {
  ipRestrict: boolean;
  createTime: number;
  enableReading: boolean;
  enableWithdrawals: boolean;
  enableInternalTransfer: boolean;
  enableMargin: boolean;
  enableFutures: boolean;
  permitsUniversalTransfer: boolean;
  enableVanillaOptions: boolean;
  enableFixApiTrade: boolean;
  enableFixReadOnly: boolean;
  enableSpotAndMarginTrading: boolean;
  enablePortfolioMarginTrading: boolean;
}

export const READ_ONLY: Restrictions = {
  ipRestrict: false,
  createTime: 1_698_645_219_000,
  enableReading: true,
  enableWithdrawals: false,
  enableInternalTransfer: false,
  enableMargin: false,
  enableFutures: false,
  permitsUniversalTransfer: false,
  enableVanillaOptions: false,
  enableFixApiTrade: false,
  enableFixReadOnly: true,
  enableSpotAndMarginTrading: false,
  enablePortfolioMarginTrading: false,
};

/** A fill as `/api/v3/myTrades` answers it. */
export interface RawTrade {
  symbol: string;
  id: number;
  orderId: number;
  orderListId: number;
  price: string;
  qty: string;
  quoteQty: string;
  commission: string;
  commissionAsset: string;
  time: number;
  isBuyer: boolean;
  isMaker: boolean;
  isBestMatch: boolean;
}

/** A fill as a test gives it: the fake numbers its id (and its order's, unless given). */
export interface FillInput {
  side: 'buy' | 'sell';
  price: string;
  qty: string;
  commission: string;
  commissionAsset: string;
  time: number;
  orderId?: number;
  isMaker?: boolean;
}

export interface DepositInput {
  id: string;
  coin: string;
  amount: string;
  /** 0 pending, 6 credited but cannot withdraw, 7 wrong deposit, 8 waiting user confirm, 1 success, 2 rejected. */
  status: number;
  insertTime: number;
  completeTime?: number;
  txId?: string;
}

export interface WithdrawalInput {
  id: string;
  coin: string;
  amount: string;
  transactionFee: string;
  /** 0 email sent, 2 awaiting approval, 3 rejected, 4 processing, 6 completed. */
  status: number;
  applyTime: number;
  completeTime?: number;
  txId?: string;
}

interface FakeAccount {
  secret: string;
  restrictions: Restrictions;
  balances: Map<string, { free: string; locked: string }>;
  trades: Map<string, RawTrade[]>;
  deposits: DepositInput[];
  withdrawals: WithdrawalInput[];
}

/** A request as the fake saw it: its path, parameters, weight and answer. */
export interface SeenRequest {
  path: string;
  /** The API key it came with ('' for none). */
  key: string;
  params: Record<string, string>;
  weight: number;
  pool: 'ip' | 'sapi-ip' | 'sapi-uid';
  status: number;
  at: number;
}

/** Binance's symbols the fake lists (and their assets). */
const SYMBOLS: [string, string][] = [
  ['BTC', 'USDT'],
  ['ETH', 'USDT'],
  ['BNB', 'USDT'],
  ['SOL', 'USDT'],
  ['ETH', 'BTC'],
  ['BNB', 'BTC'],
  ['USDT', 'TRY'],
  ['EUR', 'USDT'],
];

const ERRORS = {
  signature: { status: 400, code: -1022, msg: 'Signature for this request is not valid.' },
  key: { status: 401, code: -2015, msg: 'Invalid API-key, IP, or permissions for action.' },
  timestamp: { status: 400, code: -1021, msg: 'Timestamp for this request is outside of the recvWindow.' },
  symbol: { status: 400, code: -1121, msg: 'Invalid symbol.' },
} as const;

const pad8 = (value: string) => {
  const [whole, fraction = ''] = value.split('.');
  return `${whole}.${fraction.padEnd(8, '0')}`;
};

/** `a` × `b` for Binance's quoteQty (8 places, cut). */
function product(a: string, b: string): string {
  const scale = (value: string) => (value.split('.')[1] ?? '').length;
  const units = (value: string) => BigInt(value.replace('.', ''));
  const raw = (units(a) * units(b)).toString().padStart(scale(a) + scale(b) + 1, '0');
  const point = raw.length - (scale(a) + scale(b));
  return pad8(`${raw.slice(0, point)}.${raw.slice(point)}`.replace(/\.$/, '')).replace(/^(-?\d+\.\d{8})\d*$/, '$1');
}

export class FakeBinance {
  private server?: Server;
  private readonly accounts = new Map<string, FakeAccount>();
  private readonly nextTradeId = new Map<string, number>();
  private nextOrderId = 1_000_000;
  /** Last prices by symbol (`BTCUSDT`), as `ticker/price` and the klines give them. */
  readonly prices = new Map<string, string>();
  /** Every request seen, in order. */
  readonly requests: SeenRequest[] = [];
  /** 429s to answer: the next requests to a path (or any) answer `-1003` with this Retry-After. */
  private readonly refusals: { path?: string; retryAfter: number }[] = [];
  /** Weight used this minute, per pool (the UID's per key). */
  private minute = -1;
  private readonly used = new Map<string, number>();
  /** The IP's limit a minute (REQUEST_WEIGHT 6000). */
  limit = 6000;
  /** Called before each request is answered (a test's pause at a page boundary). */
  onRequest?: (path: string, params: Record<string, string>) => void | Promise<void>;

  async start(): Promise<this> {
    this.server = createServer((request, response) => {
      this.handle(request, response).catch((error) => {
        response.writeHead(500, { 'Content-Type': 'application/json' });
        response.end(JSON.stringify({ code: -1000, msg: String(error) }));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** An account with a key and secret; read-only unless `restrictions` say otherwise. */
  addAccount(key: string, secret: string, restrictions: Partial<Restrictions> = {}): void {
    this.accounts.set(key, {
      secret,
      restrictions: { ...READ_ONLY, ...restrictions },
      balances: new Map(),
      trades: new Map(),
      deposits: [],
      withdrawals: [],
    });
  }

  private account(key: string): FakeAccount {
    const account = this.accounts.get(key);
    if (!account) throw new Error(`no fake account ${key}`);
    return account;
  }

  setRestrictions(key: string, restrictions: Partial<Restrictions>): void {
    this.account(key).restrictions = { ...READ_ONLY, ...restrictions };
  }

  setBalance(key: string, asset: string, free: string, locked = '0'): void {
    this.account(key).balances.set(asset, { free: pad8(free), locked: pad8(locked) });
  }

  /** Fills of `symbol` (e.g. `BTCUSDT`), ids numbered per symbol as Binance does; returns them as myTrades will. */
  addFills(key: string, symbol: string, fills: readonly FillInput[]): RawTrade[] {
    const list = this.account(key).trades.get(symbol) ?? [];
    this.account(key).trades.set(symbol, list);
    const added = fills.map((fill) => {
      const id = this.nextTradeId.get(symbol) ?? 1;
      this.nextTradeId.set(symbol, id + 1);
      const trade: RawTrade = {
        symbol,
        id,
        orderId: fill.orderId ?? this.nextOrderId++,
        orderListId: -1,
        price: pad8(fill.price),
        qty: pad8(fill.qty),
        quoteQty: product(fill.price, fill.qty),
        commission: pad8(fill.commission),
        commissionAsset: fill.commissionAsset,
        time: fill.time,
        isBuyer: fill.side === 'buy',
        isMaker: fill.isMaker ?? false,
        isBestMatch: true,
      };
      list.push(trade);
      return trade;
    });
    return added;
  }

  addDeposit(key: string, deposit: DepositInput): void {
    this.account(key).deposits.push(deposit);
  }

  /** A deposit's status changed (a pending one credited). */
  setDepositStatus(key: string, id: string, status: number): void {
    const deposit = this.account(key).deposits.find((each) => each.id === id);
    if (!deposit) throw new Error(`no deposit ${id}`);
    deposit.status = status;
  }

  addWithdrawal(key: string, withdrawal: WithdrawalInput): void {
    this.account(key).withdrawals.push(withdrawal);
  }

  /** The next request (to `path`, or any) answers 429 with `Retry-After: retryAfter` seconds. */
  refuseNext(retryAfter: number, path?: string): void {
    this.refusals.push({ path, retryAfter });
  }

  /** Requests to `path` seen so far. */
  seen(path: string): SeenRequest[] {
    return this.requests.filter((request) => request.path === path);
  }

  private weightUsed(pool: string, weight: number, now: number): number {
    const minute = Math.floor(now / 60_000);
    if (minute !== this.minute) {
      this.minute = minute;
      this.used.clear();
    }
    const used = (this.used.get(pool) ?? 0) + weight;
    this.used.set(pool, used);
    return used;
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://fake');
    const path = url.pathname;
    const params = Object.fromEntries(url.searchParams);
    const now = Date.now();
    const route = ROUTES[path];
    const key = String(request.headers['x-mbx-apikey'] ?? '');
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      this.requests.push({ path, key, params, weight: route?.weight(params) ?? 0, pool: route?.pool ?? 'ip', status, at: now });
      response.writeHead(status, { 'Content-Type': 'application/json;charset=UTF-8', ...headers });
      response.end(JSON.stringify(body));
    };
    if (!route) return send(404, { code: -1000, msg: `no route ${path}` });
    await this.onRequest?.(path, params);
    const weight = route.weight(params);
    const poolKey = route.pool === 'sapi-uid' ? `uid:${key}` : route.pool;
    const used = this.weightUsed(poolKey, weight, now);
    const name = { ip: 'X-MBX-USED-WEIGHT-1M', 'sapi-ip': 'X-SAPI-USED-IP-WEIGHT-1M', 'sapi-uid': 'X-SAPI-USED-UID-WEIGHT-1M' }[route.pool];
    const header: Record<string, string> = { [name]: String(used) };
    const refusal = this.refusals.findIndex((refused) => refused.path === undefined || refused.path === path);
    if (refusal !== -1 || (route.pool === 'ip' && used > this.limit)) {
      const retryAfter = refusal !== -1 ? this.refusals.splice(refusal, 1)[0].retryAfter : 60 - (Math.floor(now / 1000) % 60);
      return send(
        429,
        { code: -1003, msg: 'Too much request weight used; current limit is 6000 request weight per 1 MINUTE.' },
        { ...header, 'Retry-After': String(retryAfter) },
      );
    }
    if (route.signed) {
      const account = this.accounts.get(key);
      if (!account) return send(ERRORS.key.status, { code: ERRORS.key.code, msg: ERRORS.key.msg }, header);
      const query = url.search.slice(1);
      const at = query.lastIndexOf('&signature=');
      const signature = at === -1 ? undefined : query.slice(at + '&signature='.length);
      const expected = createHmac('sha256', account.secret)
        .update(at === -1 ? query : query.slice(0, at))
        .digest('hex');
      if (!signature || signature.toLowerCase() !== expected)
        return send(ERRORS.signature.status, { code: ERRORS.signature.code, msg: ERRORS.signature.msg }, header);
      const timestamp = Number(params.timestamp);
      const window = Number(params.recvWindow ?? 5000);
      if (!(timestamp < now + 1000 && now - timestamp <= window))
        return send(ERRORS.timestamp.status, { code: ERRORS.timestamp.code, msg: ERRORS.timestamp.msg }, header);
      const answer = route.answer(this, params, account);
      return send(answer.status ?? 200, answer.body, header);
    }
    const answer = route.answer(this, params, undefined);
    return send(answer.status ?? 200, answer.body, header);
  }

  /** exchangeInfo's symbols, shaped as Binance gives them. */
  symbolsInfo(): Record<string, unknown>[] {
    return SYMBOLS.map(([base, quote]) => ({
      symbol: `${base}${quote}`,
      status: 'TRADING',
      baseAsset: base,
      baseAssetPrecision: 8,
      quoteAsset: quote,
      quotePrecision: 8,
      quoteAssetPrecision: 8,
      baseCommissionPrecision: 8,
      quoteCommissionPrecision: 8,
      orderTypes: ['LIMIT', 'LIMIT_MAKER', 'MARKET', 'STOP_LOSS_LIMIT', 'TAKE_PROFIT_LIMIT'],
      icebergAllowed: true,
      ocoAllowed: true,
      otoAllowed: true,
      opoAllowed: true,
      quoteOrderQtyMarketAllowed: true,
      allowTrailingStop: true,
      cancelReplaceAllowed: true,
      amendAllowed: true,
      pegInstructionsAllowed: true,
      isSpotTradingAllowed: true,
      isMarginTradingAllowed: false,
      filters: [
        { filterType: 'PRICE_FILTER', minPrice: '0.01000000', maxPrice: '1000000.00000000', tickSize: '0.01000000' },
        { filterType: 'LOT_SIZE', minQty: '0.00001000', maxQty: '9000.00000000', stepSize: '0.00001000' },
        {
          filterType: 'NOTIONAL',
          minNotional: '5.00000000',
          applyMinToMarket: true,
          maxNotional: '9000000.00000000',
          applyMaxToMarket: false,
          avgPriceMins: 5,
        },
      ],
      permissions: [],
      permissionSets: [['SPOT']],
      defaultSelfTradePreventionMode: 'EXPIRE_MAKER',
      allowedSelfTradePreventionModes: ['NONE', 'EXPIRE_TAKER', 'EXPIRE_MAKER', 'EXPIRE_BOTH', 'DECREMENT'],
    }));
  }
}

type Answer = { status?: number; body: unknown };

interface Route {
  signed: boolean;
  pool: SeenRequest['pool'];
  weight: (params: Record<string, string>) => number;
  answer: (fake: FakeBinance, params: Record<string, string>, account: FakeAccount | undefined) => Answer;
}

const bad = (code: number, msg: string): Answer => ({ status: 400, body: { code, msg } });
const DAY = 86_400_000;
const NINETY_DAYS = 90 * DAY;

/** The 90-day rule of the wallet's histories: the records between startTime and endTime (defaults: the last 90 days). */
function walletWindow(params: Record<string, string>): { from: number; to: number } | Answer {
  const to = params.endTime ? Number(params.endTime) : Date.now();
  const from = params.startTime ? Number(params.startTime) : to - NINETY_DAYS;
  if (to - from > NINETY_DAYS) return bad(-1127, 'More than 90 days between startTime and endTime.');
  return { from, to };
}

const ROUTES: Record<string, Route> = {
  '/api/v3/exchangeInfo': {
    signed: false,
    pool: 'ip',
    weight: () => 20,
    answer: (fake) => ({
      body: {
        timezone: 'UTC',
        serverTime: Date.now(),
        rateLimits: [
          { rateLimitType: 'REQUEST_WEIGHT', interval: 'MINUTE', intervalNum: 1, limit: fake.limit },
          { rateLimitType: 'ORDERS', interval: 'SECOND', intervalNum: 10, limit: 100 },
          { rateLimitType: 'RAW_REQUESTS', interval: 'MINUTE', intervalNum: 5, limit: 61000 },
        ],
        exchangeFilters: [],
        symbols: fake.symbolsInfo(),
      },
    }),
  },
  '/api/v3/account': {
    signed: true,
    pool: 'ip',
    weight: () => 20,
    answer: (_fake, params, account) => {
      const omit = params.omitZeroBalances === 'true';
      const balances = [...account!.balances]
        .filter(([, held]) => !omit || Number(held.free) + Number(held.locked) > 0)
        .map(([asset, held]) => ({ asset, ...held }));
      return {
        body: {
          makerCommission: 10,
          takerCommission: 10,
          buyerCommission: 0,
          sellerCommission: 0,
          commissionRates: { maker: '0.00100000', taker: '0.00100000', buyer: '0.00000000', seller: '0.00000000' },
          canTrade: true,
          canWithdraw: true,
          canDeposit: true,
          brokered: false,
          requireSelfTradePrevention: false,
          preventSor: false,
          updateTime: Date.now(),
          accountType: 'SPOT',
          balances,
          permissions: ['SPOT'],
          uid: 354_937_868,
        },
      };
    },
  },
  '/api/v3/myTrades': {
    signed: true,
    pool: 'ip',
    weight: (params) => (params.orderId ? 5 : 20),
    answer: (_fake, params, account) => {
      if (!params.symbol) return bad(-1102, "Mandatory parameter 'symbol' was not sent, was empty/null, or malformed.");
      const trades = account!.trades.get(params.symbol) ?? [];
      const limit = params.limit ? Number(params.limit) : 500;
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000) return bad(-1100, "Illegal characters found in parameter 'limit'.");
      const hasTime = params.startTime !== undefined || params.endTime !== undefined;
      if (params.fromId !== undefined && hasTime) return bad(-1128, 'Combination of optional parameters invalid.');
      if (params.startTime !== undefined && params.endTime !== undefined && Number(params.endTime) - Number(params.startTime) > DAY)
        return bad(-1127, 'More than 24 hours between startTime and endTime.');
      let found: RawTrade[];
      if (params.fromId !== undefined) found = trades.filter((trade) => trade.id >= Number(params.fromId)).slice(0, limit);
      else if (params.startTime !== undefined) {
        const from = Number(params.startTime);
        const to = params.endTime !== undefined ? Number(params.endTime) : from + DAY;
        found = trades.filter((trade) => trade.time >= from && trade.time <= to).slice(0, limit);
      } else if (params.endTime !== undefined) {
        const to = Number(params.endTime);
        found = trades.filter((trade) => trade.time <= to && trade.time >= to - DAY).slice(-limit);
      } else found = trades.slice(-limit);
      return { body: found };
    },
  },
  '/api/v3/ticker/price': {
    signed: false,
    pool: 'ip',
    weight: (params) => (params.symbol ? 2 : 4),
    answer: (fake, params) => {
      if (params.symbol) {
        const price = fake.prices.get(params.symbol);
        return price === undefined ? bad(ERRORS.symbol.code, ERRORS.symbol.msg) : { body: { symbol: params.symbol, price: pad8(price) } };
      }
      const wanted: string[] | undefined = params.symbols ? JSON.parse(params.symbols) : undefined;
      if (wanted?.some((symbol) => !fake.prices.has(symbol))) return bad(ERRORS.symbol.code, ERRORS.symbol.msg);
      const symbols = wanted ?? [...fake.prices.keys()];
      return { body: symbols.map((symbol) => ({ symbol, price: pad8(fake.prices.get(symbol)!) })) };
    },
  },
  '/api/v3/klines': {
    signed: false,
    pool: 'ip',
    weight: () => 2,
    answer: (fake, params) => {
      const price = fake.prices.get(params.symbol);
      if (price === undefined) return bad(ERRORS.symbol.code, ERRORS.symbol.msg);
      const minute = Math.floor(Number(params.startTime ?? Date.now()) / 60_000) * 60_000;
      const p = pad8(price);
      return { body: [[minute, p, p, p, p, '1.00000000', minute + 59_999, p, 1, '0.50000000', p, '0']] };
    },
  },
  '/sapi/v1/account/apiRestrictions': {
    signed: true,
    pool: 'sapi-ip',
    weight: () => 1,
    answer: (_fake, _params, account) => ({ body: account!.restrictions }),
  },
  '/sapi/v1/capital/deposit/hisrec': {
    signed: true,
    pool: 'sapi-ip',
    weight: () => 1,
    answer: (_fake, params, account) => {
      const window = walletWindow(params);
      if ('body' in window) return window;
      const offset = Number(params.offset ?? 0);
      const limit = Number(params.limit ?? 1000);
      const body = account!.deposits
        .filter((deposit) => deposit.insertTime >= window.from && deposit.insertTime <= window.to)
        .sort((a, b) => b.insertTime - a.insertTime)
        .slice(offset, offset + limit)
        .map((deposit) => ({
          id: deposit.id,
          amount: deposit.amount,
          coin: deposit.coin,
          network: deposit.coin,
          status: deposit.status,
          address: '0x94df8b352de7f46f64b01d3666bf6e936e44ce60',
          addressTag: '',
          txId: deposit.txId ?? `0x${deposit.id}`,
          insertTime: deposit.insertTime,
          completeTime: deposit.completeTime ?? deposit.insertTime,
          transferType: 0,
          confirmTimes: '1/1',
          unlockConfirm: 0,
          walletType: 0,
        }));
      return { body };
    },
  },
  '/sapi/v1/capital/withdraw/history': {
    signed: true,
    pool: 'sapi-uid',
    weight: () => 18_000,
    answer: (_fake, params, account) => {
      const window = walletWindow(params);
      if ('body' in window) return window;
      const utc = (ms: number) => new Date(ms).toISOString().replace('T', ' ').slice(0, 19);
      const body = account!.withdrawals
        .filter((withdrawal) => withdrawal.applyTime >= window.from && withdrawal.applyTime <= window.to)
        .sort((a, b) => b.applyTime - a.applyTime)
        .map((withdrawal) => ({
          id: withdrawal.id,
          amount: withdrawal.amount,
          transactionFee: withdrawal.transactionFee,
          coin: withdrawal.coin,
          status: withdrawal.status,
          address: '0x94df8b352de7f46f64b01d3666bf6e936e44ce60',
          txId: withdrawal.txId ?? `0x${withdrawal.id}`,
          applyTime: utc(withdrawal.applyTime),
          network: 'ETH',
          transferType: 0,
          info: '',
          confirmNo: 12,
          walletType: 0,
          txKey: '',
          ...(withdrawal.status === 6 ? { completeTime: utc(withdrawal.completeTime ?? withdrawal.applyTime) } : {}),
        }));
      return { body };
    },
  },
};

/** A round trip of `roundTripFills`: its buy and its sell, and what its trade must say. */
export interface RoundTrip {
  buy: FillInput;
  sell: FillInput;
  /** The coins held after the buy (its qty, less a commission paid in the base). */
  units: string;
  /** The buy's and the sell's commission in the quote (a BNB one is left out of the P&L; a base one at the buy's price). */
  feesInQuote: string[];
}

/**
 * `count` / 2 round trips of one market (a buy, then a sell of what it bought), as a bot trading all day makes
 * them: prices moving, commissions in the quote, in BNB (every 10th buy) and in the base (every 7th), and four fills
 * to a millisecond, so that fills sharing one straddle the pages of 1,000 (fills 998 to 1,001 share theirs).
 */
export function roundTripFills(count: number, startMs: number): { fills: FillInput[]; trips: RoundTrip[] } {
  const fills: FillInput[] = [];
  const trips: RoundTrip[] = [];
  const at = (index: number) => startMs + Math.floor((index + 2) / 4);
  for (let k = 0; 2 * k + 1 < count; k++) {
    const buyPrice = `${60_000 + (k % 37) * 10}.5`;
    const sellPrice = `${60_000 + (k % 37) * 10 + ((k % 5) - 2) * 7}.25`;
    const qty = `0.0${1 + (k % 3)}`;
    const base = k % 7 === 3;
    const bnb = k % 10 === 5;
    const buyCommission = base ? '0.00001' : bnb ? '0.00002' : '0.0123';
    const units = base ? trimmed(`${qty}`, '0.00001') : qty;
    const buy: FillInput = {
      side: 'buy',
      price: buyPrice,
      qty,
      commission: buyCommission,
      commissionAsset: base ? 'BTC' : bnb ? 'BNB' : 'USDT',
      time: at(2 * k),
    };
    const sell: FillInput = {
      side: 'sell',
      price: sellPrice,
      qty: units,
      commission: '0.0456',
      commissionAsset: 'USDT',
      time: at(2 * k + 1),
    };
    fills.push(buy, sell);
    trips.push({
      buy,
      sell,
      units,
      feesInQuote: [base ? product(buyCommission, buyPrice).replace(/\.?0+$/, '') : bnb ? '0' : '0.0123', '0.0456'],
    });
  }
  return { fills, trips };
}

/** `a` − `b` for two small decimals of at most 8 places (the generator's quantities). */
function trimmed(a: string, b: string): string {
  const units = (value: string) => BigInt(pad8(value).replace('.', ''));
  const difference = (units(a) - units(b)).toString().padStart(9, '0');
  return `${difference.slice(0, -8)}.${difference.slice(-8)}`.replace(/\.?0+$/, '');
}
