/**
 * What the exchange feed needs to know of one exchange, as data and small functions over ccxt and the exchange's raw
 * answers: its weight limits and each call's weight, which permissions of a key go beyond reading, which ccxt calls
 * read its fills, holdings, prices and transfers, and how a raw answer (ccxt's `info`, the exchange's own strings)
 * becomes the feed's fill, holding, price or transfer. The feed (feed.ts) knows nothing else of an exchange: a second
 * exchange is a second profile (and a fake of it for the tests), not a change to the feed.
 */
import type { Exchange } from 'ccxt';
import type { Fill } from '../positions';
import type { WeightPool } from './limiter';

/** The calls the feed makes. */
export type CallKind = 'permissions' | 'markets' | 'holdings' | 'fills' | 'prices' | 'priceAt' | 'deposits' | 'withdrawals';

/** A spot market as the feed follows it. */
export interface MarketInfo {
  /** ccxt's symbol, `BTC/USDT`. */
  symbol: string;
  /** The exchange's, `BTCUSDT`. */
  id: string;
  base: string;
  quote: string;
}

/** One asset held: free and locked, the exchange's strings. */
export interface Holding {
  asset: string;
  free: string;
  locked: string;
}

/** A deposit or withdrawal as the exchange reports it, in the feed's terms. */
export interface ExchangeTransfer {
  id: string;
  kind: 'deposit' | 'withdrawal';
  asset: string;
  amount: string;
  fee: string;
  /** When it reached or left the account (ms). */
  time: number;
  /** When the exchange first listed it: what its history's time windows filter on (ms). */
  listedAt: number;
  /** `done`: the money moved; `pending`: not yet (asked again until it is done or failed); `failed`: it never will. */
  state: 'done' | 'pending' | 'failed';
  reference: string | null;
}

export interface ExchangeProfile {
  /** ccxt's id of the exchange, which the feed's commands and checkpoints name it by. */
  id: string;
  name: string;
  /** ccxt's options for a read-only spot client (which markets to load, what not to ask for). */
  ccxtOptions: Record<string, unknown>;
  /** The weight limits: the IP's, shared by every account, and the key's own. */
  pools: Record<string, WeightPool & { per: 'ip' | 'key' }>;
  calls: Record<CallKind, { pool: string; weight: number }>;
  /** The most fills a page of fills holds. */
  pageSize: number;
  /** The longest window a history of transfers may be asked for. */
  transferWindowMs: number;
  /** Before the exchange existed: where a history of transfers starts by default. */
  historyStart: string;
  /** The permissions a key's answer grants beyond reading, by the exchange's names: a key with any is refused. */
  excessPermissions(answer: unknown): string[];
  fetchPermissions(exchange: Exchange): Promise<unknown>;
  /** A page of fills of `market` from `cursor` on (the exchange's id cursor), oldest first: each fill, its own id, and the cursor after it. */
  fetchFills(exchange: Exchange, market: MarketInfo, cursor: string, limit: number): Promise<{ fill: Fill; id: string; next: string }[]>;
  fetchHoldings(exchange: Exchange): Promise<Holding[]>;
  /** The last prices of `marketIds`, as [market id, price]. */
  fetchPrices(exchange: Exchange, marketIds: readonly string[]): Promise<[string, string][]>;
  /** The price of the minute `atMs` (undefined when the exchange has none). */
  fetchPriceAt(exchange: Exchange, marketId: string, atMs: number): Promise<string | undefined>;
  /** Transfers of `kind` listed in [fromMs, toMs], from `offset` on (at most a page). */
  fetchTransfers(
    exchange: Exchange,
    kind: ExchangeTransfer['kind'],
    fromMs: number,
    toMs: number,
    offset: number,
  ): Promise<ExchangeTransfer[]>;
  /** The first cursor of a market's fills (its oldest). */
  firstCursor: string;
}
