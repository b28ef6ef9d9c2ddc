/**
 * A fake freqtrade bot's REST API for the bridge's tests, answering as freqtrade does (freqtrade/rpc/api_server,
 * api_v1.py and api_schemas.py, and persistence/trade_model.py's `to_json`, at c9ae5e1, October 2024): the same
 * routes under /api/v1, HTTP Basic auth with a 401 `{"detail":"Unauthorized"}`, every field of ShowConfig,
 * TradeSchema / OpenTradeSchema (exactly their fields, in their order, as FastAPI's response models write them:
 * `to_json`'s others are dropped) with their OrderSchema orders, and Balances with freqtrade's names, dates as
 * "%Y-%m-%d %H:%M:%S" beside millisecond timestamps, closed trades in `/trades` by id, `/status` an empty list when
 * nothing is open, and floats written as Python writes them (`1e-05`, `0.30000000000000004`).
 *
 * A trade carries what freqtrade records of it: each side's fee as the exchange charged it (`Trade.update_fee`: its
 * cost and currency, which may be BNB or the base), its trading mode, leverage, liquidation price and funding fees
 * (a future's; freqtrade's sign: positive gained), why it exited, and its orders, filled or open
 * (`select_filled_or_open_orders`).
 *
 * The test drives the bot: trades open (filled or not), change, close; the state, the loop's last run and the
 * balance change; the database is reset (ids from 1 again); the server goes away and comes back on the same port.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A fee as freqtrade records one side's (`fee_open_cost`/`fee_open_currency`, or the close's). */
export interface FakeFee {
  cost: number | null;
  currency: string | null;
}

/** An order of a trade, as freqtrade keeps it (Order): what OrderSchema shows of it. */
export interface FakeOrder {
  order_id: string;
  side: 'buy' | 'sell';
  amount: number;
  filled: number;
  price: number;
  at: number;
  filled_at: number | null;
}

export interface FakeTrade {
  trade_id: number;
  pair: string;
  is_short: boolean;
  is_open: boolean;
  amount: number;
  stake_amount: number;
  open_rate: number;
  open_timestamp: number;
  open_fill_timestamp: number | null;
  current_rate: number;
  profit_abs: number;
  stop_loss_abs: number;
  realized_profit: number;
  close_rate: number | null;
  close_timestamp: number | null;
  close_profit_abs: number | null;
  /** The exchange's precision, as ccxt gives it (null: a trade from before freqtrade kept it). */
  amount_precision: number | null;
  price_precision: number | null;
  precision_mode: number | null;
  trading_mode: 'spot' | 'margin' | 'futures';
  leverage: number;
  liquidation_price: number | null;
  /** freqtrade's sign: positive, the trade gained; negative, it paid. */
  funding_fees: number;
  fee_open: FakeFee;
  fee_close: FakeFee;
  exit_reason: string | null;
  orders: FakeOrder[];
}

/** Binance spot's precision of BTC/USDT as ccxt 4 reports it (TICK_SIZE mode): 0.00001 BTC, 0.01 USDT. */
const TICK_PRECISION = { amount_precision: 1e-5, price_precision: 0.01, precision_mode: 4 } as const;

/** Python's repr of a float: the shortest round-trip digits, with an exponent below 1e-4 and from 1e16 on. */
export function pythonFloat(value: number): string {
  if (Number.isInteger(value) && Math.abs(value) < 1e16) return `${value}.0`;
  const [mantissa, exponent = '0'] = value.toExponential().split('e');
  const power = Number(exponent);
  if (power < -4 || power >= 16) return `${mantissa}e${power < 0 ? '-' : '+'}${String(Math.abs(power)).padStart(2, '0')}`;
  return String(value);
}

/** JSON as Python's json module writes it: floats (marked by the caller) in repr form. */
function pythonJson(value: unknown, floats: ReadonlySet<string>, key = ''): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'number') return floats.has(key) ? pythonFloat(value) : String(value);
  if (Array.isArray(value)) return `[${value.map((item) => pythonJson(item, floats, key)).join(', ')}]`;
  if (typeof value === 'object')
    return `{${Object.entries(value)
      .map(([name, item]) => `${JSON.stringify(name)}: ${pythonJson(item, floats, name)}`)
      .join(', ')}}`;
  return JSON.stringify(value);
}

/** The float fields of freqtrade's schemas (the rest of the numbers are ints). */
const FLOATS = new Set([
  'amount',
  'amount_requested',
  'stake_amount',
  'max_stake_amount',
  'fee_open',
  'fee_open_cost',
  'fee_close',
  'fee_close_cost',
  'open_rate',
  'open_rate_requested',
  'open_trade_value',
  'close_rate',
  'close_rate_requested',
  'close_profit',
  'close_profit_pct',
  'close_profit_abs',
  'profit_ratio',
  'profit_pct',
  'profit_abs',
  'profit_fiat',
  'realized_profit',
  'realized_profit_ratio',
  'stop_loss_abs',
  'stop_loss_ratio',
  'stop_loss_pct',
  'initial_stop_loss_abs',
  'initial_stop_loss_ratio',
  'initial_stop_loss_pct',
  'min_rate',
  'max_rate',
  'leverage',
  'interest_rate',
  'liquidation_price',
  'funding_fees',
  'amount_precision',
  'price_precision',
  'stoploss_current_dist',
  'stoploss_current_dist_pct',
  'stoploss_current_dist_ratio',
  'stoploss_entry_dist',
  'stoploss_entry_dist_ratio',
  'current_rate',
  'total_profit_abs',
  'total_profit_fiat',
  'total_profit_ratio',
  'free',
  'balance',
  'used',
  'bot_owned',
  'est_stake',
  'est_stake_bot',
  'position',
  'total',
  'total_bot',
  'value',
  'value_bot',
  'starting_capital',
  'starting_capital_ratio',
  'starting_capital_pct',
  'starting_capital_fiat',
  'starting_capital_fiat_ratio',
  'starting_capital_fiat_pct',
  'api_version',
  'available_capital',
  'stoploss',
  // OrderSchema's
  'remaining',
  'safe_price',
  'cost',
  'filled',
  'ft_fee_base',
]);

const printed = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString().slice(0, 19).replace('T', ' '));

export class FakeFreqtrade {
  state: 'running' | 'stopped' | 'reload_config' | 'paused' = 'running';
  maxOpenTrades: number | 'inf' = 3;
  /** When the bot's loop last ran (ms); `undefined`: just now, at every request. */
  lastProcessMs: number | undefined;
  totalBot = 1000;
  /** The dry-run wallet's starting capital (`dry_run_wallet`): what the stake currency's free and used derive from. */
  startingCapital = 1000;
  /** How far the bot's clock is ahead of the machine's (its `Date` header, and what a test dates its trades with). */
  clockAheadMs = 0;
  dryRun = true;
  botName = 'ft-test';
  /** The bot's trading mode (`show_config`): a futures bot trades pairs with a settlement, `SOL/USDT:USDT`. */
  tradingMode: 'spot' | 'futures' = 'spot';
  readonly requests: string[] = [];
  private trades: FakeTrade[] = [];
  private nextId = 1;
  /** The exchange's order ids, numbered as Binance's are. */
  private nextOrderId = 8_389_765_504;
  private server?: Server;
  private port = 0;

  constructor(
    readonly username = 'freqtrader',
    readonly password = 'SuperSecret1!',
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<this> {
    const server = createServer((req, res) => {
      this.requests.push(`${req.method} ${req.url}`);
      const { status, body } = this.answer(req.url ?? '/', req.headers.authorization);
      // uvicorn dates every answer with the bot's own clock.
      res.sendDate = false;
      res.writeHead(status, {
        'content-type': 'application/json',
        date: new Date(Date.now() + this.clockAheadMs).toUTCString(),
        ...(status === 401 ? { 'www-authenticate': 'Basic' } : {}),
      });
      res.end(body);
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
    return this;
  }

  /** Gone: connections refused until start() again (on the same port). */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  }

  /**
   * A trade entered: filled at once unless `filled` is false (its entry order still open); with Binance's tick
   * precision unless `precision` says otherwise (null fields: a trade older than freqtrade's precision columns). A
   * pair with a settlement (`SOL/USDT:USDT`) is a future (`trading_mode` futures) unless `mode` says otherwise; its
   * entry's fee is the dry run's (0.1 % of the stake, in the quote) unless `fee` gives the exchange's.
   */
  open(trade: {
    pair: string;
    short?: boolean;
    amount: number;
    rate: number;
    stake?: number;
    at: number;
    filled?: boolean;
    precision?: Pick<FakeTrade, 'amount_precision' | 'price_precision' | 'precision_mode'>;
    mode?: FakeTrade['trading_mode'];
    leverage?: number;
    liquidation?: number;
    fee?: FakeFee;
  }): number {
    const id = this.nextId++;
    const stake = trade.stake ?? trade.amount * trade.rate;
    const filled = trade.filled !== false;
    const quote = trade.pair.split('/')[1].split(':')[0];
    this.trades.push({
      trade_id: id,
      pair: trade.pair,
      is_short: trade.short ?? false,
      is_open: true,
      amount: trade.amount,
      stake_amount: stake,
      open_rate: trade.rate,
      open_timestamp: trade.at,
      open_fill_timestamp: trade.filled === false ? null : trade.at,
      current_rate: trade.rate,
      profit_abs: 0,
      stop_loss_abs: trade.rate * (trade.short ? 1.1 : 0.9),
      realized_profit: 0,
      close_rate: null,
      close_timestamp: null,
      close_profit_abs: null,
      ...(trade.precision ?? TICK_PRECISION),
      trading_mode: trade.mode ?? (trade.pair.includes(':') ? 'futures' : 'spot'),
      leverage: trade.leverage ?? 1,
      liquidation_price: trade.liquidation ?? null,
      funding_fees: 0,
      // The dry run charges its fee on the quote (exchange.py, _dry_order's `fee`); a live exchange says its own.
      fee_open: filled ? (trade.fee ?? { cost: stake * 0.001, currency: quote }) : { cost: null, currency: null },
      fee_close: { cost: null, currency: null },
      exit_reason: null,
      orders: [this.order(trade.short ? 'sell' : 'buy', trade.amount, trade.rate, trade.at, filled)],
    });
    return id;
  }

  private order(side: 'buy' | 'sell', amount: number, price: number, at: number, filled: boolean): FakeOrder {
    return { order_id: String(this.nextOrderId++), side, amount, filled: filled ? amount : 0, price, at, filled_at: filled ? at : null };
  }

  update(
    id: number,
    change: Partial<
      Pick<
        FakeTrade,
        | 'amount'
        | 'open_rate'
        | 'current_rate'
        | 'profit_abs'
        | 'stop_loss_abs'
        | 'realized_profit'
        | 'open_fill_timestamp'
        | 'stake_amount'
        | 'funding_fees'
        | 'liquidation_price'
      >
    >,
  ): void {
    const trade = this.get(id);
    // An entry that fills now: its order fills, and freqtrade learns its fee.
    if (change.open_fill_timestamp && trade.open_fill_timestamp === null) {
      Object.assign(trade.orders[0], { filled: trade.orders[0].amount, filled_at: change.open_fill_timestamp });
      trade.fee_open = { cost: trade.stake_amount * 0.001, currency: trade.pair.split('/')[1].split(':')[0] };
    }
    Object.assign(trade, change);
  }

  /**
   * The exit fills: at `rate`, `profit` being freqtrade's close_profit_abs (net of both fees and a future's funding),
   * for `reason` (default `roi`), its fee the dry run's (0.1 % of the exit's value, in the quote) unless `fee` gives
   * the exchange's.
   */
  close(id: number, close: { rate: number; at: number; profit: number; reason?: string; fee?: FakeFee }): void {
    const trade = this.get(id);
    Object.assign(trade, {
      is_open: false,
      close_rate: close.rate,
      close_timestamp: close.at,
      close_profit_abs: close.profit,
      profit_abs: close.profit,
      current_rate: close.rate,
      exit_reason: close.reason ?? 'roi',
      fee_close: close.fee ?? { cost: trade.amount * close.rate * 0.001, currency: trade.pair.split('/')[1].split(':')[0] },
    });
    trade.orders.push(this.order(trade.is_short ? 'buy' : 'sell', trade.amount, close.rate, close.at, true));
  }

  /** Deleted, as freqtrade deletes a trade whose entry order was cancelled before it filled. */
  remove(id: number): void {
    this.trades = this.trades.filter((trade) => trade.trade_id !== id);
  }

  /** A new database: no trades, ids from 1 again. */
  resetDatabase(): void {
    this.trades = [];
    this.nextId = 1;
  }

  private get(id: number): FakeTrade {
    const trade = this.trades.find((candidate) => candidate.trade_id === id);
    if (!trade) throw new Error(`the fake has no trade ${id}`);
    return trade;
  }

  private answer(url: string, authorization: string | undefined): { status: number; body: string } {
    const expected = `Basic ${Buffer.from(`${this.username}:${this.password}`).toString('base64')}`;
    if (authorization !== expected) return { status: 401, body: '{"detail": "Unauthorized"}' };
    const { pathname, searchParams } = new URL(url, 'http://fake');
    const json = (value: unknown, status = 200) => ({ status, body: pythonJson(value, FLOATS) });
    const open = this.trades.filter((trade) => trade.is_open);
    switch (true) {
      case pathname === '/api/v1/show_config':
        return json(this.showConfig());
      case pathname === '/api/v1/health':
        return json(this.health());
      case pathname === '/api/v1/status':
        return json(open.map((trade) => this.openTradeJson(trade)));
      case pathname === '/api/v1/trades': {
        const limit = Number(searchParams.get('limit') ?? 500);
        const offset = Number(searchParams.get('offset') ?? 0);
        const closed = this.trades.filter((trade) => !trade.is_open).sort((a, b) => a.trade_id - b.trade_id);
        const page = closed.slice(offset, offset + limit).map((trade) => this.tradeJson(trade));
        return json({ trades: page, trades_count: page.length, offset, total_trades: closed.length });
      }
      case /^\/api\/v1\/trade\/\d+$/.test(pathname): {
        const trade = this.trades.find((candidate) => candidate.trade_id === Number(pathname.split('/').pop()));
        return trade ? json(this.openTradeJson(trade)) : json({ detail: 'Trade not found.' }, 404);
      }
      case pathname === '/api/v1/balance':
        return json(this.balance(open));
      default:
        return json({ detail: 'Not Found' }, 404);
    }
  }

  private showConfig() {
    return {
      version: '2024.10',
      strategy_version: null,
      api_version: 2.34,
      dry_run: this.dryRun,
      trading_mode: this.tradingMode,
      short_allowed: false,
      stake_currency: 'USDT',
      stake_amount: 'unlimited',
      available_capital: null,
      stake_currency_decimals: 3,
      max_open_trades: this.maxOpenTrades,
      minimal_roi: { '0': 0.04 },
      stoploss: -0.1,
      stoploss_on_exchange: false,
      trailing_stop: false,
      trailing_stop_positive: null,
      trailing_stop_positive_offset: 0.0,
      trailing_only_offset_is_reached: false,
      unfilledtimeout: { entry: 10, exit: 10, unit: 'minutes', exit_timeout_count: 0 },
      order_types: { entry: 'limit', exit: 'limit', stoploss: 'market', stoploss_on_exchange: false },
      use_custom_stoploss: false,
      timeframe: '5m',
      timeframe_ms: 300000,
      timeframe_min: 5,
      exchange: 'binance',
      strategy: 'SampleStrategy',
      force_entry_enable: false,
      exit_pricing: { price_side: 'same' },
      entry_pricing: { price_side: 'same' },
      bot_name: this.botName,
      state: this.state,
      runmode: this.dryRun ? 'dry_run' : 'live',
      position_adjustment_enable: true,
      max_entry_position_adjustment: -1,
    };
  }

  private health() {
    const last = this.lastProcessMs ?? Date.now();
    const started = Date.now() - 3_600_000;
    return {
      last_process: `${printed(last)}+00:00`,
      last_process_loc: printed(last),
      last_process_ts: Math.floor(last / 1000),
      bot_start: `${printed(started)}+00:00`,
      bot_start_loc: printed(started),
      bot_start_ts: Math.floor(started / 1000),
      bot_startup: `${printed(started)}+00:00`,
      bot_startup_loc: printed(started),
      bot_startup_ts: Math.floor(started / 1000),
    };
  }

  /**
   * As freqtrade's dry-run wallet keeps spot balances (wallets.py, `_update_dry`): the stake currency's free is the
   * starting capital with the closed trades' profits, less the stake of the open trades; its used is the stake of
   * entry orders not filled yet; each open position's base currency is a balance of its own. Sums are float sums, as
   * Python makes them (with their noise).
   */
  private balance(open: FakeTrade[]) {
    const closedProfit = this.trades.filter((trade) => !trade.is_open).reduce((sum, trade) => sum + (trade.close_profit_abs ?? 0), 0);
    const inTrades = open.reduce((sum, trade) => sum + trade.stake_amount, 0);
    const unfilled = open.filter((trade) => trade.open_fill_timestamp === null).reduce((sum, trade) => sum + trade.stake_amount, 0);
    const free = this.startingCapital + closedProfit - inTrades;
    const entry = (currency: string, amount: number, used: number, estimate: number) => ({
      currency,
      free: amount - used,
      balance: amount,
      used,
      bot_owned: amount,
      est_stake: estimate,
      est_stake_bot: estimate,
      stake: 'USDT',
      side: 'long',
      is_position: false,
      position: 0.0,
      is_bot_managed: true,
    });
    return {
      currencies: [
        entry('USDT', free + unfilled, unfilled, free + unfilled),
        ...open
          .filter((trade) => trade.open_fill_timestamp !== null)
          .map((trade) => entry(trade.pair.split('/')[0], trade.amount, 0, trade.amount * trade.current_rate)),
      ],
      total: this.totalBot,
      total_bot: this.totalBot,
      symbol: 'USD',
      value: this.totalBot,
      value_bot: this.totalBot,
      stake: 'USDT',
      note: 'Simulated balances',
      starting_capital: 1000.0,
      starting_capital_ratio: this.totalBot / 1000 - 1,
      starting_capital_pct: (this.totalBot / 1000 - 1) * 100,
      starting_capital_fiat: 1000.0,
      starting_capital_fiat_ratio: this.totalBot / 1000 - 1,
      starting_capital_fiat_pct: (this.totalBot / 1000 - 1) * 100,
    };
  }

  /**
   * OrderSchema, as `Order.to_json()` fills it (`select_filled_or_open_orders`: a cancelled order that filled nothing is
   * not listed).
   */
  private orderJson(trade: FakeTrade, order: FakeOrder) {
    const open = order.filled_at === null;
    return {
      pair: trade.pair,
      order_id: order.order_id,
      status: open ? 'open' : 'closed',
      remaining: order.amount - order.filled,
      amount: order.amount,
      safe_price: order.price,
      cost: order.filled * order.price,
      filled: order.filled,
      ft_order_side: order.side,
      order_type: 'limit',
      is_open: open,
      order_timestamp: order.at,
      order_filled_timestamp: order.filled_at,
      ft_fee_base: null,
      ft_order_tag: null,
    };
  }

  /** TradeSchema, as `Trade.to_json()` fills it: the schema's fields, in its order. */
  private tradeJson(trade: FakeTrade) {
    const [base, quoteAndSettle] = trade.pair.split('/');
    const closed = !trade.is_open;
    return {
      trade_id: trade.trade_id,
      pair: trade.pair,
      base_currency: base,
      quote_currency: quoteAndSettle.split(':')[0],
      is_open: trade.is_open,
      is_short: trade.is_short,
      exchange: 'binance',
      amount: trade.amount,
      amount_requested: trade.amount,
      stake_amount: trade.stake_amount,
      max_stake_amount: trade.stake_amount,
      strategy: 'SampleStrategy',
      enter_tag: null,
      timeframe: 5,
      fee_open: 0.001,
      fee_open_cost: trade.fee_open.cost,
      fee_open_currency: trade.fee_open.currency,
      fee_close: 0.001,
      fee_close_cost: trade.fee_close.cost,
      fee_close_currency: trade.fee_close.currency,
      open_date: printed(trade.open_timestamp),
      open_timestamp: trade.open_timestamp,
      open_fill_date: printed(trade.open_fill_timestamp),
      open_fill_timestamp: trade.open_fill_timestamp,
      open_rate: trade.open_rate,
      open_rate_requested: trade.open_rate,
      open_trade_value: trade.stake_amount * 1.001,
      close_date: printed(trade.close_timestamp),
      close_timestamp: trade.close_timestamp,
      close_rate: trade.close_rate,
      close_rate_requested: trade.close_rate,
      close_profit: closed ? trade.close_profit_abs! / trade.stake_amount : null,
      close_profit_pct: closed ? (trade.close_profit_abs! / trade.stake_amount) * 100 : null,
      close_profit_abs: trade.close_profit_abs,
      profit_ratio: closed ? trade.close_profit_abs! / trade.stake_amount : null,
      profit_pct: closed ? (trade.close_profit_abs! / trade.stake_amount) * 100 : null,
      profit_abs: closed ? trade.close_profit_abs : null,
      profit_fiat: null,
      realized_profit: closed ? trade.close_profit_abs! : trade.realized_profit,
      realized_profit_ratio: null,
      exit_reason: trade.exit_reason,
      exit_order_status: closed ? 'closed' : null,
      stop_loss_abs: trade.stop_loss_abs,
      stop_loss_ratio: -0.1,
      stop_loss_pct: -10.0,
      stoploss_last_update: printed(trade.open_timestamp),
      stoploss_last_update_timestamp: trade.open_timestamp,
      initial_stop_loss_abs: trade.stop_loss_abs,
      initial_stop_loss_ratio: -0.1,
      initial_stop_loss_pct: -10.0,
      min_rate: trade.open_rate,
      max_rate: trade.open_rate,
      has_open_orders: trade.orders.some((order) => order.filled_at === null),
      orders: trade.orders.filter((order) => order.filled > 0 || order.filled_at === null).map((order) => this.orderJson(trade, order)),
      leverage: trade.leverage,
      interest_rate: 0.0,
      liquidation_price: trade.liquidation_price,
      funding_fees: trade.funding_fees,
      trading_mode: trade.trading_mode,
      amount_precision: trade.amount_precision,
      price_precision: trade.price_precision,
      precision_mode: trade.precision_mode,
    };
  }

  /** OpenTradeSchema, as `_rpc_trade_status` fills it (for a closed trade, its close figures). */
  private openTradeJson(trade: FakeTrade) {
    const profit = trade.is_open ? trade.profit_abs : trade.close_profit_abs!;
    return {
      ...this.tradeJson(trade),
      close_profit: trade.is_open ? null : profit / trade.stake_amount,
      current_rate: trade.current_rate,
      profit_ratio: profit / trade.stake_amount,
      profit_pct: Math.round((profit / trade.stake_amount) * 10000) / 100,
      profit_abs: profit,
      profit_fiat: null,
      total_profit_abs: profit + trade.realized_profit,
      total_profit_fiat: null,
      total_profit_ratio: null,
      stoploss_current_dist: trade.stop_loss_abs - trade.current_rate,
      stoploss_current_dist_pct: -10.0,
      stoploss_current_dist_ratio: (trade.stop_loss_abs - trade.current_rate) / trade.current_rate,
      stoploss_entry_dist: -1.0,
      stoploss_entry_dist_ratio: -0.1,
    };
  }
}
