/**
 * A fake hummingbot instance for the bridge's tests: an MQTT client that publishes what hummingbot's MQTT bridge
 * publishes, with its topics and payloads as hummingbot's source writes them (read at hummingbot/hummingbot
 * 2bfaccc, July 2026):
 *
 * - remote_iface/mqtt.py: topics `<namespace>/<instance_id>/hb|events|log|status_updates|notify`; the heartbeat
 *   `{"ts": int((time.time() + 0.5) * 1e6)}`; `broadcast_status_update("online", msg_type="availability")` on connect
 *   and `"offline"` on stop; market events as `InternalEventMessage(timestamp=int(timestamp), type=<name>, data=…)`,
 *   the event's fields (OrderFilledEvent's, in core/event/events.py) with `timestamp` popped out, enums as `str()`,
 *   Decimals as floats and the fee as `TradeFeeBase.to_json()` (core/data_type/trade_fee.py: `percent` and each flat
 *   fee's `amount` as `str(Decimal)`); log records as `LogMessage`; every payload through `mqtt_serialize` (ujson:
 *   compact, `/` escaped, non-ASCII as `\u…`, floats as repr);
 * - strategy/strategy_v2_base.py and scripts/v2_with_controllers.py: `…/performance` every second,
 *   `{<controller_id>: {"performance": PerformanceReport.dict(), "custom_info": {}}}`, and `{<controller_id>: {}}` for
 *   each controller when the strategy stops;
 * - connector/markets_recorder.py of hummingbot 2.1 (append_to_csv): `data/trades_<config>.csv`, a header of
 *   `TradeFill.attribute_names_for_file_export()` and `age`, rows written by pandas, moved to `…_old_<time>.csv`
 *   when the header changes.
 *
 * Its controllers' P&L (`realized`, `unrealized`, the `performance` reports) is computed here on its own, and models
 * what hummingbot reports for executors that close one at a time on a pair: average entry price and realized P&L on
 * the matched part as PositionHold._process_order computes them (strategy_v2/executors/executor_orchestrator.py),
 * net of every fee as an executor's `net_pnl_quote` is (`trade_pnl_quote − cum_fees_quote`). It does not model
 * PositionHold's own figure, which is gross (it never subtracts `cum_fees_quote`: hummingbot's = this + the closed
 * units' fees), nor the realized P&L hummingbot caches from earlier sessions, nor executors overlapping on one pair
 * (docs/operations.md, "Fills into trades").
 */
import { appendFileSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect, type MqttClient } from 'mqtt';
import { compareDecimals, decimalSign, divideDecimals, negateDecimal, sumDecimals, trimDecimal } from '@trading-bot-api/core/decimal';
import { pythonFloat } from './fake-freqtrade';

/** A float as ujson writes it (Python's repr). */
class Float {
  constructor(readonly value: number) {}
}

/** What `mqtt_serialize` writes: ujson, compact, `/` escaped, non-ASCII escaped, floats in repr. */
export function ujson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (value instanceof Float) return pythonFloat(value.value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value === 'string')
    return JSON.stringify(value)
      .replaceAll('/', '\\/')
      .replace(/[\u0080-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if (Array.isArray(value)) return `[${value.map(ujson).join(',')}]`;
  return `{${Object.entries(value as Record<string, unknown>)
    .map(([key, item]) => `${ujson(key)}:${ujson(item)}`)
    .join(',')}}`;
}

/** `a` × `b` on decimal strings, its own arithmetic (not the bridge's). */
function times(a: string, b: string): string {
  const scale = (text: string) => (text.split('.')[1] ?? '').length;
  const units = BigInt(a.replace('.', '')) * BigInt(b.replace('.', ''));
  const places = scale(a) + scale(b);
  const digits = (units < 0n ? -units : units).toString().padStart(places + 1, '0');
  const text = `${units < 0n ? '-' : ''}${digits.slice(0, digits.length - places)}${places ? `.${digits.slice(-places)}` : ''}`;
  return trimDecimal(text);
}
const plus = (...values: string[]) => trimDecimal(sumDecimals(values));
const minus = (a: string, b: string) => plus(a, negateDecimal(b));
/** Python's Decimal division (28 significant digits is more than any figure here needs). */
const over = (a: string, b: string) => trimDecimal(divideDecimals(a, b, 24));

interface FakeFee {
  /** `AddedToCost` (spot, most exchanges) or `DeductedFromReturns`. */
  type?: 'AddedToCost' | 'DeductedFromReturns';
  percent?: string;
  percentToken?: string | null;
  flat?: { token: string; amount: string }[];
}

export interface FillInput {
  pair: string;
  side: 'BUY' | 'SELL';
  price: number;
  amount: number;
  fee?: FakeFee;
  /** Seconds since the epoch (hummingbot's clock). */
  at: number;
  orderId?: string;
  exchangeTradeId?: string;
  position?: 'OPEN' | 'CLOSE' | 'NIL';
  /** A perpetual connector's leverage (an int; 1 on spot). */
  leverage?: number;
  orderType?: 'LIMIT' | 'MARKET' | 'LIMIT_MAKER';
}

/** A v2 controller's position, as PositionHold keeps it, and its fees. */
interface Book {
  net: string;
  avg: string;
  /** Fees paid on the units held, not yet realized. */
  fees: string;
  realized: string;
}

export interface FakeHummingbotOptions {
  url: string;
  instanceId: string;
  namespace?: string;
  username?: string;
  password?: string;
  /** Each controller's trading pair (a directional or market-making controller trades one). */
  controllers?: Record<string, string>;
  /** The rate oracle: the value of one token in the quote, for fees in another token. */
  rates?: Record<string, string>;
  /**
   * Hands each message to this (a bridge's `receive`) instead of a broker: no connection, for tests that need the
   * bridge's output rather than MQTT (`url` is then unused).
   */
  deliver?: (topic: string, payload: string) => void;
}

/** The fee as `TradeFeeBase.to_json()` gives it. */
function feeJson(fee: FakeFee | undefined) {
  return {
    fee_type: fee?.type ?? 'AddedToCost',
    percent: fee?.percent ?? '0',
    percent_token: fee?.percentToken ?? null,
    flat_fees: (fee?.flat ?? []).map((flat) => ({ token: flat.token, amount: flat.amount })),
  };
}

/**
 * The payload of `…/events` for a fill, as `MQTTMarketEventForwarder._send_mqtt_event` publishes an OrderFilledEvent
 * (`sequence` numbers its ids when the input gives none).
 */
export function orderFilledEvent(input: FillInput, sequence: number): { payload: string; orderId: string; exchangeTradeId: string } {
  const orderId = input.orderId ?? `${input.side === 'BUY' ? 'buy' : 'sell'}-${input.pair}-${input.at}${String(sequence).padStart(3, '0')}`;
  const exchangeTradeId = input.exchangeTradeId ?? `${9_000_000 + sequence}`;
  const data = {
    order_id: orderId,
    trading_pair: input.pair,
    trade_type: `TradeType.${input.side}`,
    order_type: `OrderType.${input.orderType ?? 'LIMIT'}`,
    price: new Float(input.price),
    amount: new Float(input.amount),
    trade_fee: feeJson(input.fee),
    exchange_trade_id: exchangeTradeId,
    exchange_order_id: `ex-${orderId}`,
    leverage: input.leverage ?? 1,
    position: input.position ?? 'NIL',
  };
  return { payload: ujson({ timestamp: Math.trunc(input.at), type: 'OrderFilled', data }), orderId, exchangeTradeId };
}

export class FakeHummingbot {
  private client?: MqttClient;
  private readonly books = new Map<string, Book>();
  private sequence = 0;
  private beating?: NodeJS.Timeout;
  /** Each fill's event as published, to publish again. */
  readonly published: { topic: string; payload: string }[] = [];

  constructor(readonly options: FakeHummingbotOptions) {}

  private topic(channel: string): string {
    return `${this.options.namespace ?? 'hbot'}/${this.options.instanceId}/${channel}`;
  }

  /** Connects as hummingbot's gateway does, and says it is online. */
  async connect(): Promise<this> {
    this.client = connect(this.options.url, {
      clientId: `hbot.${this.options.instanceId}`,
      username: this.options.username,
      password: this.options.password,
      keepalive: 60,
      reconnectPeriod: 0,
      protocolVersion: 4,
    });
    await new Promise<void>((resolve, reject) => {
      this.client!.once('connect', () => resolve());
      this.client!.once('error', reject);
    });
    // hummingbot logs a lost connection and reconnects on its own; the tests connect it again when they want it.
    this.client.on('error', () => {});
    await this.status('online');
    return this;
  }

  /** `MQTTGateway.stop`: says it is offline, and goes. */
  async disconnect(): Promise<void> {
    this.stopBeating();
    await this.status('offline');
    await this.client?.endAsync();
    this.client = undefined;
  }

  async publish(channel: string, payload: string): Promise<void> {
    await this.republish({ topic: this.topic(channel), payload });
  }

  async status(msg: 'online' | 'offline'): Promise<void> {
    await this.publish('status_updates', ujson({ timestamp: Date.now(), type: 'availability', msg }));
  }

  async beat(): Promise<void> {
    await this.publish('hb', ujson({ ts: Math.trunc((Date.now() / 1000 + 0.5) * 1e6) }));
  }

  /** Heartbeats every `ms` (hummingbot: 10 s), the first now. */
  startBeating(ms: number): void {
    this.stopBeating();
    void this.beat();
    this.beating = setInterval(() => void this.beat().catch(() => {}), ms);
  }

  stopBeating(): void {
    clearInterval(this.beating);
    this.beating = undefined;
  }

  async log(levelName: 'INFO' | 'WARNING' | 'ERROR', msg: string): Promise<void> {
    const levelNo = { INFO: 20, WARNING: 30, ERROR: 40 }[levelName];
    await this.publish(
      'log',
      ujson({ timestamp: new Float(Date.now() / 1000), msg, level_no: levelNo, level_name: levelName, logger_name: 'hummingbot.strategy' }),
    );
  }

  /** The fee of a fill in the quote, as hummingbot's `fee_amount_in_token` values it. */
  private feeInQuote(input: FillInput, price: string, amount: string): string {
    const [base, quote] = input.pair.split('-');
    let fee = '0';
    if (input.fee?.percent && decimalSign(input.fee.percent) !== 0) fee = plus(fee, times(times(price, amount), input.fee.percent));
    for (const flat of input.fee?.flat ?? []) {
      if (flat.token === quote) fee = plus(fee, flat.amount);
      else if (flat.token === base) fee = plus(fee, times(flat.amount, price));
      else fee = plus(fee, times(flat.amount, this.options.rates?.[flat.token] ?? '0'));
    }
    return fee;
  }

  /**
   * PositionHold._process_order's average cost, with the fill's fee taken off what it realizes (the opening fills'
   * fees carried by the units held, the reducing fill's own): an executor's net P&L, not PositionHold's gross figure.
   */
  private account(input: FillInput, fee: string): void {
    const price = String(input.price);
    const amount = String(input.amount);
    const book = this.books.get(input.pair) ?? { net: '0', avg: '0', fees: '0', realized: '0' };
    const buy = input.side === 'BUY';
    const reducing = (decimalSign(book.net) > 0 && !buy) || (decimalSign(book.net) < 0 && buy);
    if (reducing) {
      const held = book.net.replace(/^-/, '');
      const matched = compareDecimals(amount, held) <= 0 ? amount : held;
      const pnl = decimalSign(book.net) > 0 ? times(minus(price, book.avg), matched) : times(minus(book.avg, price), matched);
      const carried = over(times(book.fees, matched), held);
      const closingFee = over(times(fee, matched), amount);
      book.realized = minus(minus(plus(book.realized, pnl), carried), closingFee);
      book.fees = minus(book.fees, carried);
      const excess = minus(amount, matched);
      if (decimalSign(excess) > 0) {
        book.net = buy ? excess : negateDecimal(excess);
        book.avg = price;
        book.fees = minus(fee, closingFee);
      } else if (compareDecimals(matched, held) === 0) {
        book.net = '0';
        book.avg = '0';
        book.fees = '0';
      } else book.net = decimalSign(book.net) > 0 ? minus(book.net, matched) : plus(book.net, matched);
    } else if (decimalSign(book.net) === 0) {
      book.net = buy ? amount : negateDecimal(amount);
      book.avg = price;
      book.fees = fee;
    } else {
      const held = book.net.replace(/^-/, '');
      const total = plus(times(book.avg, held), times(price, amount));
      const size = plus(held, amount);
      book.avg = over(total, size);
      book.net = buy ? size : negateDecimal(size);
      book.fees = plus(book.fees, fee);
    }
    this.books.set(input.pair, book);
  }

  /** A fill: its OrderFilled event published (returned, to publish again), and counted in its controller's P&L. */
  async fill(input: FillInput): Promise<{ topic: string; payload: string; orderId: string; exchangeTradeId: string }> {
    this.sequence += 1;
    const event = orderFilledEvent(input, this.sequence);
    this.account(input, this.feeInQuote(input, String(input.price), String(input.amount)));
    await this.publish('events', event.payload);
    const published = { topic: this.topic('events'), ...event };
    this.published.push(published);
    return published;
  }

  /** The order events around a fill that carry nothing to mirror. */
  async orderCreated(pair: string, side: 'BUY' | 'SELL', at: number): Promise<void> {
    await this.publish(
      'events',
      ujson({
        timestamp: at,
        type: side === 'BUY' ? 'BuyOrderCreated' : 'SellOrderCreated',
        data: { type: 'OrderType.LIMIT', trading_pair: pair, amount: new Float(0.01), price: new Float(60000), order_id: `o-${at}` },
      }),
    );
  }

  /** Publishes a message again, as a broker redelivering it or a bot replaying it would. */
  async republish(message: { topic: string; payload: string }): Promise<void> {
    if (this.options.deliver) this.options.deliver(message.topic, message.payload);
    else await this.client!.publishAsync(message.topic, message.payload, { qos: 0 });
  }

  /**
   * A controller's realized P&L, net of fees: hummingbot's `realized_pnl_quote` for executors closing one at a time on
   * its pair (exact here). For a held position hummingbot reports this plus the closed units' fees.
   */
  realized(controller: string): string {
    return this.books.get(this.options.controllers?.[controller] ?? '')?.realized ?? '0';
  }

  /** The unrealized P&L of a controller's position at `mid`, less the fees it carries (an active executor's net P&L). */
  unrealized(controller: string, mid: string): string {
    const book = this.books.get(this.options.controllers?.[controller] ?? '');
    if (!book || decimalSign(book.net) === 0) return '0';
    const held = book.net.replace(/^-/, '');
    const gross = decimalSign(book.net) > 0 ? times(minus(mid, book.avg), held) : times(minus(book.avg, mid), held);
    return minus(gross, book.fees);
  }

  /** `send_performance_report`: each controller's report, at the mid prices given (by controller). */
  async performance(mids: Record<string, string>): Promise<void> {
    const reports: Record<string, unknown> = {};
    for (const controller of Object.keys(this.options.controllers ?? {})) {
      const realized = this.realized(controller);
      const unrealized = this.unrealized(controller, mids[controller] ?? '0');
      reports[controller] = {
        performance: {
          realized_pnl_quote: new Float(Number(realized)),
          unrealized_pnl_quote: new Float(Number(unrealized)),
          unrealized_pnl_pct: new Float(0),
          realized_pnl_pct: new Float(0),
          global_pnl_quote: new Float(Number(plus(realized, unrealized))),
          global_pnl_pct: new Float(0),
          volume_traded: new Float(0),
          positions_summary: [],
          close_type_counts: { 'CloseType.TAKE_PROFIT': 1 },
        },
        custom_info: {},
      };
    }
    await this.publish('performance', ujson(reports));
  }

  /** `on_stop` of a v2 strategy: an empty report for each controller. */
  async strategyStopped(): Promise<void> {
    await this.publish('performance', ujson(Object.fromEntries(Object.keys(this.options.controllers ?? {}).map((id) => [id, {}]))));
  }
}

/** The columns of hummingbot 2.1's trades file: `TradeFill.attribute_names_for_file_export()` and `age`. */
export const TRADES_CSV_COLUMNS = [
  'exchange_trade_id',
  'config_file_path',
  'strategy',
  'market',
  'symbol',
  'base_asset',
  'quote_asset',
  'timestamp',
  'order_id',
  'trade_type',
  'order_type',
  'price',
  'amount',
  'leverage',
  'trade_fee',
  'trade_fee_in_quote',
  'position',
  'age',
];

/** A value as pandas' `to_csv` writes it: `str()`, quoted when it holds a comma, a quote or a line break. */
function csvValue(value: string): string {
  return /[",\n\r]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** A Python `str()` of a dict of strings, None and lists of dicts (the fee's `to_json()`). */
function pythonRepr(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (typeof value === 'string') return `'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
  if (Array.isArray(value)) return `[${value.map(pythonRepr).join(', ')}]`;
  if (typeof value === 'object')
    return `{${Object.entries(value)
      .map(([key, item]) => `${pythonRepr(key)}: ${pythonRepr(item)}`)
      .join(', ')}}`;
  return String(value);
}

/**
 * hummingbot 2.1's trades file of a strategy config (`data/trades_<config>.csv`): `append` writes a fill's row as
 * `MarketsRecorder.append_to_csv` does, moving the file to `…_old_<YYYYMMDD-HHMMSS>.csv` first when its header is not
 * `columns`.
 */
export class FakeTradesFile {
  private sequence = 0;
  readonly path: string;

  constructor(
    readonly dir: string,
    readonly config = 'conf_pmm_1.yml',
  ) {
    this.path = join(dir, `trades_${config.slice(0, -4)}.csv`);
  }

  append(input: FillInput & { decimals?: { price: string; amount: string } }, columns: readonly string[] = TRADES_CSV_COLUMNS): string {
    if (existsSync(this.path) && readFileSync(this.path, 'utf8').split('\n')[0] !== columns.join(',')) {
      const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
      renameSync(this.path, `${this.path.slice(0, -4)}_old_${stamp}.csv`);
    }
    if (!existsSync(this.path)) writeFileSync(this.path, `${columns.join(',')}\n`);
    this.sequence += 1;
    const [base, quote] = input.pair.split('-');
    const orderId = input.orderId ?? `${input.side === 'BUY' ? 'buy' : 'sell'}-${input.pair}-${input.at}${this.sequence}`;
    const price = input.decimals?.price ?? String(input.price);
    const amount = input.decimals?.amount ?? String(input.amount);
    const fee = feeJson(input.fee);
    const row: Record<string, string> = {
      exchange_trade_id: input.exchangeTradeId ?? `${7_000_000 + this.sequence}`,
      config_file_path: this.config,
      strategy: 'pure_market_making',
      market: 'binance_paper_trade',
      symbol: input.pair,
      base_asset: base,
      quote_asset: quote,
      timestamp: String(Math.round(input.at * 1000)),
      order_id: orderId,
      trade_type: input.side,
      order_type: input.orderType ?? 'LIMIT',
      price,
      amount,
      leverage: '1',
      trade_fee: pythonRepr(fee),
      trade_fee_in_quote: '0',
      position: input.position ?? 'NIL',
      age: orderId.includes('//') ? 'n/a' : '00:00:02',
    };
    appendFileSync(this.path, `${columns.map((column) => csvValue(row[column] ?? '')).join(',')}\n`);
    return orderId;
  }
}

/**
 * A market maker's session, as the tests tell it: from `t0` (whole seconds), a BTC-USDT position built by two buys,
 * reduced by a sell and closed by another, and an ETH-USDT one opened; fees in the quote, as a percent, in the base
 * and in another token (BNB: the bot needs its rate); then a performance report marking both pairs (controllers
 * `pmm_btc` and `pmm_eth`). The API's figures the tests expect are this session's.
 */
export async function marketMakerSession(bot: FakeHummingbot, t0: number) {
  const first = await bot.fill({
    pair: 'BTC-USDT',
    side: 'BUY',
    price: 60000,
    amount: 0.01,
    at: t0,
    fee: { flat: [{ token: 'USDT', amount: '0.6' }] },
  });
  const grow = await bot.fill({ pair: 'BTC-USDT', side: 'BUY', price: 61500, amount: 0.02, at: t0 + 60, fee: { percent: '0.001' } });
  const reduce = await bot.fill({
    pair: 'BTC-USDT',
    side: 'SELL',
    price: 62000,
    amount: 0.01,
    at: t0 + 120,
    fee: { flat: [{ token: 'USDT', amount: '0.62' }] },
  });
  const eth = await bot.fill({
    pair: 'ETH-USDT',
    side: 'BUY',
    price: 3000.5,
    amount: 0.5,
    at: t0 + 150,
    fee: { flat: [{ token: 'ETH', amount: '0.0005' }] },
  });
  const close = await bot.fill({
    pair: 'BTC-USDT',
    side: 'SELL',
    price: 60500,
    amount: 0.02,
    at: t0 + 180,
    fee: { flat: [{ token: 'BNB', amount: '0.002' }] },
  });
  await bot.performance({ pmm_btc: '60400', pmm_eth: '3010' });
  return { first, grow, reduce, eth, close };
}
