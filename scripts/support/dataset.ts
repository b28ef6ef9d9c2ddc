/**
 * Deterministic trading data for the demo, the tests and the benchmark. The same options always give the same
 * accounts, trades and balances. It is written through the writer (load-data.ts), and `balance` is what the API then
 * shows: the broker's figures of the snapshot, with the open trade count and the exact sum of the closed trades'
 * realized P/L that the writer keeps.
 */
import { formatDecimal as decimal, sumDecimals } from '../../lib/decimal';
import type { Account, Balance, BotReport, BotState, Trade } from '../../lib/types';

/** A balance snapshot as a bot records it (the writer's recordBalance). */
export interface Snapshot {
  time: string;
  balance: string;
  unrealizedPL: string;
  nav: string;
  marginUsed: string;
  marginAvailable: string;
}

export interface Dataset {
  /** `history`: earlier balance snapshots, oldest first, recorded before `balance` (the equity series). */
  accounts: { account: Account; bot: BotReport; balance: Balance; history: Snapshot[] }[];
  trades: Trade[];
}

export interface DatasetOptions {
  /** Trades per account, one entry per account. */
  tradeCounts: number[];
  seed?: number;
  /** The newest trade opens shortly before this time. */
  anchor?: Date;
  /** When running bots last reported; defaults to the anchor. */
  heartbeatAt?: Date;
  /** Account id of the i-th account. */
  accountId?: (index: number) => string;
  /**
   * Earlier balance snapshots per account (of the first `accounts` accounts, or all): one every `everyMinutes` over
   * the `days` before its last snapshot. Each balance is the deposit plus the P&L of the trades closed by then; the
   * unrealized P&L wanders. None by default.
   */
  history?: { everyMinutes: number; days: number; accounts?: number };
}

export interface Instrument {
  name: string;
  /** The price at the dataset's anchor, where the demo bot's own walk then starts. */
  price: number;
  scale: number;
  /** Units per size step. */
  lot: number;
  /** Quote-currency units per account-currency unit, roughly, so that P/L stays in a believable range (the demo does no real FX conversion). */
  perQuote: bigint;
  /** One standard deviation of a day's move, as a fraction of the price: EUR_USD moves about half a percent a day. */
  dailyVolatility: number;
}

export const INSTRUMENTS: Instrument[] = [
  { name: 'EUR_USD', price: 1.0842, scale: 5, lot: 1000, perQuote: 1n, dailyVolatility: 0.005 },
  { name: 'GBP_USD', price: 1.2671, scale: 5, lot: 1000, perQuote: 1n, dailyVolatility: 0.006 },
  { name: 'USD_JPY', price: 151.42, scale: 3, lot: 1000, perQuote: 150n, dailyVolatility: 0.006 },
  { name: 'AUD_USD', price: 0.6583, scale: 5, lot: 1000, perQuote: 1n, dailyVolatility: 0.007 },
  { name: 'XAU_USD', price: 2341.5, scale: 2, lot: 1, perQuote: 1n, dailyVolatility: 0.01 },
  { name: 'EUR_GBP', price: 0.8556, scale: 5, lot: 1000, perQuote: 1n, dailyVolatility: 0.0035 },
  { name: 'USD_CHF', price: 0.9032, scale: 5, lot: 1000, perQuote: 1n, dailyVolatility: 0.005 },
];

const HOUR = 3_600_000;

/** A draw of mean 0 and standard deviation 1, near enough to normal for prices: the sum of three uniforms, scaled. */
export function nearNormal(next: () => number): number {
  return (next() + next() + next() - 1.5) * 2;
}

/**
 * One price path per instrument, walked backwards an hour at a time from its price at the anchor, with the
 * instrument's own volatility: every trade of a dataset opens and closes on it, so one instrument's trades agree with
 * each other, a day's range is what that market does in a day, and the demo bot's walk carries on from the last
 * price without a jump. Its own random sequence per instrument, extended as far back as a dataset reaches.
 */
export class PricePaths {
  private readonly paths = new Map<string, { next: () => number; hourly: number[] }>();

  constructor(
    private readonly anchor: number,
    private readonly seed: number,
  ) {}

  /** The price of `instrument` at `time` (ms), between the hourly points of its path; a float, in quote units. */
  at(instrument: Instrument, time: number): number {
    const hours = Math.max(0, (this.anchor - time) / HOUR);
    const path = this.pathOf(instrument, Math.floor(hours) + 2);
    const below = Math.floor(hours);
    const fraction = hours - below;
    return path[below] * (1 - fraction) + path[below + 1] * fraction;
  }

  private pathOf(instrument: Instrument, length: number): number[] {
    let path = this.paths.get(instrument.name);
    if (!path) {
      const index = INSTRUMENTS.indexOf(instrument);
      path = { next: random(this.seed * 31 + 1009 * (index + 1)), hourly: [instrument.price] };
      this.paths.set(instrument.name, path);
    }
    const hourly = instrument.dailyVolatility / Math.sqrt(24);
    while (path.hourly.length < length) {
      const last = path.hourly[path.hourly.length - 1];
      // Near-normal steps, with a weak pull to the anchor price so that a long history stays in the instrument's usual range.
      const z = nearNormal(path.next);
      const pull = ((instrument.price - last) / instrument.price) * 0.002;
      path.hourly.push(last * (1 + z * hourly + pull));
    }
    return path.hourly;
  }
}
const CURRENCIES = ['USD', 'EUR', 'GBP', 'USD', 'EUR'];
const BROKERS = ['OANDA', 'Interactive Brokers', 'Saxo'];
const STATES: BotState[] = ['running', 'paused', 'running', 'stopped', 'error'];
const STRATEGIES = ['trend-following-h4', 'mean-reversion-m15', 'breakout-d1', null];
const MESSAGES: Record<BotState, string | null> = {
  running: null,
  paused: 'Paused by operator for the weekly review',
  stopped: 'Stopped: strategy retired',
  error: 'Broker API rejected orders: insufficient margin',
};
const DEMO_NAMES = ['Primary USD', 'Euro Swing', 'Sterling Carry', 'Gold Desk', 'Paper Sandbox'];

/** Mulberry32: a tiny seeded PRNG, so datasets are reproducible without a dependency. */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const MONEY_SCALE = 4;

/** Profit of a position, exactly: (exit - entry) × units, in 10^-MONEY_SCALE units of the account currency. */
export function profit(side: 'buy' | 'sell', entry: bigint, exit: bigint, units: bigint, scale: number, perQuote: bigint): bigint {
  const move = side === 'buy' ? exit - entry : entry - exit;
  return (move * units * 10n ** BigInt(MONEY_SCALE)) / (10n ** BigInt(scale) * perQuote);
}

/** Where a dataset's history ends unless told otherwise. */
export const DEFAULT_ANCHOR = new Date('2026-11-01T12:00:00.000Z');

/** Builds a dataset; see DatasetOptions. */
export function generateDataset(options: DatasetOptions): Dataset {
  const next = random(options.seed ?? 20261121);
  const anchor = (options.anchor ?? DEFAULT_ANCHOR).getTime();
  const prices = new PricePaths(anchor, options.seed ?? 20261121);
  const onPath = (instrument: Instrument, time: number, noise: number) =>
    BigInt(Math.round(prices.at(instrument, time) * (1 + (noise - 0.5) * 0.0004) * 10 ** instrument.scale));
  const heartbeatAt = options.heartbeatAt ?? new Date(anchor);
  const idOf = options.accountId ?? ((i: number) => `acc-${String(i + 1).padStart(4, '0')}`);
  const accounts: Dataset['accounts'] = [];
  const trades: Trade[] = [];

  options.tradeCounts.forEach((tradeCount, a) => {
    const accountId = idOf(a);
    const currency = CURRENCIES[a % CURRENCIES.length];
    const createdAt = new Date(anchor - (400 + a * 17) * 86_400_000).toISOString();
    const accountTrades: Trade[] = [];
    // Walk back in time from the anchor: the most recent trades are the ones still open.
    let time = anchor - Math.floor(next() * 3_600_000);
    for (let t = 0; t < tradeCount; t++) {
      const instrument = INSTRUMENTS[Math.floor(next() * INSTRUMENTS.length)];
      // The strategy's edge: 55 % of closed trades are on the side the market then moved to.
      const right = next() < 0.55;
      const units = BigInt(instrument.lot * (1 + Math.floor(next() * 20)));
      const entryNoise = next();
      const exitNoise = next();
      const open = t < Math.min(5, tradeCount) && next() < 0.8;
      const openTime = new Date(time).toISOString();
      // Closed a while later, but never after the snapshot at the anchor: the dataset describes a past.
      const closeAt = open ? anchor : Math.max(time, Math.min(time + Math.floor(next() * 6 * 3_600_000) + 60_000, anchor - 60_000));
      const closeTime = open ? null : new Date(closeAt).toISOString();
      const entry = onPath(instrument, time, entryNoise);
      // An open trade is marked at the anchor's price, where the demo bot's prices start.
      const exit = open ? onPath(instrument, anchor, 0.5) : onPath(instrument, closeAt, exitNoise);
      const side = open ? (right ? 'buy' : 'sell') : exit >= entry === right ? 'buy' : 'sell';
      const stop = side === 'buy' ? entry - entry / 100n : entry + entry / 100n;
      const target = side === 'buy' ? entry + entry / 50n : entry - entry / 50n;
      const pl = decimal(profit(side, entry, exit, units, instrument.scale, instrument.perQuote), MONEY_SCALE);
      accountTrades.push({
        id: `${accountId}-${String(tradeCount - t).padStart(7, '0')}`,
        accountId,
        instrument: instrument.name,
        side,
        units: units.toString(),
        status: open ? 'open' : 'closed',
        openPrice: decimal(entry, instrument.scale),
        openTime,
        closePrice: open ? null : decimal(exit, instrument.scale),
        closeTime,
        realizedPL: open ? '0.0000' : pl,
        unrealizedPL: open ? pl : '0.0000',
        stopLoss: next() < 0.7 ? decimal(stop, instrument.scale) : null,
        takeProfit: next() < 0.5 ? decimal(target, instrument.scale) : null,
        closeReason: null,
      });
      // Several trades may open in the same millisecond: the order then falls back to the id.
      time -= next() < 0.05 ? 0 : 60_000 + Math.floor(next() * 4 * 3_600_000);
    }
    trades.push(...accountTrades);

    const openTrades = accountTrades.filter((trade) => trade.status === 'open');
    const deposit = decimal(BigInt(10_000 + Math.floor(next() * 90_000)) * 10n ** BigInt(MONEY_SCALE), MONEY_SCALE);
    // As the writer sums it: from "0", over the closed trades.
    const realizedPL = sumDecimals(['0', ...accountTrades.filter((trade) => trade.status === 'closed').map((trade) => trade.realizedPL)]);
    const unrealizedPL = sumDecimals(['0.0000', ...openTrades.map((trade) => trade.unrealizedPL)]);
    const balance = sumDecimals([deposit, realizedPL]);
    const nav = sumDecimals([balance, unrealizedPL]);
    const marginUsed = decimal(BigInt(openTrades.length) * (250_0000n + BigInt(Math.floor(next() * 100_000)) * 100n), MONEY_SCALE);
    const marginAvailable = sumDecimals([nav, `-${marginUsed}`]);
    const state = STATES[a % STATES.length];
    const updatedAt = new Date(anchor - a * 1000).toISOString();
    const history =
      options.history && a < (options.history.accounts ?? Infinity)
        ? balanceHistory(accountTrades, deposit, marginUsed, Date.parse(updatedAt), options.history, (options.seed ?? 0) + a)
        : [];
    // Every bot has reported (through the writer's heartbeat); the ones not running, a while ago.
    const lastHeartbeatAt = new Date(heartbeatAt.getTime() - (state === 'running' ? 0 : 3_600_000 * (a + 1))).toISOString();
    accounts.push({
      account: {
        id: accountId,
        name: DEMO_NAMES[a] ?? `Bot account ${a + 1}`,
        currency,
        broker: BROKERS[a % BROKERS.length],
        // Every fourth account trades on paper; the demo's "Paper Sandbox" does too, as its name says.
        environment: a % 4 === 3 || DEMO_NAMES[a] === 'Paper Sandbox' ? 'paper' : 'live',
        createdAt,
      },
      bot: {
        state,
        lastHeartbeatAt,
        strategy: STRATEGIES[a % STRATEGIES.length],
        message: MESSAGES[state],
        updatedAt: lastHeartbeatAt,
      },
      balance: {
        accountId,
        currency,
        balance,
        unrealizedPL,
        nav,
        realizedPL,
        marginUsed,
        marginAvailable,
        openTradeCount: openTrades.length,
        updatedAt,
      },
      history,
    });
  });
  return { accounts, trades };
}

/**
 * Snapshots every `everyMinutes` over the `days` before `last` (exclusive): the deposit plus what the trades closed
 * by then realized, an unrealized P&L that wanders within ±100, the margin of the last snapshot. Its own random
 * sequence, so asking for a history leaves the trades and balances of a seed as they were.
 */
function balanceHistory(
  trades: readonly Trade[],
  deposit: string,
  marginUsed: string,
  last: number,
  options: { everyMinutes: number; days: number },
  seed: number,
): Snapshot[] {
  const wander = random(seed * 7919 + 17);
  const step = options.everyMinutes * 60_000;
  const closes = trades
    .filter((trade) => trade.closeTime !== null)
    .map((trade) => ({ at: Date.parse(trade.closeTime!), realizedPL: trade.realizedPL }))
    .sort((x, y) => x.at - y.at);
  const snapshots: Snapshot[] = [];
  let balance = deposit;
  let next = 0;
  for (let at = Math.ceil((last - options.days * 86_400_000) / step) * step; at < last; at += step) {
    for (; next < closes.length && closes[next].at <= at; next++) balance = sumDecimals([balance, closes[next].realizedPL]);
    const unrealizedPL = decimal(BigInt(Math.round((wander() - 0.5) * 2_000_000)), MONEY_SCALE);
    const nav = sumDecimals([balance, unrealizedPL]);
    snapshots.push({
      time: new Date(at).toISOString(),
      balance,
      unrealizedPL,
      nav,
      marginUsed,
      marginAvailable: sumDecimals([nav, `-${marginUsed}`]),
    });
  }
  return snapshots;
}

/**
 * The dataset `npm start` loads: five accounts in three currencies, one with 1,200 trades, one with none, and a
 * snapshot every 6 hours over the last 30 days of each (the equity series; the demo bot adds live ones). Its history
 * ends at `now`, the moment `npm start` first loads it, so the charts run into the live demo without a gap; everything
 * else comes from the seed (tests pass a fixed `now`).
 */
export function demoDataset(now: Date): Dataset {
  const ids = ['primary-usd', 'euro-swing', 'sterling-carry', 'gold-desk', 'paper-sandbox'];
  return generateDataset({
    tradeCounts: [1200, 240, 150, 60, 0],
    accountId: (i) => ids[i],
    anchor: now,
    heartbeatAt: now,
    history: { everyMinutes: 360, days: 30 },
  });
}
