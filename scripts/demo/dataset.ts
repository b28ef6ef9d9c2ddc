/**
 * Deterministic trading data for the demo, the tests and the benchmark. The same options always give the same
 * accounts, trades and balances. It is written through the writer (load-data.ts), and `balance` is what the API then
 * shows: the broker's figures of the snapshot, with the open trade count and the exact sum of the closed trades'
 * realized P/L that the writer keeps.
 *
 * It tells one story per account: a bot that is not running (paused, stopped, in error) opened nothing after its last
 * report, and a stopped one closed its positions and recorded nothing since; the account was opened a day before its
 * first trade, and its balance history starts then, with no unrealized P&L or margin while no trade is open; every
 * amount has its currency's places.
 */
import { formatDecimal as decimal, sumDecimals } from '@trading-bot-api/core/decimal';
import { unitsOf } from '@trading-bot-api/core/performance';
import type { Account, Balance, BotReport, BotState, ExchangeFill, RatesEntry, Snapshot, Trade } from '@trading-bot-api/writer';

export interface Dataset {
  /** `history`: earlier balance snapshots, oldest first, recorded before `balance` (the equity series). */
  accounts: { account: Account; bot: BotReport; balance: Balance; history: Snapshot[] }[];
  trades: Trade[];
  /** The first account's broker account as an exchange feed keeps it (DatasetOptions.mirror), reconciled with it. */
  mirror?: ReturnType<typeof mirrorOf>;
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
   * Earlier balance snapshots per account (of the first `accounts` accounts, or all): one every `everyMinutes` from
   * the account's opening (or only over the last `days`) to its last snapshot. Each is what the broker would have
   * reported then: the deposit plus the P&L of the trades closed by then, and the open trades' unrealized P&L and
   * margin at that hour's prices. None by default.
   */
  history?: { everyMinutes: number; days?: number; accounts?: number };
  /**
   * The first account's broker account, mirrored (Dataset.mirror): its newest MIRRORED_TRADES trades name their orders
   * there, each filled but the close of the newest closed one (`missing_on_exchange`), and one order of the
   * operator's own is filled there too (`missing_in_bot`). None by default.
   */
  mirror?: boolean;
  /**
   * With `mirror`, the prices its feed read of the markets that convert the demo's currencies into USD (DEMO_RATES), on
   * the instruments' price paths: every 6 hours over the last 7 days and each day's 18:00 UTC before, back to the
   * first account's opening, and at the anchor. What values the fleet and each equity point in a reporting currency
   * (docs/operations.md, "One reporting currency"). None by default.
   */
  rates?: boolean;
}

/** The markets the demo's broker feed prices, into USD: EUR and GBP (its other currency is USD itself). */
const DEMO_RATES = { exchange: 'oanda', instruments: ['EUR_USD', 'GBP_USD'] } as const;

/** The prices of DEMO_RATES at `time`, `priceOf` giving an instrument's price in units of its scale. */
export function demoRates(time: Date, priceOf: (instrument: Instrument) => bigint): RatesEntry {
  return {
    exchange: DEMO_RATES.exchange,
    time: time.toISOString(),
    prices: DEMO_RATES.instruments.map((name) => {
      const instrument = INSTRUMENTS.find((candidate) => candidate.name === name)!;
      const [base, quote] = name.split('_');
      return { base, quote, price: decimal(priceOf(instrument), instrument.scale) };
    }),
  };
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
/**
 * How the demo accounts trade (API 1.5): forex and gold on margin at 30:1 (the EU's retail limit for majors), their
 * brokers paid by the spread, so no fee is charged. The demo bot opens its trades so too.
 */
export const DEMO_TERMS = { market: 'margin', leverage: '30', fees: [] } as const;

/** A demo trade: on DEMO_TERMS, with no fee, funding, liquidation price, order ids or close reason. */
function demoTrade(
  trade: Omit<Trade, 'closeReason' | 'market' | 'leverage' | 'fees' | 'feeTotal' | 'fundingFees' | 'liquidationPrice' | 'orderIds'>,
): Trade {
  const none = { closeReason: null, fundingFees: null, liquidationPrice: null, orderIds: null };
  return { ...trade, ...none, market: DEMO_TERMS.market, leverage: DEMO_TERMS.leverage, fees: [], feeTotal: '0' };
}
const BROKERS = ['OANDA', 'Interactive Brokers', 'Saxo'];
const STATES: BotState[] = ['running', 'paused', 'running', 'stopped', 'error'];
/** The strategy each account's bot reports; the demo bot (demo-bot.ts) reports the same for the same demo account. */
export const STRATEGIES = ['trend-following-h4', 'mean-reversion-m15', 'breakout-d1', null, 'grid-m5'];
const MESSAGES: Record<BotState, string | null> = {
  running: null,
  paused: 'Paused by operator for the weekly review',
  stopped: 'Stopped: strategy retired',
  error: 'Broker API rejected orders: insufficient margin',
};
const DEMO_NAMES = ['Primary USD', 'Euro Swing', 'Sterling Carry', 'Gold Desk', 'Paper Sandbox'];

/** The accounts of `npm start`'s demo (demoDataset), which the demo bot trades. */
export const DEMO_ACCOUNT_IDS = ['primary-usd', 'euro-swing', 'sterling-carry', 'gold-desk', 'paper-sandbox'];

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

/** Digits after the point of a currency's amounts, as its brokers write them (ISO 4217's minor units). */
const CURRENCY_PLACES: Record<string, number> = { USD: 2, EUR: 2, GBP: 2, CHF: 2, AUD: 2, JPY: 0 };

/** The places of `currency`'s amounts: 2 unless it has none (JPY). */
export function placesOf(currency: string): number {
  return CURRENCY_PLACES[currency] ?? 2;
}

/**
 * Profit of a position, exactly: (exit - entry) × units, in 10^-`places` units of the account currency (cut towards
 * zero). `exit` is a price of the instrument's scale.
 */
export function profit(
  side: 'buy' | 'sell',
  entry: bigint,
  exit: bigint,
  units: bigint,
  instrument: Pick<Instrument, 'scale' | 'perQuote'>,
  places: number,
): bigint {
  const move = side === 'buy' ? exit - entry : entry - exit;
  return (move * units * 10n ** BigInt(places)) / (10n ** BigInt(instrument.scale) * instrument.perQuote);
}

const DAY = 86_400_000;

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
  let mirror: Dataset['mirror'];

  options.tradeCounts.forEach((tradeCount, a) => {
    const accountId = idOf(a);
    const currency = CURRENCIES[a % CURRENCIES.length];
    const places = placesOf(currency);
    const amount = (units: bigint) => decimal(units, places);
    const state = STATES[a % STATES.length];
    // Every bot has reported (through the writer's heartbeat); the ones not running, a while ago, and they have opened
    // nothing since. A stopped bot closed its positions and recorded its balance when it stopped, and nothing after.
    const reportedAt = heartbeatAt.getTime() - (state === 'running' ? 0 : 3_600_000 * (a + 1));
    const lastOpen = state === 'running' ? anchor : Math.min(anchor, reportedAt);
    const lastRecord = state === 'stopped' ? Math.min(anchor, reportedAt) : anchor - a * 1000;
    const accountTrades: Trade[] = [];
    // Walk back in time from the last opening: the most recent trades are the ones still open.
    let time = lastOpen - Math.floor(next() * 3_600_000);
    for (let t = 0; t < tradeCount; t++) {
      const instrument = INSTRUMENTS[Math.floor(next() * INSTRUMENTS.length)];
      // The strategy's edge: 55 % of closed trades are on the side the market then moved to.
      const right = next() < 0.55;
      const units = BigInt(instrument.lot * (1 + Math.floor(next() * 20)));
      const entryNoise = next();
      const exitNoise = next();
      const open = t < Math.min(5, tradeCount) && next() < 0.8 && state !== 'stopped';
      const openTime = new Date(time).toISOString();
      // Closed a while later, but before the last snapshot: the dataset describes a past.
      const closeAt = open ? anchor : Math.max(time, Math.min(time + Math.floor(next() * 6 * 3_600_000) + 60_000, lastRecord - 60_000));
      const closeTime = open ? null : new Date(closeAt).toISOString();
      const entry = onPath(instrument, time, entryNoise);
      // An open trade is marked at the anchor's price, where the demo bot's prices start.
      const exit = open ? onPath(instrument, anchor, 0.5) : onPath(instrument, closeAt, exitNoise);
      const side = open ? (right ? 'buy' : 'sell') : exit >= entry === right ? 'buy' : 'sell';
      const stop = side === 'buy' ? entry - entry / 100n : entry + entry / 100n;
      const target = side === 'buy' ? entry + entry / 50n : entry - entry / 50n;
      const pl = amount(profit(side, entry, exit, units, instrument, places));
      accountTrades.push(
        demoTrade({
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
          // What a bot leaves out is "0", as the writer stores it: an open trade has realized nothing, a closed one holds nothing.
          realizedPL: open ? '0' : pl,
          unrealizedPL: open ? pl : '0',
          stopLoss: next() < 0.7 ? decimal(stop, instrument.scale) : null,
          takeProfit: next() < 0.5 ? decimal(target, instrument.scale) : null,
          currency,
        }),
      );
      // Several trades may open in the same millisecond: the order then falls back to the id.
      time -= next() < 0.05 ? 0 : 60_000 + Math.floor(next() * 4 * 3_600_000);
    }
    trades.push(...accountTrades);

    // Opened (and funded) a day before its first trade; one that never traded, a day before its bot last reported.
    const firstOpen = accountTrades.length ? Date.parse(accountTrades.at(-1)!.openTime) : lastOpen;
    const createdAt = firstOpen - DAY;
    const deposit = amount(BigInt(10_000 + Math.floor(next() * 90_000)) * 10n ** BigInt(places));
    const priceAt = (name: string, at: number) => {
      const instrument = INSTRUMENTS.find((candidate) => candidate.name === name)!;
      return { instrument, price: onPath(instrument, at, 0.5) };
    };
    const snapshots = brokerSnapshots(accountTrades, deposit, places, priceAt);
    // The last snapshot marks the open trades where they are marked: at the anchor's prices.
    const { time: lastTime, ...figures } = snapshots(lastRecord, anchor);
    const wanted = options.history && a < (options.history.accounts ?? Infinity) ? options.history : undefined;
    const history: Snapshot[] = [];
    if (wanted) {
      const step = wanted.everyMinutes * 60_000;
      const from = wanted.days === undefined ? createdAt : Math.max(createdAt, lastRecord - wanted.days * DAY);
      for (let at = Math.ceil(from / step) * step; at < lastRecord; at += step) history.push(snapshots(at));
    }
    const lastHeartbeatAt = new Date(reportedAt).toISOString();
    accounts.push({
      account: {
        id: accountId,
        name: DEMO_NAMES[a] ?? `Bot account ${a + 1}`,
        currency,
        broker: BROKERS[a % BROKERS.length],
        // Every fourth account trades on paper; the demo's "Paper Sandbox" does too, as its name says.
        environment: a % 4 === 3 || DEMO_NAMES[a] === 'Paper Sandbox' ? 'paper' : 'live',
        createdAt: new Date(createdAt).toISOString(),
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
        ...figures,
        // As the writer sums it: from "0", over the closed trades.
        realizedPL: sumDecimals(['0', ...accountTrades.filter((trade) => trade.status === 'closed').map((trade) => trade.realizedPL)]),
        openTradeCount: accountTrades.filter((trade) => trade.status === 'open').length,
        updatedAt: lastTime,
      },
      history,
    });
    if (options.mirror && a === 0) mirror = mirrorOf(accounts[0], accountTrades, trades);
  });
  if (mirror && options.rates) {
    const first = Math.min(...accounts.map(({ account }) => Date.parse(account.createdAt!)));
    const recent = anchor - 7 * DAY;
    const times: number[] = [];
    for (let day = Math.ceil((first - 18 * HOUR) / DAY) * DAY + 18 * HOUR; day < recent; day += DAY) times.push(day);
    for (let at = Math.ceil(recent / (6 * HOUR)) * 6 * HOUR; at < anchor; at += 6 * HOUR) times.push(at);
    mirror.rates = [...times, anchor].map((at) => demoRates(new Date(at), (instrument) => onPath(instrument, at, 0.5)));
  }
  return { accounts, trades, ...(mirror ? { mirror } : {}) };
}

/** How many of the first account's newest trades name their orders on the mirrored broker account. */
export const MIRRORED_TRADES = 40;

/**
 * The first account's broker account (DatasetOptions.mirror), as an exchange feed keeps one: its profile and balance,
 * its fills, the bot's account it is reconciled with, and the prices its feed read (DatasetOptions.rates, oldest
 * first: none unless asked for). Names the bot's newest trades' orders in `trades` (in place) and returns their fills,
 * less one close and with one manual order; its balance is the bot's, so they agree. Loaded retired (load-data.ts):
 * the bot's account holds the same money, which the fleet's totals would otherwise count twice.
 */
function mirrorOf(bot: Dataset['accounts'][number], accountTrades: Trade[], trades: Trade[]) {
  const { account, balance } = bot;
  const id = `${account.id}-broker`;
  const fills: ExchangeFill[] = [];
  const fill = (orderId: string, trade: Trade, side: Trade['side'], time: string) =>
    fills.push({
      orderId,
      fillId: `${orderId}-1`,
      instrument: trade.instrument,
      side,
      amount: trade.units,
      fee: '0',
      feeCurrency: account.currency,
      time,
    });
  const newest = accountTrades.slice(0, MIRRORED_TRADES);
  const unfilled = newest.find((trade) => trade.status === 'closed');
  newest.forEach((trade, n) => {
    const [open, close] = [`${7_100_000 + 2 * n}`, `${7_100_000 + 2 * n + 1}`];
    const named: Trade = { ...trade, orderIds: trade.status === 'closed' ? [open, close] : [open] };
    trades[trades.indexOf(trade)] = named;
    fill(open, trade, trade.side, trade.openTime);
    if (trade.status === 'closed' && trade !== unfilled) fill(close, trade, trade.side === 'buy' ? 'sell' : 'buy', trade.closeTime!);
  });
  // An order of the operator's own on the same account, a minute before the newest trade opened: no trade names it.
  const manual = newest[0];
  if (manual) fill('7099999', manual, 'buy', new Date(Date.parse(manual.openTime) - 60_000).toISOString());
  return {
    account: { ...account, id, name: `${account.name} at ${account.broker}` },
    balance: { ...balance, accountId: id, realizedPL: '0', openTradeCount: 0 },
    fills,
    reconcileWith: account.id,
    rates: [] as RatesEntry[],
  };
}

/**
 * What the broker reports at any time of an account's history: its balance (the deposit plus what the trades closed
 * by then realized), and the trades open then as unrealized P&L and margin, at the prices of `markedAt` (that time
 * unless given; `priceAt` gives them).
 */
function brokerSnapshots(
  trades: readonly Trade[],
  deposit: string,
  places: number,
  priceAt: (instrument: string, at: number) => { instrument: Instrument; price: bigint },
): (at: number, markedAt?: number) => Snapshot {
  const timed = trades.map((trade) => ({
    trade,
    opened: Date.parse(trade.openTime),
    closed: trade.closeTime === null ? Infinity : Date.parse(trade.closeTime),
  }));
  return (at, markedAt = at) => {
    let realized = 0n;
    for (const { trade, closed } of timed) if (closed <= at) realized += unitsOf(trade.realizedPL, places);
    const open = timed.filter(({ opened, closed }) => opened <= at && at < closed).map(({ trade }) => trade);
    const balance = sumDecimals([deposit, decimal(realized, places)]);
    return { time: new Date(at).toISOString(), ...brokerFigures(balance, open, places, (trade) => priceAt(trade.instrument, markedAt)) };
  };
}

/**
 * The figures a broker reports of an account holding `balance` in cash and the `open` trades, each marked at the price
 * `priceOf` gives it: their unrealized P&L, and their margin (a flat 2.5 % of each position's value). The demo data's
 * history and the demo bot's live snapshots alike.
 */
export function brokerFigures<T extends Pick<Trade, 'side' | 'openPrice' | 'units'>>(
  balance: string,
  open: readonly T[],
  places: number,
  priceOf: (trade: T) => { instrument: Instrument; price: bigint },
): Omit<Snapshot, 'time'> {
  let unrealized = 0n;
  let margin = 0n;
  for (const trade of open) {
    const { instrument, price } = priceOf(trade);
    unrealized += profit(trade.side, unitsOf(trade.openPrice, instrument.scale), price, BigInt(trade.units), instrument, places);
    margin += (price * BigInt(trade.units) * 10n ** BigInt(places)) / (40n * 10n ** BigInt(instrument.scale) * instrument.perQuote);
  }
  const nav = sumDecimals([balance, decimal(unrealized, places)]);
  return {
    balance,
    unrealizedPL: decimal(unrealized, places),
    nav,
    marginUsed: decimal(margin, places),
    marginAvailable: sumDecimals([nav, decimal(-margin, places)]),
  };
}

/**
 * The dataset `npm start` loads: five accounts in three currencies, one with 1,200 trades (some 14 weeks of them),
 * one with none, and a snapshot every 6 hours of each from its opening (the equity series; the demo bot adds live
 * ones); the first's broker account mirrored and reconciled with it (out of the fleet: DatasetOptions.mirror). Its history ends at `now`, the moment `npm start` first loads it, so the charts run into the live demo
 * without a gap; everything else comes from the seed (tests pass a fixed `now`).
 */
export function demoDataset(now: Date): Dataset {
  return generateDataset({
    tradeCounts: [1200, 240, 150, 60, 0],
    accountId: (i) => DEMO_ACCOUNT_IDS[i],
    anchor: now,
    heartbeatAt: now,
    history: { everyMinutes: 360 },
    mirror: true,
    rates: true,
  });
}
