/**
 * What hummingbot publishes over MQTT, read into typed messages (pure: no I/O). The topics and payloads are
 * hummingbot's own (hummingbot/remote_iface/mqtt.py and messages.py; the v2 strategies' `performance` topic in
 * strategy/strategy_v2_base.py and scripts/v2_with_controllers.py):
 *
 * - `<namespace>/<instance_id>/hb`: `{"ts": <µs>}` every 10 s while hummingbot's MQTT bridge runs;
 * - `…/status_updates`: `{"timestamp": <ms>, "type": "availability", "msg": "online" | "offline"}`;
 * - `…/log`: `{"timestamp": <s, float>, "msg", "level_no", "level_name", "logger_name"}`;
 * - `…/events`: `{"timestamp": <whole s>, "type": "OrderFilled" | …, "data": {…}}`, the event's fields with Decimals
 *   as floats, enums as `str()` (`"TradeType.BUY"`) and the fee as its `to_json()` (amounts as strings);
 * - `…/performance`: `{<controller_id>: {"performance": {…PerformanceReport, Decimals as floats}, "custom_info": {…}}}`
 *   every second, and `{<controller_id>: {}}` for each controller once the strategy stopped;
 * - `…/notify`, the commands (`…/start`, `…/stop`, …) and external events: nothing to mirror.
 *
 * An instance id with dots is published by hummingbot-api under `/` (`hbot/a/b/hb` is instance `a.b`), so the levels
 * between the namespace and the channel are the instance id, joined with dots.
 *
 * A payload this module cannot read is a `Malformed`: its `kind` (what is wrong, without the figures, so a bot that
 * sends the same fault every second is told once) and `text` (what to say).
 */
import { decimalOfFloat } from '@trading-bot-api/writer';
import { pythonDecimal } from '../numbers';
import type { Fee, Fill } from '../positions';

/** Channels whose messages are mirrored. */
type Channel = 'hb' | 'status_updates' | 'log' | 'events' | 'performance';

/** hummingbot's command topics (`…/balance/limit` and `…/balance/paper` have two levels), and its notifications. */
const QUIET_CHANNELS = new Set(['notify', 'start', 'stop', 'config', 'import', 'status', 'history']);
const CHANNELS = new Set<string>(['hb', 'status_updates', 'log', 'events', 'performance']);

export interface Topic {
  /** The instance id, levels joined with dots. */
  instance: string;
  channel: Channel;
}

/**
 * The instance and channel of a topic under `namespace`; `quiet` for topics hummingbot uses that carry nothing to
 * mirror (commands, notifications, external events), `unknown` for others (with the part after the namespace).
 */
export function topicOf(topic: string, namespace: string): Topic | { quiet: true } | { unknown: string } {
  if (!topic.startsWith(`${namespace}/`)) return { unknown: topic };
  const levels = topic.slice(namespace.length + 1).split('/');
  const external = levels.indexOf('external');
  if (external > 0 && levels[external + 1] === 'event') return { quiet: true };
  const last = levels.at(-1)!;
  if (levels.length >= 3 && levels.at(-2) === 'balance' && (last === 'limit' || last === 'paper')) return { quiet: true };
  if (levels.length < 2 || levels.slice(0, -1).some((level) => level === '')) return { unknown: levels.join('/') };
  if (QUIET_CHANNELS.has(last)) return { quiet: true };
  if (!CHANNELS.has(last)) return { unknown: levels.join('/') };
  return { instance: levels.slice(0, -1).join('.'), channel: last as Channel };
}

export class Malformed extends Error {
  constructor(
    readonly kind: string,
    text: string,
  ) {
    super(text);
  }
}

type Json = Record<string, unknown>;

/** A field of `where` that is not what it must be: named plainly in the kind, quoted in the text, with what was sent. */
const malformed = (where: string, name: string, what: string, sent?: string) =>
  new Malformed(`${where} with ${name} ${what}`, `${where} with "${name}" ${what}${sent === undefined ? '' : `: ${sent}`}`);

/** The payload as JSON (an object), or Malformed. */
export function jsonOf(payload: Buffer | string, channel: string): Json {
  let value: unknown;
  try {
    value = JSON.parse(payload.toString());
  } catch {
    throw new Malformed(`${channel}: not JSON`, 'not JSON');
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Malformed(`${channel}: not an object`, 'not a JSON object');
  return value as Json;
}

function field<T>(object: Json, name: string, where: string, test: (value: unknown) => value is T, what: string): T {
  const value = object[name];
  if (value === undefined || value === null) throw new Malformed(`${where} without ${name}`, `${where} without "${name}"`);
  if (!test(value)) throw malformed(where, name, `not ${what}`, JSON.stringify(value));
  return value;
}

const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
const isText = (value: unknown): value is string => typeof value === 'string' && value !== '';
const isObject = (value: unknown): value is Json => !!value && typeof value === 'object' && !Array.isArray(value);
/** An id hummingbot sends as a string; an exchange's numeric trade id may come as a number. */
const isId = (value: unknown): value is string | number => isText(value) || (typeof value === 'number' && Number.isSafeInteger(value));

/** A heartbeat: hummingbot's clock, in ms. */
export function heartbeatOf(json: Json): { atMs: number } {
  return { atMs: field(json, 'ts', 'hb', isNumber, 'a number') / 1000 };
}

export type StatusUpdate = { availability: 'online' | 'offline' } | { other: string };

export function statusUpdateOf(json: Json): StatusUpdate {
  const type = typeof json.type === 'string' ? json.type : '';
  const msg = typeof json.msg === 'string' ? json.msg : '';
  if (type === 'availability' && (msg === 'online' || msg === 'offline')) return { availability: msg };
  return { other: `${type || 'untyped'} ${JSON.stringify(msg).slice(0, 60)}` };
}

/** A log record; `error` when its level is ERROR or above (CRITICAL). */
export function logOf(json: Json): { error: boolean; message: string } {
  const message = typeof json.msg === 'string' ? json.msg : '';
  const level = typeof json.level_no === 'number' ? json.level_no : undefined;
  const name = typeof json.level_name === 'string' ? json.level_name.toUpperCase() : '';
  return { error: (level !== undefined && level >= 40) || name === 'ERROR' || name === 'CRITICAL', message };
}

/** Known events that carry nothing this API keeps (orders placed, completed, cancelled, failed). */
const QUIET_EVENTS = new Set([
  'BuyOrderCreated',
  'SellOrderCreated',
  'BuyOrderCompleted',
  'SellOrderCompleted',
  'OrderCancelled',
  'OrderExpired',
  'OrderFailure',
]);

/** `BTC-USDT` as its base and quote, or undefined. */
export function pairOf(pair: string): { base: string; quote: string } | undefined {
  const parts = pair.split('-');
  return parts.length === 2 && parts[0] && parts[1] ? { base: parts[0], quote: parts[1] } : undefined;
}

/** hummingbot's `leverage` (an int; missing, 1), as a decimal string; undefined when it is no whole number above 0. */
export function leverageOf(value: unknown): string | undefined {
  if (value === undefined || value === null || value === '') return '1';
  const number = typeof value === 'number' ? value : Number(value);
  return Number.isSafeInteger(number) && number > 0 ? String(number) : undefined;
}

/**
 * What every source of fills sends alike (OrderFilled's data, a row of the trades CSV), read: the pair (`BTC-USDT`, in
 * the field `pairField`), the side (`TradeType.BUY` over MQTT, `str()` of the enum; `BUY` in the CSV, its `.name`),
 * the position action (`OPEN`, `CLOSE`, `NIL` or `PositionAction.OPEN`; missing is `NIL`) and the leverage; Malformed,
 * named by `where`, when one cannot be read.
 */
export function fillPartsOf(
  where: string,
  pairField: string,
  sent: { pair: string; side: string; position: unknown; leverage: unknown },
): Pick<Fill, 'pair' | 'base' | 'quote' | 'side' | 'position' | 'leverage'> {
  const parts = pairOf(sent.pair);
  if (!parts) throw malformed(where, pairField, 'not BASE-QUOTE', JSON.stringify(sent.pair));
  const side = sent.side.replace(/^TradeType\./, '').toUpperCase();
  if (side !== 'BUY' && side !== 'SELL')
    throw new Malformed(
      `${where} with trade_type ${sent.side}`,
      `${where} with "trade_type" ${JSON.stringify(sent.side)}, neither BUY nor SELL`,
    );
  const action = sent.position === undefined || sent.position === null || sent.position === '' ? 'NIL' : String(sent.position);
  const position = action.replace(/^PositionAction\./, '').toUpperCase();
  if (position !== 'OPEN' && position !== 'CLOSE' && position !== 'NIL')
    throw new Malformed(`${where} with position ${String(sent.position)}`, `${where} with "position" ${JSON.stringify(sent.position)}`);
  const leverage = leverageOf(sent.leverage);
  if (!leverage)
    throw new Malformed(`${where} with leverage ${String(sent.leverage)}`, `${where} with "leverage" ${JSON.stringify(sent.leverage)}`);
  return { pair: sent.pair, ...parts, side: side === 'BUY' ? 'buy' : 'sell', position, leverage };
}

/** A fee's decimal, written by Python as `str(Decimal)` (a float is read at the precision it carries). */
function feeDecimal(value: unknown, where: string, name: string): string {
  const decimal = typeof value === 'string' ? pythonDecimal(value) : isNumber(value) ? decimalOfFloat(value) : undefined;
  if (decimal === undefined) throw malformed(where, name, 'not a decimal', JSON.stringify(value));
  return decimal;
}

/** The fee of `TradeFeeBase.to_json()` (MQTT, the CSV). */
export function feeOf(value: unknown, where: string): Fee {
  if (!isObject(value)) throw malformed(where, 'trade_fee', 'not an object');
  const percent = value.percent === undefined || value.percent === null ? '0' : feeDecimal(value.percent, where, 'trade_fee.percent');
  const flatFees = value.flat_fees ?? [];
  if (!Array.isArray(flatFees)) throw malformed(where, 'trade_fee.flat_fees', 'not a list');
  const flat = flatFees.map((entry) => {
    if (!isObject(entry) || !isText(entry.token))
      throw new Malformed(`${where} with a flat fee without token`, `${where} with a flat fee without "token": ${JSON.stringify(entry)}`);
    return { token: entry.token.toUpperCase(), amount: feeDecimal(entry.amount, where, 'trade_fee.flat_fees[].amount') };
  });
  return { percent, flat };
}

/** A figure that must be above 0 (a price, an amount). */
function positive(value: string, where: string, name: string): string {
  if (value.startsWith('-') || /^[0.]+$/.test(value)) throw malformed(where, name, 'not above 0', value);
  return value;
}

/** An event: a fill, one of the order events that carry nothing to mirror (`quiet`), or Malformed. */
export function eventOf(json: Json): { fill: Fill } | { quiet: string } {
  const type = field(json, 'type', 'event', isText, 'a text');
  if (QUIET_EVENTS.has(type)) return { quiet: type };
  if (type !== 'OrderFilled')
    throw new Malformed(`event ${type}`, `event type ${JSON.stringify(type)} is not one this bridge mirrors (it mirrors OrderFilled)`);
  const where = 'OrderFilled';
  const data = field(json, 'data', where, isObject, 'an object');
  const timestamp = field(json, 'timestamp', where, isNumber, 'a number');
  const pair = field(data, 'trading_pair', where, isText, 'a text');
  const side = field(data, 'trade_type', where, isText, 'a text');
  const parts = fillPartsOf(where, 'trading_pair', { pair, side, position: data.position, leverage: data.leverage });
  return {
    fill: {
      orderId: String(field(data, 'order_id', where, isId, 'an id')),
      exchangeTradeId: String(field(data, 'exchange_trade_id', where, isId, 'an id')),
      ...parts,
      price: positive(decimalOfFloat(field(data, 'price', where, isNumber, 'a number')), where, 'price'),
      amount: positive(decimalOfFloat(field(data, 'amount', where, isNumber, 'a number')), where, 'amount'),
      fee: feeOf(data.trade_fee, where),
      // hummingbot sends the event's time in whole seconds.
      time: new Date(Math.trunc(timestamp) * 1000).toISOString(),
    },
  };
}

/** One controller's report: its P&L figures (floats, as sent), or `stopped` for the empty report of a stop. */
export type ControllerReport = { stopped: true } | { unrealized: number; realized: number | undefined };

/** A `performance` message: each controller's report. */
export function performanceOf(json: Json): Map<string, ControllerReport> {
  const reports = new Map<string, ControllerReport>();
  for (const [controller, report] of Object.entries(json)) {
    const where = `performance of ${controller}`;
    if (!isObject(report)) throw new Malformed('performance with a report not an object', `${where} is not an object`);
    if (!Object.keys(report).length) {
      reports.set(controller, { stopped: true });
      continue;
    }
    const performance = report.performance;
    // A controller without a report yet (hummingbot sends {} in its place) is neither stopped nor marked.
    if (isObject(performance) && !Object.keys(performance).length) continue;
    if (!isObject(performance)) throw new Malformed('performance without performance', `${where} without "performance" (an object)`);
    const unrealized = field(performance, 'unrealized_pnl_quote', where, isNumber, 'a number');
    const realized = isNumber(performance.realized_pnl_quote) ? performance.realized_pnl_quote : undefined;
    reports.set(controller, { unrealized, realized });
  }
  return reports;
}
