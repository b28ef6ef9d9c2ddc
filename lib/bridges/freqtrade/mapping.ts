/**
 * What a freqtrade bot's answers mean in this API's terms (pure: no I/O). Numbers arrive as JSON floats and become
 * the shortest decimal string that reads back as the same float (decimalOfFloat); sums of them are exact.
 */
import { decimalOfFloat, negateDecimal, sumDecimals } from '../../decimal';
import { canonicalInstrument } from '../../instruments';
import type { BotState, Trade } from '../../types';
import type { Balances, FreqtradeTrade, Health, ShowConfig } from './api';

/** The account a bot is mirrored into: its name, currency and broker from its configuration. */
export function accountOf(
  id: string,
  config: ShowConfig,
): { id: string; name: string; currency: string; broker: string; environment: 'live' | 'paper' } {
  return {
    id,
    name: config.bot_name || 'freqtrade',
    currency: config.stake_currency.toUpperCase(),
    broker: config.exchange,
    environment: config.dry_run ? 'paper' : 'live',
  };
}

/** `BTC/USDT` (spot) and `BTC/USDT:USDT` (futures, settled in USDT) are both `BTC_USDT`. */
export function instrumentOf(pair: string): string {
  const instrument = canonicalInstrument(pair.split(':')[0]);
  if (!instrument) throw new TypeError(`pair ${JSON.stringify(pair)} is not of the form BASE/QUOTE`);
  return instrument;
}

/**
 * The trade's id here: freqtrade's id and its open time (ms), since freqtrade numbers trades from 1 again after its
 * database is reset, and a new trade 3 must not be taken for the old one.
 */
export function tradeIdOf(trade: Pick<FreqtradeTrade, 'trade_id' | 'open_timestamp'>): string {
  return `ft-${trade.trade_id}-${trade.open_timestamp}`;
}

const iso = (ms: number) => new Date(ms).toISOString();
const decimal = (value: number | null | undefined) =>
  value === null || value === undefined || !Number.isFinite(value) ? undefined : decimalOfFloat(value);

/**
 * A freqtrade trade as this API's Trade, or undefined when it has no position yet (its entry order has not filled:
 * freqtrade deletes such a trade when the order is cancelled, so it is not mirrored until it fills).
 *
 * Open: units the current amount (it changes with added entries and partial exits), the average open rate, the
 * unrealized P&L (`profit_abs`) and stop loss as marks. Closed: the close rate and time, and the realized P&L of the
 * whole trade, fees and partial exits included (`close_profit_abs`).
 */
export function tradeOf(accountId: string, trade: FreqtradeTrade): Trade | undefined {
  if (trade.open_fill_timestamp === null || trade.open_fill_timestamp === undefined) return undefined;
  const base = {
    id: tradeIdOf(trade),
    accountId,
    instrument: instrumentOf(trade.pair),
    side: trade.is_short ? ('sell' as const) : ('buy' as const),
    units: decimalOfFloat(trade.amount),
    openPrice: decimalOfFloat(trade.open_rate),
    openTime: iso(trade.open_timestamp),
    stopLoss: decimal(trade.stop_loss_abs) ?? null,
    takeProfit: null,
  };
  if (trade.is_open)
    return { ...base, status: 'open', unrealizedPL: decimal(trade.profit_abs) ?? '0', closePrice: null, closeTime: null, realizedPL: '0' };
  if (trade.close_timestamp === null || trade.close_timestamp === undefined || trade.close_rate === null || trade.close_rate === undefined)
    return undefined;
  return {
    ...base,
    status: 'closed',
    unrealizedPL: '0',
    closePrice: decimalOfFloat(trade.close_rate),
    closeTime: iso(trade.close_timestamp),
    realizedPL: decimal(trade.close_profit_abs ?? trade.profit_abs) ?? '0',
  };
}

/**
 * The balance from `/balance` and the open trades: NAV is what the bot manages (`total_bot`, its stake currency and
 * positions valued now), unrealized P&L the open trades' `profit_abs`, balance NAV less that; the margin used is the
 * stake in open trades, the rest of NAV available.
 */
export function snapshotOf(balances: Balances, open: readonly FreqtradeTrade[], time: string) {
  const nav = decimalOfFloat(balances.total_bot);
  const unrealizedPL = sumDecimals(['0', ...open.map((trade) => decimal(trade.profit_abs) ?? '0')]);
  const marginUsed = sumDecimals(['0', ...open.map((trade) => decimalOfFloat(trade.stake_amount))]);
  return {
    balance: sumDecimals([nav, negateDecimal(unrealizedPL)]),
    unrealizedPL,
    nav,
    marginUsed,
    marginAvailable: sumDecimals([nav, negateDecimal(marginUsed)]),
    time,
  };
}

/**
 * The bot's state: freqtrade's own (`running`, `stopped`; `paused` in newer releases, and `running` with
 * max_open_trades 0 after `/stopentry`), except that a running bot whose loop has not run for `stallSeconds` is in
 * `error`: its API answers but it does not trade.
 */
export function botStateOf(
  config: ShowConfig,
  health: Health,
  nowMs: number,
  stallSeconds: number,
): { state: BotState; strategy: string | null; message: string | null } {
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
