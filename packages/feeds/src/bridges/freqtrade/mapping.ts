/**
 * What a freqtrade bot's answers mean in this API's terms (pure: no I/O). Numbers arrive as JSON floats and are read
 * once, here, at the precision they carry (docs/operations.md, "Numbers from freqtrade"):
 *
 * - every float is first the decimal of 15 significant digits it stands for (decimalOfFloat: what a double carries;
 *   the noise of float arithmetic lies below, `0.30000000000000004` is 0.3);
 * - money (profits, balances, stake, fees) is then rounded half-even to freqtrade's own 8 places
 *   (`float(f"{profit_abs:.8f}")` in its trade model), trailing zeros dropped: `9.689999999999998` is `9.69`;
 * - amounts and prices are written at the exchange's precision freqtrade reports for the trade (`amount_precision`,
 *   `price_precision`, `precision_mode`): a tick of 0.01 gives two places (`61250.50`); a value that is not on that
 *   precision (an average entry price of several fills) keeps up to 8 places, at least the exchange's; a trade
 *   without precision keeps the 15 significant digits, trailing zeros dropped.
 *
 * Sums of these are exact (decimal strings), so no figure carries float artefacts.
 */
import {
  compareDecimals,
  decimalOfFloat,
  decimalScale,
  negateDecimal,
  padDecimal,
  placesForSignificant,
  roundDecimal,
  sumDecimals,
  trimDecimal,
  canonicalInstrument,
  type Fee,
  type Heartbeat,
  type Market,
  type Trade,
  type Writer,
} from '@trading-bot-api/writer';
import type { Balances, FreqtradeTrade, Health, ShowConfig } from './api';
import { MONEY_PLACES, moneyOf } from '../numbers';

/** ccxt's precision modes, as freqtrade reports them (`precision_mode`). */
const PRECISION_MODES = { DECIMAL_PLACES: 2, SIGNIFICANT_DIGITS: 3, TICK_SIZE: 4 } as const;

/** The places the exchange's precision gives `value` (a decimal), or undefined when the trade reports none. */
function precisionPlaces(value: string, precision: number | null | undefined, mode: number | null | undefined): number | undefined {
  if (precision === null || precision === undefined || !Number.isFinite(precision) || precision < 0) return undefined;
  if (mode === PRECISION_MODES.TICK_SIZE) return precision > 0 ? decimalScale(decimalOfFloat(precision)) : undefined;
  // ccxt counts places and digits in whole numbers (freqtrade: `int(amount_precision)`).
  if (mode === PRECISION_MODES.DECIMAL_PLACES) return Math.round(precision);
  if (mode === PRECISION_MODES.SIGNIFICANT_DIGITS) return precision >= 1 ? placesForSignificant(value, Math.round(precision)) : undefined;
  return undefined;
}

/** An amount or a price from a float, at the exchange's precision (see the module's comment). */
export function atPrecision(value: number, precision: number | null | undefined, mode: number | null | undefined): string {
  const exact = decimalOfFloat(value);
  const places = precisionPlaces(exact, precision, mode);
  if (places === undefined) return exact;
  const onGrid = roundDecimal(exact, places);
  if (compareDecimals(onGrid, exact) === 0) return padDecimal(onGrid, places);
  // Not on the exchange's precision (an average of several fills): freqtrade's 8 places, at least the exchange's.
  return padDecimal(trimDecimal(roundDecimal(exact, Math.max(places, MONEY_PLACES))), places);
}

/** freqtrade's `bot_name` when its config sets none: a fleet left at it would be a row of identical names. */
const DEFAULT_BOT_NAME = 'freqtrade';

/**
 * The account a bot is mirrored into: its currency and broker from its configuration; its name the operator's
 * (`--name`, a config's `"name"`), else the bot's `bot_name`, else (left at freqtrade's default) `freqtrade (ID)`.
 */
export function accountOf(id: string, config: ShowConfig, name?: string): Parameters<Writer['upsertAccount']>[0] {
  const own = config.bot_name?.trim();
  return {
    id,
    name: name || (own && own !== DEFAULT_BOT_NAME ? own : `${DEFAULT_BOT_NAME} (${id})`),
    currency: config.stake_currency.toUpperCase(),
    broker: config.exchange,
    environment: config.dry_run ? 'paper' : 'live',
  };
}

/**
 * The instrument of a freqtrade pair (ccxt's symbol) and the currency it settles in: `BTC/USDT` (spot, margin) is
 * `BTC_USDT`, settled in its quote; `SOL/USDT:USDT` (a perpetual swap, settled in USDT) is `SOL_USDT_PERP`; and
 * `BTC/USDT:USDT-261225` (a future expiring on 25 December 2026) is `BTC_USDT_20261225` (docs/operations.md,
 * "Futures").
 */
export function instrumentOf(pair: string): { instrument: string; settlement: string } {
  const match = /^([^/:]+)\/([^/:]+)(?::([^-]+)(?:-(\d{6}))?)?$/.exec(pair);
  const contract = match?.[3] === undefined ? '' : match[4] === undefined ? '_PERP' : `_20${match[4]}`;
  const instrument = match && canonicalInstrument(`${match[1]}_${match[2]}${contract}`);
  if (!match || !instrument)
    throw new TypeError(`pair ${JSON.stringify(pair)} is not of the form BASE/QUOTE, BASE/QUOTE:SETTLE or BASE/QUOTE:SETTLE-YYMMDD`);
  return { instrument, settlement: (match[3] ?? match[2]).toUpperCase() };
}

/**
 * The trade's id here: freqtrade's id and its open time (ms), since freqtrade numbers trades from 1 again after its
 * database is reset, and a new trade 3 must not be taken for the old one.
 */
export function tradeIdOf(trade: Pick<FreqtradeTrade, 'trade_id' | 'open_timestamp'>): string {
  return `ft-${trade.trade_id}-${trade.open_timestamp}`;
}

const iso = (ms: number) => new Date(ms).toISOString();
const finite = (value: number | null | undefined): value is number => value !== null && value !== undefined && Number.isFinite(value);
const money = (value: number | null | undefined) => (finite(value) ? moneyOf(value) : undefined);

/** freqtrade's trading modes (TradingMode), which are this API's markets. */
const MARKETS: readonly string[] = ['spot', 'margin', 'futures'];

/**
 * One side's fee as freqtrade learnt it: none when its cost is 0; unknown (undefined) without a cost. A cost without a
 * currency is freqtrade's own estimate (its fee rate × the stake, `recalc_trade_from_orders`): in the stake currency.
 */
function feeOf(cost: number | null | undefined, currency: string | null | undefined, stake: string, leg: Fee['leg']): Fee[] | undefined {
  if (!finite(cost)) return undefined;
  const amount = moneyOf(cost);
  return amount === '0' ? [] : [{ amount, currency: (currency || stake).toUpperCase(), leg }];
}

/**
 * A freqtrade trade as this API's Trade, or undefined when it has no position yet (its entry order has not filled:
 * freqtrade deletes such a trade when the order is cancelled, so it is not mirrored until it fills). `currency` is
 * the account's (freqtrade's stake currency), which a future must settle in.
 *
 * Open: units the current amount (it changes with added entries and partial exits), the average open rate, the
 * unrealized P&L (`profit_abs`), stop loss, liquidation price, funding so far and the entry's fee as marks. Closed: the
 * close rate and time, the realized P&L of the whole trade, fees, funding and partial exits included
 * (`close_profit_abs`), why it exited (`exit_reason`), and both sides' fees (unknown while either is). Every trade:
 * its market (`trading_mode`), leverage, side (`is_short`: `sell`) and the exchange's ids of its filled orders.
 */
export function tradeOf(accountId: string, trade: FreqtradeTrade, currency: string): Trade | undefined {
  if (trade.open_fill_timestamp === null || trade.open_fill_timestamp === undefined) return undefined;
  const priceMode = trade.precision_mode_price ?? trade.precision_mode;
  const price = (value: number) => atPrecision(value, trade.price_precision, priceMode);
  const { instrument, settlement } = instrumentOf(trade.pair);
  if (settlement !== currency)
    throw new TypeError(`${trade.pair} settles in ${settlement}, and the account is in ${currency} (an account has one currency)`);
  const market = (
    MARKETS.includes(trade.trading_mode ?? '') ? trade.trading_mode : trade.pair.includes(':') ? 'futures' : 'spot'
  ) as Market;
  const leverage = market === 'spot' ? '1' : finite(trade.leverage) ? trimDecimal(decimalOfFloat(trade.leverage)) : null;
  const orderIds = (trade.orders ?? [])
    .filter((order) => (order.filled ?? 0) > 0 && typeof order.order_id === 'string' && order.order_id !== '')
    .map((order) => order.order_id);
  const opening = feeOf(trade.fee_open_cost, trade.fee_open_currency, currency, 'open');
  const base = {
    id: tradeIdOf(trade),
    accountId,
    instrument,
    side: trade.is_short ? ('sell' as const) : ('buy' as const),
    units: atPrecision(trade.amount, trade.amount_precision, trade.precision_mode),
    openPrice: price(trade.open_rate),
    openTime: iso(trade.open_timestamp),
    stopLoss: finite(trade.stop_loss_abs) ? price(trade.stop_loss_abs) : null,
    takeProfit: null,
    currency,
    market,
    leverage,
    feeTotal: null,
    // freqtrade's sign is the trade's gain; a fee here is what the trade paid.
    fundingFees: market === 'futures' && finite(trade.funding_fees) ? moneyOf(-trade.funding_fees) : null,
    liquidationPrice:
      market !== 'spot' && finite(trade.liquidation_price) && trade.liquidation_price > 0 ? price(trade.liquidation_price) : null,
    orderIds: orderIds.length ? [...new Set(orderIds)] : null,
  };
  if (trade.is_open)
    return {
      ...base,
      status: 'open',
      unrealizedPL: money(trade.profit_abs) ?? '0',
      closePrice: null,
      closeTime: null,
      realizedPL: '0',
      closeReason: null,
      fees: opening ?? null,
    };
  if (!finite(trade.close_timestamp) || !finite(trade.close_rate)) return undefined;
  const closing = feeOf(trade.fee_close_cost, trade.fee_close_currency, currency, 'close');
  return {
    ...base,
    status: 'closed',
    unrealizedPL: '0',
    closePrice: price(trade.close_rate),
    closeTime: iso(trade.close_timestamp),
    realizedPL: money(trade.close_profit_abs ?? trade.profit_abs) ?? '0',
    closeReason: trade.exit_reason ? trade.exit_reason.slice(0, 500) : null,
    fees: opening && closing ? [...opening, ...closing] : null,
  };
}

/**
 * The balance from `/balance` and the open trades: NAV is what the bot manages (`total_bot`, its stake currency and
 * positions valued now), unrealized P&L the open trades' `profit_abs`, balance NAV less that; the margin used and
 * available are what freqtrade reports of the stake currency (`used`: in open orders, or the positions' collateral
 * in futures; `free`), or 0 when it lists no stake currency. Every figure is money (moneyOf).
 */
export function snapshotOf(balances: Balances, open: readonly FreqtradeTrade[], time: string) {
  const nav = moneyOf(balances.total_bot);
  const unrealizedPL = sumDecimals(['0', ...open.map((trade) => money(trade.profit_abs) ?? '0')]);
  const stake = balances.currencies?.find((entry) => entry.currency === balances.stake);
  return {
    balance: sumDecimals([nav, negateDecimal(unrealizedPL)]),
    unrealizedPL,
    nav,
    marginUsed: finite(stake?.used) ? moneyOf(stake.used) : '0',
    marginAvailable: finite(stake?.free) ? moneyOf(stake.free) : '0',
    time,
  };
}

/**
 * The bot's state: freqtrade's own (`running`, `stopped`; `paused` in newer releases, and `running` with
 * max_open_trades 0 after `/stopentry`), except that a running bot whose loop has not run for `stallSeconds` is in
 * `error`: its API answers but it does not trade.
 */
export function botStateOf(config: ShowConfig, health: Health, nowMs: number, stallSeconds: number): Omit<Heartbeat, 'time'> {
  const strategy = config.strategy ?? null;
  const state = String(config.state).toLowerCase();
  if (state === 'stopped') return { state: 'stopped', strategy, message: 'freqtrade is stopped' };
  if (state === 'paused') return { state: 'paused', strategy, message: 'freqtrade is paused: no new entries' };
  if (state !== 'running' && state !== 'reload_config')
    return { state: 'error', strategy, message: `freqtrade reports the state ${JSON.stringify(config.state)}` };
  const last = health.last_process_ts;
  if (state === 'running') {
    if (last === null || last === undefined)
      return { state: 'error', strategy, message: 'freqtrade is running but its loop has not run yet' };
    const ago = Math.floor(nowMs / 1000 - last);
    if (ago > stallSeconds)
      return { state: 'error', strategy, message: `freqtrade's loop last ran ${ago} s ago (at ${iso(last * 1000)}): stalled` };
  }
  if (state === 'reload_config') return { state: 'running', strategy, message: 'freqtrade is reloading its configuration' };
  if (Number(config.max_open_trades) === 0)
    return { state: 'paused', strategy, message: 'max_open_trades is 0 (stopentry): no new entries' };
  return { state: 'running', strategy, message: null };
}
