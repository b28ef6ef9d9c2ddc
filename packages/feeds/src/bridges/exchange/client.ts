/**
 * One exchange account read through ccxt (the only module of the feeds that loads it: 60 MB, about a second to
 * import, so it is imported when the first client is made, never by what merely names the feed): a read-only client
 * whose every call takes its weight from the exchange's limiter first (limiter.ts), whose every answer tells the
 * limiter what the exchange says is used, and whose 429s and 418s are waited out as their `Retry-After` says, said
 * once. Errors leave as ExchangeFeedError, their text cleared of the key, the secret and any signature.
 *
 * `url` replaces the origin of every API the exchange's ccxt class knows (`exchange.urls.api`): a testnet, or the
 * tests' fake exchange.
 */
import type { Exchange } from 'ccxt';
import type { FeedAccount } from './config';
import { ExchangeFeedError } from './errors';
import { WeightLimiter } from './limiter';
import type { CallKind, ExchangeProfile, MarketInfo } from './profile';

/**
 * A feed account's exchange, key, secret and origin (`url`: one that replaces the exchange's, such as
 * `http://127.0.0.1:9000`), and where the lines for the operator go (the 429s, said once each).
 */
export type ClientOptions = Pick<FeedAccount, 'profile' | 'apiKey' | 'secret' | 'url'> & { report: (line: string) => void };

/** The origin a limiter is kept under when the exchange's own API is called. */
export const EXCHANGE_ORIGIN = 'exchange';

/** How many times one call is tried through 429s before it fails as `unavailable`. */
const MAX_REFUSALS = 5;

/** The exchanges' limiters of this process, by exchange and origin: one per exchange, whatever the accounts. */
const limiters = new Map<string, WeightLimiter>();

/**
 * The limiter of `profile`'s IP-wide weights at `origin` (undefined: the exchange's own), shared by every client of
 * this process; a scheduled run restores it from, and keeps it in, DynamoDB (scheduled.ts).
 */
export function exchangeLimiter(profile: ExchangeProfile, origin: string): WeightLimiter {
  const key = `${profile.id} ${origin}`;
  let limiter = limiters.get(key);
  if (!limiter) {
    const pools = Object.fromEntries(Object.entries(profile.pools).filter(([, pool]) => pool.per === 'ip'));
    limiter = new WeightLimiter(pools);
    limiters.set(key, limiter);
  }
  return limiter;
}

/** `api` (ccxt's `urls.api`: names to URLs, maybe nested) with every origin replaced by `origin`. */
export function withOrigin(api: unknown, origin: string): unknown {
  if (typeof api === 'string') {
    const url = new URL(api);
    return `${origin.replace(/\/$/, '')}${url.pathname}${url.search}`;
  }
  if (api && typeof api === 'object')
    return Object.fromEntries(Object.entries(api).map(([name, value]) => [name, withOrigin(value, origin)]));
  return api;
}

/** `text` without `secrets` and without a request's signature (ccxt's errors quote the URL they called). */
export function redact(text: string, secrets: readonly string[]): string {
  let clean = text.replace(/signature=[0-9A-Za-z%+/=]+/g, 'signature=…');
  for (const secret of secrets) if (secret) clean = clean.split(secret).join('…');
  return clean;
}

export class ExchangeClient {
  readonly profile: ExchangeProfile;
  /** The weight this client spent, by pool. */
  readonly spent = new Map<string, number>();
  private exchange?: Exchange;
  private ccxt?: typeof import('ccxt');
  private readonly shared: WeightLimiter;
  private readonly own: WeightLimiter;
  private refusedStatus?: number;
  /** The limiter of the call under way (a client's calls go one at a time). */
  private calling?: WeightLimiter;
  private marketsLoadedAt = 0;
  private markets = new Map<string, MarketInfo>();

  constructor(private readonly options: ClientOptions) {
    this.profile = options.profile;
    this.shared = exchangeLimiter(options.profile, options.url ?? EXCHANGE_ORIGIN);
    const own = Object.fromEntries(Object.entries(options.profile.pools).filter(([, pool]) => pool.per === 'key'));
    this.own = new WeightLimiter(own);
  }

  private async open(): Promise<Exchange> {
    if (this.exchange) return this.exchange;
    // Required here, once, not imported at the top: what only names the feed never pays for loading it.
    this.ccxt = require('ccxt') as typeof import('ccxt');
    const Class = (this.ccxt as unknown as Record<string, new (config: object) => Exchange>)[this.profile.id];
    const exchange = new Class({
      apiKey: this.options.apiKey,
      secret: this.options.secret,
      // The feed's limiter paces the calls (per exchange, reading its weight headers); ccxt's is per instance.
      enableRateLimit: false,
      // ms before ccxt gives up on an answer.
      timeout: 10_000,
      options: this.profile.ccxtOptions,
    });
    // Numbers as the exchange wrote them: decimal strings, never floats.
    (exchange as unknown as { number: unknown }).number = String;
    if (this.options.url) exchange.urls.api = withOrigin(exchange.urls.api, this.options.url) as Exchange['urls']['api'];
    const onRestResponse = exchange.onRestResponse.bind(exchange);
    exchange.onRestResponse = (status, statusText, url, method, headers, body, requestHeaders, requestBody) => {
      this.answered(status, headers as Record<string, unknown>);
      return onRestResponse(status, statusText, url, method, headers, body, requestHeaders, requestBody);
    };
    this.exchange = exchange;
    return exchange;
  }

  /** Every answer: what the exchange says is used of its weights; a 429 or 418 stops every call for its Retry-After. */
  private answered(status: number, headers: Record<string, unknown>): void {
    this.shared.observe(headers);
    this.own.observe(headers);
    if (status !== 429 && status !== 418) return;
    this.refusedStatus = status;
    const after = Number(Object.entries(headers).find(([name]) => name.toLowerCase() === 'retry-after')?.[1]);
    // The limit refused is the call's own: a 429 of the IP's weight does not slow the key's, nor the other way round.
    const started = (this.calling ?? this.shared).refused(after);
    if (started)
      this.options.report(
        `${this.profile.name} answered ${status} (${status === 418 ? 'the IP is banned for a while' : 'too much request weight'}): ` +
          `waiting ${Number.isFinite(after) ? after : 60} s as its Retry-After says, then going at a quarter of the pace for 10 min`,
      );
  }

  /** Runs one call of `kind` under the limiters, through the 429s it meets. */
  private async call<T>(kind: CallKind, work: (exchange: Exchange) => Promise<T>): Promise<T> {
    const exchange = await this.open();
    const { pool, weight } = this.profile.calls[kind];
    const limiter = this.profile.pools[pool].per === 'ip' ? this.shared : this.own;
    for (let refusals = 0; ; ) {
      await limiter.take(pool, weight);
      this.spent.set(pool, (this.spent.get(pool) ?? 0) + weight);
      this.refusedStatus = undefined;
      this.calling = limiter;
      try {
        return await work(exchange);
      } catch (error) {
        if (this.refusedStatus !== undefined && ++refusals < MAX_REFUSALS) continue;
        throw this.failure(error, kind);
      }
    }
  }

  /** An error of ccxt's as the feed's, its text cleared of secrets. */
  private failure(error: unknown, kind: CallKind): Error {
    if (error instanceof ExchangeFeedError) return error;
    const ccxt = this.ccxt!;
    const text = redact(error instanceof Error ? error.message : String(error), [this.options.apiKey, this.options.secret]);
    const what = `${this.profile.name} (${kind})`;
    if (this.refusedStatus !== undefined)
      return new ExchangeFeedError('unavailable', `${what} kept answering ${this.refusedStatus} for the request weight`);
    if (error instanceof ccxt.AuthenticationError || error instanceof ccxt.PermissionDenied || error instanceof ccxt.AccountSuspended)
      return new ExchangeFeedError('refused', `${what} refused the key: ${text}`);
    if (error instanceof ccxt.NetworkError) return new ExchangeFeedError('unavailable', `${what} does not answer: ${text}`);
    if (error instanceof ccxt.BaseError) return new ExchangeFeedError('failed', `${what}: ${text}`);
    // Not the exchange's: a bug of the feed, thrown as it is (its text cleared all the same).
    if (error instanceof Error) error.message = redact(error.message, [this.options.apiKey, this.options.secret]);
    return error as Error;
  }

  /** The permissions the key has beyond reading (empty: it may only read). */
  async excessPermissions(): Promise<string[]> {
    return this.profile.excessPermissions(await this.call('permissions', (exchange) => this.profile.fetchPermissions(exchange)));
  }

  /** The exchange's spot markets, by ccxt symbol (`BTC/USDT`), read again after an hour. */
  async spotMarkets(now = Date.now()): Promise<Map<string, MarketInfo>> {
    if (this.markets.size && now - this.marketsLoadedAt < 3_600_000) return this.markets;
    const markets = await this.call('markets', (exchange) => exchange.loadMarkets(true));
    this.markets = new Map(
      Object.values(markets)
        .filter((market) => market?.spot && market.active !== false)
        .map((market) => [market!.symbol, { symbol: market!.symbol, id: market!.id!, base: market!.base, quote: market!.quote }]),
    );
    this.marketsLoadedAt = now;
    return this.markets;
  }

  holdings() {
    return this.call('holdings', (exchange) => this.profile.fetchHoldings(exchange));
  }

  /** A page of fills of `market` from `cursor`: each as the feed's Fill with its id, and the cursor after the page. */
  async fills(market: MarketInfo, cursor: string) {
    const fills = await this.call('fills', (exchange) => this.profile.fetchFills(exchange, market, cursor, this.profile.pageSize));
    return { fills, full: fills.length >= this.profile.pageSize };
  }

  /** The last prices of `marketIds`, by id (one call). */
  async prices(marketIds: readonly string[]): Promise<Map<string, string>> {
    if (!marketIds.length) return new Map();
    return new Map(await this.call('prices', (exchange) => this.profile.fetchPrices(exchange, marketIds)));
  }

  /** The price of `marketId` in the minute of `atMs`, undefined when the exchange has none. */
  priceAt(marketId: string, atMs: number): Promise<string | undefined> {
    return this.call('priceAt', (exchange) => this.profile.fetchPriceAt(exchange, marketId, atMs));
  }

  /** The transfers of `kind` listed in [fromMs, toMs] (one window), every page of it. */
  async transfers(kind: 'deposit' | 'withdrawal', fromMs: number, toMs: number) {
    const all = [];
    for (let offset = 0; ; ) {
      const page = await this.call(kind === 'deposit' ? 'deposits' : 'withdrawals', (exchange) =>
        this.profile.fetchTransfers(exchange, kind, fromMs, toMs, offset),
      );
      all.push(...page);
      if (page.length < 1000) return all;
      offset += page.length;
    }
  }
}
