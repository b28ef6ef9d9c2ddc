/**
 * A simulated trading bot over the demo accounts, writing only through the writer (packages/writer), so `npm start` shows
 * a living system: prices carry on from where the demo data's price paths end, in a random walk per instrument; the bot opens trades of realistic sizes with a
 * stop-loss and a take-profit, closes them when the price reaches either or after a while, updates their marks and
 * the balance snapshots, and heartbeats every few seconds. The accounts cover the states a dashboard must show:
 *
 *   primary-usd      running, trading
 *   euro-swing       paused (heartbeats, no new trades; its positions keep their marks)
 *   sterling-carry   running, trading, and in `error` now and then for a while
 *   gold-desk        stopped (silent)
 *   paper-sandbox    running, trading, but its heartbeat lapses long enough to turn stale, then recovers
 *
 * Each tick it also records, as primary-usd's broker feed, the prices that convert the demo's currencies into USD
 * (DEMO_RATES), so the fleet and the equity series in the reporting currency move with the market.
 *
 * Every decision comes from a seeded generator: the same seed makes the same run (times aside).
 */
import { formatDecimal, sumDecimals } from '@trading-bot-api/core/decimal';
import { unitsOf } from '@trading-bot-api/core/performance';
import type { BotState, Trade } from '@trading-bot-api/core/types';
import type { Writer } from '@trading-bot-api/writer';
import stages from '../../resources/stages.js';
import {
  brokerFigures,
  demoRates,
  DEMO_ACCOUNT_IDS,
  DEMO_TERMS,
  type Instrument,
  INSTRUMENTS,
  nearNormal,
  placesOf,
  profit,
  random,
  STRATEGIES,
} from './dataset';

export type Role = 'trading' | 'paused' | 'flaky' | 'stopped' | 'lapsing';

/** The role of each demo account, in DEMO_ACCOUNT_IDS's order. */
const DEMO_ROLES: Role[] = ['trading', 'paused', 'flaky', 'stopped', 'lapsing'];

export interface DemoBotOptions {
  writer: Writer;
  seed?: number;
  /**
   * Seconds between ticks (prices move, trades open and close, marks and balances update); default 5, the fleet view's
   * refresh: a tick every 2 s wrote twice as much (some 530 writes a minute against 260) for states no poll saw.
   */
  tickSeconds?: number;
  /**
   * The chance that a trading account with room for a position opens one on a tick; default the same rate per second
   * whatever the tick (about 2.7 opens a minute per trading account).
   */
  openChance?: number;
  /** Seconds between heartbeats. */
  heartbeatSeconds?: number;
  /** The API's stale threshold: a lapse lasts longer than this; default STALE_AFTER_SECONDS, else the local stage's. */
  staleAfterSeconds?: number;
  /** How long a position is held at most, in seconds (shortest, longest); default 30 to 180. */
  holdSeconds?: [number, number];
  /** Errors, and with `verbose` every open and close. */
  log?: (line: string) => void;
  verbose?: boolean;
}

/**
 * The state a role reports `elapsed` seconds into the run, or null for silence (no heartbeat). `flaky` spends 70 s of
 * every 180 s in `error`; `lapsing` heartbeats for 60 s, then is silent for the stale threshold plus 90 s, and so on.
 * Both stay in their state for longer than `npm start`'s probe interval (60 s), so the probe sees every episode.
 */
export function reportFor(role: Role, elapsed: number, staleAfterSeconds: number): { state: BotState; message: string | null } | null {
  switch (role) {
    case 'trading':
      return { state: 'running', message: null };
    case 'paused':
      return { state: 'paused', message: 'Paused by operator for the weekly review' };
    case 'stopped':
      return null;
    case 'flaky':
      return elapsed % 180 >= 110 ? { state: 'error', message: 'Broker API timeout: reconnecting' } : { state: 'running', message: null };
    case 'lapsing': {
      const cycle = 60 + staleAfterSeconds + 90;
      return elapsed % cycle < 60 ? { state: 'running', message: null } : null;
    }
  }
}

/**
 * The price of `instrument` a tick after `price` (integers of 10^-scale). It starts where the demo data's price paths
 * end (the instrument's anchor price) and moves at three times the instrument's daily volatility scaled to a tick,
 * pulled back to the anchor price with a half-life of about half an hour: a day's range stays what that market may do
 * on a busy day, while a few minutes still show movement.
 */
export function nextPrice(instrument: Instrument, price: bigint, tickSeconds: number, next: () => number): bigint {
  const sigma = instrument.dailyVolatility * Math.sqrt(tickSeconds / 86_400) * 3;
  const pull = ((instrument.price - Number(price) / 10 ** instrument.scale) / instrument.price) * (tickSeconds / 2_600);
  return price + BigInt(Math.round(Number(price) * (nearNormal(next) * sigma + pull)));
}

/** What the bot reads of a trade it holds (one it opened, or an open trade of the account it took over). */
type Held = Pick<
  Trade,
  'id' | 'accountId' | 'instrument' | 'side' | 'units' | 'openPrice' | 'openTime' | 'stopLoss' | 'takeProfit' | 'unrealizedPL'
>;

interface Position {
  trade: Held;
  openedAt: number;
  /** Seconds after which the bot closes it whatever the price. */
  holdSeconds: number;
}

interface AccountState {
  id: string;
  role: Role;
  /** The strategy its heartbeats report: the one the demo data's bot reported. */
  strategy: string | null;
  /** The places of its currency's amounts: every P&L and balance it writes has them. */
  places: number;
  balance: string;
  positions: Map<string, Position>;
}

/** Prices as integers of 10^-scale, per instrument. */
type Prices = Map<string, bigint>;

export class DemoBot {
  private readonly next: () => number;
  private readonly accounts: AccountState[] = [];
  private readonly prices: Prices = new Map();
  private timer?: NodeJS.Timeout;
  private started = 0;
  private lastHeartbeat = -Infinity;
  private running?: Promise<void>;
  private sequence = 0;
  private readonly staleAfterSeconds: number;
  /** What the bot did, for reports and tests. */
  readonly counts = { opened: 0, closed: 0, marked: 0, snapshots: 0, heartbeats: 0, errors: 0 };

  constructor(private readonly options: DemoBotOptions) {
    this.next = random(options.seed ?? 20261122);
    this.staleAfterSeconds =
      options.staleAfterSeconds ?? Number(process.env.STALE_AFTER_SECONDS || stages.stageSettings('local').staleAfterSeconds);
    for (const instrument of INSTRUMENTS) {
      this.prices.set(instrument.name, BigInt(Math.round(instrument.price * 10 ** instrument.scale)));
    }
  }

  /** Reads the demo accounts' balances and open trades, so a bot started again carries on from where it was. */
  async load(): Promise<void> {
    const { writer } = this.options;
    const stored = new Map((await writer.listAccounts()).map((entry) => [entry.account.id, entry.balance]));
    for (const [index, id] of DEMO_ACCOUNT_IDS.entries()) {
      const record = stored.get(id);
      if (!record) continue;
      const open = await writer.openTrades(id);
      const positions = new Map(open.map((trade) => [trade.id, { trade, openedAt: Date.now(), holdSeconds: this.holdSeconds() }]));
      this.accounts.push({
        id,
        role: DEMO_ROLES[index],
        strategy: STRATEGIES[index],
        places: placesOf(record.currency),
        balance: record.balance,
        positions,
      });
    }
    if (!this.accounts.length) throw new Error('no demo accounts: start the API with its demo data (npm start) first');
  }

  /** Ticks every `tickSeconds` until stopped. */
  start(): void {
    this.started = Date.now();
    const period = this.tickSeconds() * 1000;
    const loop = async () => {
      this.running = this.tick().catch((error: Error) => {
        this.counts.errors += 1;
        this.options.log?.(`demo bot: ${error.message}`);
      });
      await this.running;
      if (this.timer !== undefined) this.timer = setTimeout(loop, period);
    };
    this.timer = setTimeout(loop, 0);
  }

  /** Stops after the tick in progress, if any. */
  async stop(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One step of the simulation. */
  async tick(): Promise<void> {
    const { writer } = this.options;
    const now = new Date();
    const elapsed = (Date.now() - this.started) / 1000;
    this.walkPrices();
    // The prices before the balances, as a feed writes them: a fleet answer whose balances moved reads them.
    await writer.recordRates(
      `${DEMO_ACCOUNT_IDS[0]}-broker`,
      demoRates(now, (instrument) => this.prices.get(instrument.name)!),
    );
    for (const account of this.accounts) {
      const report = reportFor(account.role, elapsed, this.staleAfterSeconds);
      if (account.role === 'stopped') continue;
      // Positions close by their stop, their target, or their time; every account does that, paused or not.
      for (const position of [...account.positions.values()]) {
        const price = this.priceOf(position.trade);
        const exitAt = this.exitPrice(position, price, now);
        if (exitAt !== undefined) await this.close(account, position, exitAt, now);
        else await this.mark(position, price, account.places);
      }
      const trades = report?.state === 'running' && account.role !== 'paused';
      if (trades && account.positions.size < 6 && this.next() < this.openChance()) await this.open(account, now);
      await this.snapshot(account, now);
    }
    if (elapsed - this.lastHeartbeat >= (this.options.heartbeatSeconds ?? 5)) {
      this.lastHeartbeat = elapsed;
      for (const account of this.accounts) {
        const report = reportFor(account.role, elapsed, this.staleAfterSeconds);
        if (!report) continue;
        await writer.heartbeat(account.id, { ...report, strategy: account.strategy, time: now.toISOString() });
        this.counts.heartbeats += 1;
      }
    }
  }

  private tickSeconds(): number {
    return this.options.tickSeconds ?? 5;
  }

  /** One chance in 11 every 2 seconds, at any tick. */
  private openChance(): number {
    return this.options.openChance ?? 1 - (1 - 0.09) ** (this.tickSeconds() / 2);
  }

  private holdSeconds(): number {
    const [shortest, longest] = this.options.holdSeconds ?? [30, 180];
    return shortest + this.next() * (longest - shortest);
  }

  private walkPrices(): void {
    for (const instrument of INSTRUMENTS) {
      this.prices.set(instrument.name, nextPrice(instrument, this.prices.get(instrument.name)!, this.tickSeconds(), this.next));
    }
  }

  private instrumentOf(trade: Held) {
    return INSTRUMENTS.find((instrument) => instrument.name === trade.instrument) ?? INSTRUMENTS[0];
  }

  private priceOf(trade: Held): bigint {
    return this.prices.get(trade.instrument) ?? BigInt(Math.round(Number(trade.openPrice) * 10 ** this.instrumentOf(trade).scale));
  }

  /** The price the position closes at now, if its stop, its target or its time is reached. */
  private exitPrice(position: Position, price: bigint, now: Date): bigint | undefined {
    const { trade } = position;
    const { scale } = this.instrumentOf(trade);
    const buy = trade.side === 'buy';
    const stop = trade.stopLoss === null ? undefined : unitsOf(trade.stopLoss, scale);
    const target = trade.takeProfit === null ? undefined : unitsOf(trade.takeProfit, scale);
    if (stop !== undefined && (buy ? price <= stop : price >= stop)) return price;
    if (target !== undefined && (buy ? price >= target : price <= target)) return price;
    // Held long enough since it opened, and since this bot took it over (one started again carries on).
    const held = now.getTime() - Math.max(Date.parse(trade.openTime), position.openedAt);
    return held > position.holdSeconds * 1000 ? price : undefined;
  }

  private plOf(trade: Held, price: bigint, places: number): string {
    const instrument = this.instrumentOf(trade);
    const entry = unitsOf(trade.openPrice, instrument.scale);
    return formatDecimal(profit(trade.side, entry, price, BigInt(trade.units), instrument, places), places);
  }

  private async open(account: AccountState, now: Date): Promise<void> {
    const instrument = INSTRUMENTS[Math.floor(this.next() * INSTRUMENTS.length)];
    const side = this.next() < 0.55 ? 'buy' : 'sell';
    const price = this.prices.get(instrument.name)!;
    const units = BigInt(instrument.lot * (1 + Math.floor(this.next() * 20)));
    const risk = price / 400n;
    const trade = {
      id: `${account.id}-live-${now.getTime().toString(36)}-${(this.sequence++).toString(36)}`,
      instrument: instrument.name,
      side,
      units: units.toString(),
      openPrice: formatDecimal(price, instrument.scale),
      openTime: now.toISOString(),
      stopLoss: formatDecimal(side === 'buy' ? price - risk : price + risk, instrument.scale),
      takeProfit: formatDecimal(side === 'buy' ? price + 2n * risk : price - 2n * risk, instrument.scale),
    } as const;
    await this.options.writer.openTrade(account.id, { ...trade, ...DEMO_TERMS, fees: [] });
    const stored = { ...trade, accountId: account.id, unrealizedPL: '0' };
    account.positions.set(trade.id, { trade: stored, openedAt: now.getTime(), holdSeconds: this.holdSeconds() });
    this.counts.opened += 1;
    if (this.options.verbose)
      this.options.log?.(`${account.id}: opened ${trade.id} ${trade.side} ${trade.units} ${trade.instrument} at ${trade.openPrice}`);
  }

  private async close(account: AccountState, position: Position, price: bigint, now: Date): Promise<void> {
    const { trade } = position;
    const realizedPL = this.plOf(trade, price, account.places);
    const closeTime = now.toISOString() < trade.openTime ? trade.openTime : now.toISOString();
    const closePrice = formatDecimal(price, this.instrumentOf(trade).scale);
    await this.options.writer.closeTrade(account.id, trade.id, { closePrice, closeTime, realizedPL });
    account.positions.delete(trade.id);
    account.balance = sumDecimals([account.balance, realizedPL]);
    this.counts.closed += 1;
    if (this.options.verbose) this.options.log?.(`${account.id}: closed ${trade.id} at ${closePrice}, realized ${realizedPL}`);
  }

  private async mark(position: Position, price: bigint, places: number): Promise<void> {
    const unrealizedPL = this.plOf(position.trade, price, places);
    if (unrealizedPL === position.trade.unrealizedPL) return;
    await this.options.writer.updateTradeMarks(position.trade.accountId, position.trade.id, { unrealizedPL });
    position.trade = { ...position.trade, unrealizedPL };
    this.counts.marked += 1;
  }

  private async snapshot(account: AccountState, now: Date): Promise<void> {
    const open = [...account.positions.values()].map((position) => position.trade);
    const marked = (trade: Held) => ({ instrument: this.instrumentOf(trade), price: this.priceOf(trade) });
    await this.options.writer.recordBalance(account.id, {
      ...brokerFigures(account.balance, open, account.places, marked),
      time: now.toISOString(),
    });
    this.counts.snapshots += 1;
  }
}
