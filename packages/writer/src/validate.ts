/**
 * The writer's input, checked before anything is written: each function returns the value as it will be stored
 * (instruments in canonical form, times normalised to `YYYY-MM-DDTHH:mm:ss.sssZ`), or throws an INVALID_INPUT error
 * naming the field. Amounts are decimal strings exactly as the contract writes them; a JavaScript number is refused,
 * since it may already have lost digits.
 */
import { isAccountId, TRADE_ID } from '@trading-bot-api/core/ids';
import { compareDecimals, decimalSign, isDecimal } from '@trading-bot-api/core/decimal';
import { canonicalInstrument, contractOf } from '@trading-bot-api/core/instruments';
import { MAX_CLOCK_AHEAD_MS, parseUtcTimestamp } from '@trading-bot-api/core/time';
import type { Account, Balance, BotReport, Fee, Market, Trade } from '@trading-bot-api/core/types';
import type { ExchangeFill } from '@trading-bot-api/core/reconciliation';
import type { TransferEntry } from '@trading-bot-api/core/store/ledger-table';
import { invalidInput } from './errors';

/**
 * Currency codes: upper-case letters and digits, 2 to 12 of them: ISO 4217's `USD` and `EUR`, and the quote
 * currencies of crypto exchanges (`USDT`, `USDC`, `BTC`, `FDUSD`). Amounts are never converted between them.
 */
const CURRENCY = /^[A-Z0-9]{2,12}$/;
const MAX_TEXT = 500;
/** The most fees a trade keeps (a trade charged in more tokens than this is not one a bot makes). */
const MAX_FEES = 50;
/**
 * The most order ids a trade keeps. A market maker's position can gather hundreds of fills: a feed keeps the first
 * ones (the bridges' fills-into-trades rule, positions.ts), never refuses the trade for them.
 */
export const MAX_ORDER_IDS = 100;
/** An exchange's order id: printable ASCII without spaces (the CSV separates ids with one), 1 to 128 characters. */
const ORDER_ID = /^[!-~]{1,128}$/;
const MARKETS = ['spot', 'margin', 'futures'] as const;

type Input = Record<string, unknown>;

function object(value: unknown, field: string): Input {
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw invalidInput(field, 'must be an object');
  return value as Input;
}

export function accountId(value: unknown, field = 'accountId'): string {
  if (typeof value !== 'string' || !isAccountId(value)) {
    throw invalidInput(field, 'must be 1–64 letters, digits, ".", "_" or "-", starting with a letter or digit, and not "all"');
  }
  return value;
}

export function tradeId(value: unknown, field = 'id'): string {
  if (typeof value !== 'string' || !TRADE_ID.test(value)) {
    throw invalidInput(field, 'must be 1–128 letters, digits, ".", "_", ":" or "-", starting with a letter or digit (no "#")');
  }
  return value;
}

function decimal(value: unknown, field: string, sign: 'any' | 'positive' = 'any'): string {
  if (typeof value === 'number') throw invalidInput(field, `must be a decimal string such as "10.50", not a number (${value})`);
  if (!isDecimal(value))
    throw invalidInput(
      field,
      `must be a decimal string such as "10.50" or "-3" (no exponent, no "+", no ","), got ${JSON.stringify(value)}`,
    );
  if (sign === 'positive' && decimalSign(value) <= 0) throw invalidInput(field, `must be greater than 0, got ${value}`);
  return value;
}

function optionalDecimal(value: unknown, field: string, sign: 'any' | 'positive' = 'any'): string | null {
  return value === undefined || value === null ? null : decimal(value, field, sign);
}

/** A time given or, left out, `now`'s (an account's creation, a heartbeat, a trade found gone). */
const timeOrNow = (value: unknown, field: string, now: Date): string => (value === undefined ? now.toISOString() : time(value, field, now));

/** A currency code (an account's, a fee's, `rates`' bases and quotes), or the refusal naming `field`. */
export function currency(value: unknown, field: string): string {
  if (typeof value !== 'string' || !CURRENCY.test(value))
    throw invalidInput(
      field,
      `must be a currency code of 2 to 12 upper-case letters or digits, such as "USD" or "USDT", got ${JSON.stringify(value)}`,
    );
  return value;
}

/**
 * A trade's fees (API 1.5): absent or null, unknown (null); else a list of `{ amount, currency, leg }`, each amount a
 * decimal string (negative: a rebate) in its own currency, `leg` the exchange that charged it (`open` or `close`).
 * Where the call says which exchange it reports (an open, a close), `leg` may be left out and is that one.
 */
function feesInput(value: unknown, field: string, leg?: Fee['leg']): Fee[] | null {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value)) throw invalidInput(field, 'must be a list of fees such as [{"amount": "0.12", "currency": "USDT"}], or null');
  if (value.length > MAX_FEES) throw invalidInput(field, `must hold at most ${MAX_FEES} fees, got ${value.length}`);
  return value.map((entry, i) => {
    const fee = object(entry, `${field}[${i}]`);
    return {
      amount: decimal(fee.amount, `${field}[${i}].amount`),
      currency: currency(fee.currency, `${field}[${i}].currency`),
      leg: fee.leg === undefined && leg !== undefined ? leg : oneOf(fee.leg, `${field}[${i}].leg`, ['open', 'close'] as const),
    };
  });
}

/** An exchange's order (or fill) id. */
function orderId(value: unknown, field: string): string {
  if (typeof value !== 'string' || !ORDER_ID.test(value))
    throw invalidInput(field, `must be 1–128 printable ASCII characters without spaces, got ${JSON.stringify(value)}`);
  return value;
}

/** An instrument, in its canonical form. */
function instrumentInput(value: unknown, field: string): string {
  const instrument = typeof value === 'string' ? canonicalInstrument(value) : undefined;
  if (!instrument)
    throw invalidInput(
      field,
      `must be an instrument such as "EUR_USD" (a future's names its contract: "SOL_USDT_PERP"), got ${JSON.stringify(value)}`,
    );
  return instrument;
}

/** The exchange's order ids of a trade: null when absent or empty; each id once, in the order given. */
function orderIdsInput(value: unknown, field: string): string[] | null {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value)) throw invalidInput(field, 'must be a list of order ids (strings), or null');
  const unique = [...new Set(value.map((id, i) => orderId(id, `${field}[${i}]`)))];
  if (unique.length > MAX_ORDER_IDS) throw invalidInput(field, `must hold at most ${MAX_ORDER_IDS} ids, got ${unique.length}`);
  return unique.length ? unique : null;
}

/** The latest time the writer accepts from a bot at `now` (stored form): see MAX_CLOCK_AHEAD_MS (packages/core/src/time.ts). */
export function latestAcceptable(now: Date): string {
  return new Date(now.getTime() + MAX_CLOCK_AHEAD_MS).toISOString();
}

/** A duration in words, for messages: `4 min 10 s`, `2 h 5 min`, `3 d 4 h`. */
function ahead(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  return `${Math.floor(s / 86_400)} d ${Math.floor((s % 86_400) / 3600)} h`;
}

/**
 * A time as stored (`YYYY-MM-DDTHH:mm:ss.sssZ`); with `now`, one more than MAX_CLOCK_AHEAD_MS ahead of it is refused
 * too, naming how far ahead it is.
 */
export function time(value: unknown, field: string, now?: Date): string {
  const stored = parseUtcTimestamp(value);
  if (stored === undefined) {
    throw invalidInput(
      field,
      `must be an RFC 3339 time in UTC such as "2026-11-01T12:00:00.000Z" (Z, at most milliseconds), got ${JSON.stringify(value)}`,
    );
  }
  if (now !== undefined && stored > latestAcceptable(now)) {
    throw invalidInput(
      field,
      `is ${stored}, ${ahead(Date.parse(stored) - now.getTime())} ahead of the writer's clock (${now.toISOString()}); more than ` +
        `${MAX_CLOCK_AHEAD_MS / 60_000} min ahead is refused: check the bot's clock (a drifting clock, a local time sent as UTC)`,
    );
  }
  return stored;
}

function text(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.trim() === '' || value.length > MAX_TEXT)
    throw invalidInput(field, `must be a non-empty text of at most ${MAX_TEXT} characters`);
  return value;
}

const optionalText = (value: unknown, field: string): string | null => (value === undefined || value === null ? null : text(value, field));

function oneOf<T extends string>(value: unknown, field: string, allowed: readonly T[]): T {
  if (typeof value !== 'string' || !allowed.includes(value as T))
    throw invalidInput(field, `must be one of ${allowed.join(', ')}, got ${JSON.stringify(value)}`);
  return value as T;
}

/** An account's profile; `createdAt` defaults to `now`. */
export function accountInput(value: unknown, now: Date): Account {
  const input = object(value, 'account');
  const code = currency(input.currency, 'currency');
  return {
    id: accountId(input.id, 'id'),
    name: text(input.name, 'name'),
    currency: code,
    broker: text(input.broker, 'broker'),
    environment: oneOf(input.environment, 'environment', ['live', 'paper'] as const),
    createdAt: timeOrNow(input.createdAt, 'createdAt', now),
  };
}

/**
 * A whole trade of `account` (opened, or as a history records it, open or closed): every field of the API's Trade
 * (`accountId` may be left out; API 1.5's may all be), consistent with its status. Fields are named with `prefix` (such
 * as `trades[3].`). `feeLeg`: the leg of a fee that does not say (an opening's fees are its own).
 */
export function tradeInput(value: unknown, account: string, prefix = '', now: Date = new Date(), feeLeg?: Fee['leg']): Trade {
  const input = object(value, prefix ? prefix.slice(0, -1) : 'trade');
  const field = (name: string) => `${prefix}${name}`;
  if (input.accountId !== undefined && input.accountId !== account) {
    throw invalidInput(
      field('accountId'),
      `is ${JSON.stringify(input.accountId)}, but the trade is written to account ${JSON.stringify(account)}`,
    );
  }
  const status = oneOf(input.status ?? 'open', field('status'), ['open', 'closed', 'gone'] as const);
  const instrument = instrumentInput(input.instrument, field('instrument'));
  const openTime = time(input.openTime, field('openTime'), now);
  if (input.currency !== undefined && input.currency !== null) currency(input.currency, field('currency'));
  // Derived from the fees and the account's currency whenever the trade is read: a value given (a trade read from the
  // API, an exported file) is checked for its form and not kept.
  optionalDecimal(input.feeTotal, field('feeTotal'));
  const trade: Trade = {
    id: tradeId(input.id, field('id')),
    accountId: account,
    instrument,
    side: oneOf(input.side, field('side'), ['buy', 'sell'] as const),
    units: decimal(input.units, field('units'), 'positive'),
    status,
    openPrice: decimal(input.openPrice, field('openPrice'), 'positive'),
    openTime,
    closePrice: optionalDecimal(input.closePrice, field('closePrice'), 'positive'),
    closeTime: input.closeTime === undefined || input.closeTime === null ? null : time(input.closeTime, field('closeTime'), now),
    // Absent or empty (null), the P&L figures are 0: an open trade has realized nothing, a closed one holds nothing.
    realizedPL: optionalDecimal(input.realizedPL, field('realizedPL')) ?? '0',
    unrealizedPL: optionalDecimal(input.unrealizedPL, field('unrealizedPL')) ?? '0',
    stopLoss: optionalDecimal(input.stopLoss, field('stopLoss'), 'positive'),
    takeProfit: optionalDecimal(input.takeProfit, field('takeProfit'), 'positive'),
    closeReason: optionalText(input.closeReason, field('closeReason')),
    currency: (input.currency as string | null | undefined) ?? null,
    ...detailsInput(input, instrument, field, feeLeg),
    feeTotal: null,
    orderIds: orderIdsInput(input.orderIds, field('orderIds')),
  };
  if (status === 'open' && trade.closeReason !== null)
    throw invalidInput(field('closeReason'), 'must be null while the trade is open (it says why a trade closed or is gone)');
  if (status === 'open' && trade.fees?.some((fee) => fee.leg === 'close'))
    throw invalidInput(field('fees'), 'an open trade has no closing fee (leg "close")');
  if (status === 'open') {
    if (trade.closePrice !== null) throw invalidInput(field('closePrice'), 'must be null while the trade is open');
    if (trade.closeTime !== null) throw invalidInput(field('closeTime'), 'must be null while the trade is open');
    if (decimalSign(trade.realizedPL) !== 0) throw invalidInput(field('realizedPL'), 'must be 0 while the trade is open');
  } else if (status === 'gone') {
    // A trade the bot no longer has (markGone, or a history that had one): no close, no P&L.
    if (trade.closeReason === null) throw invalidInput(field('closeReason'), 'is required for a gone trade (why it is gone)');
    if (trade.closePrice !== null) throw invalidInput(field('closePrice'), 'must be null for a gone trade');
    if (trade.closeTime === null) throw invalidInput(field('closeTime'), 'is required for a gone trade (when it was found gone)');
    if (trade.closeTime < trade.openTime) throw invalidInput(field('closeTime'), `must not be before openTime (${trade.openTime})`);
    if (decimalSign(trade.realizedPL) !== 0 || decimalSign(trade.unrealizedPL) !== 0)
      throw invalidInput(field('realizedPL'), 'a gone trade has no P&L: realizedPL and unrealizedPL must be 0');
  } else {
    if (trade.closePrice === null) throw invalidInput(field('closePrice'), 'is required for a closed trade');
    if (trade.closeTime === null) throw invalidInput(field('closeTime'), 'is required for a closed trade');
    if (trade.closeTime < trade.openTime) throw invalidInput(field('closeTime'), `must not be before openTime (${trade.openTime})`);
  }
  return trade;
}

/**
 * What a trade's market, leverage, fees, funding and liquidation price may be (API 1.5), checked together: a future's
 * instrument names its contract (`SOL_USDT_PERP`), and one that does is a future (its market is `futures` when not
 * given); a spot trade's leverage is 1 (and is `"1"` when not given); funding is a future's, a liquidation price a
 * leveraged position's.
 */
function detailsInput(input: Input, instrument: string, field: (name: string) => string, feeLeg?: Fee['leg']) {
  const given = input.market === undefined || input.market === null ? null : oneOf(input.market, field('market'), MARKETS);
  const contract = contractOf(instrument) !== 'none';
  if (contract && given !== null && given !== 'futures')
    throw invalidInput(field('market'), `is ${given}, but ${instrument} names a futures contract (market "futures")`);
  if (!contract && given === 'futures')
    throw invalidInput(
      field('instrument'),
      `a future's instrument names its contract: ${instrument}_PERP for a perpetual, ${instrument}_YYYYMMDD for one expiring that day`,
    );
  const market: Market | null = contract ? 'futures' : given;
  let leverage = optionalDecimal(input.leverage, field('leverage'), 'positive');
  if (market === 'spot') {
    if (leverage !== null && compareDecimals(leverage, '1') !== 0)
      throw invalidInput(field('leverage'), `is 1 for a spot trade, got ${leverage}`);
    leverage = '1';
  }
  const fundingFees = optionalDecimal(input.fundingFees, field('fundingFees'));
  if (fundingFees !== null && market !== 'futures') throw invalidInput(field('fundingFees'), 'is for a future (market "futures") only');
  const liquidationPrice = optionalDecimal(input.liquidationPrice, field('liquidationPrice'), 'positive');
  if (liquidationPrice !== null && market === 'spot')
    throw invalidInput(field('liquidationPrice'), 'a spot trade has no liquidation price');
  return { market, leverage, fees: feesInput(input.fees, field('fees'), feeLeg), fundingFees, liquidationPrice };
}

/**
 * How a trade closes: price, time, realized P&L, and the unrealized P&L left (normally 0); and (API 1.5) what its
 * source says besides: why it closed, the fees charged at its close (leg `close` unless said), its funding and the ids
 * of the orders that closed it, each null when not said.
 */
export type Close = Pick<Trade, 'realizedPL' | 'unrealizedPL' | 'closeReason' | 'fees' | 'fundingFees' | 'orderIds'> & {
  closePrice: string;
  closeTime: string;
};

export function closeInput(value: unknown, openTime: string, now: Date = new Date()): Close {
  const input = object(value, 'close');
  const close: Close = {
    closePrice: decimal(input.closePrice, 'closePrice', 'positive'),
    closeTime: time(input.closeTime, 'closeTime', now),
    realizedPL: decimal(input.realizedPL, 'realizedPL'),
    unrealizedPL: input.unrealizedPL === undefined ? '0' : decimal(input.unrealizedPL, 'unrealizedPL'),
    closeReason: optionalText(input.reason, 'reason'),
    fees: feesInput(input.fees, 'fees', 'close'),
    fundingFees: optionalDecimal(input.fundingFees, 'fundingFees'),
    orderIds: orderIdsInput(input.orderIds, 'orderIds'),
  };
  if (close.closeTime < openTime) throw invalidInput('closeTime', `must not be before the trade's openTime (${openTime})`);
  return close;
}

/**
 * What may change on an open trade: its marks, and its position when the bot adds to it or exits part of it (`units`
 * and the average `openPrice`); and (API 1.5) its liquidation price, funding so far, leverage, the fees its opening
 * orders were charged so far (leg `open`; they replace those stored) and order ids (added to those stored). A field
 * left out keeps its value; `null` clears a stop-loss, take-profit or liquidation price.
 */
export type TradeMarks = Partial<Pick<Trade, 'unrealizedPL' | 'stopLoss' | 'takeProfit' | 'units' | 'openPrice' | 'liquidationPrice'>> & {
  fundingFees?: string;
  leverage?: string;
  fees?: Fee[];
  orderIds?: string[];
};

export function marksInput(value: unknown): TradeMarks {
  const input = object(value, 'marks');
  const marks: TradeMarks = {};
  if (input.unrealizedPL !== undefined) marks.unrealizedPL = decimal(input.unrealizedPL, 'unrealizedPL');
  if (input.stopLoss !== undefined) marks.stopLoss = optionalDecimal(input.stopLoss, 'stopLoss', 'positive');
  if (input.takeProfit !== undefined) marks.takeProfit = optionalDecimal(input.takeProfit, 'takeProfit', 'positive');
  if (input.units !== undefined) marks.units = decimal(input.units, 'units', 'positive');
  if (input.openPrice !== undefined) marks.openPrice = decimal(input.openPrice, 'openPrice', 'positive');
  if (input.liquidationPrice !== undefined)
    marks.liquidationPrice = optionalDecimal(input.liquidationPrice, 'liquidationPrice', 'positive');
  if (input.fundingFees !== undefined && input.fundingFees !== null) marks.fundingFees = decimal(input.fundingFees, 'fundingFees');
  if (input.leverage !== undefined && input.leverage !== null) marks.leverage = decimal(input.leverage, 'leverage', 'positive');
  const fees = feesInput(input.fees, 'fees', 'open');
  if (fees?.some((fee) => fee.leg !== 'open'))
    throw invalidInput('fees', 'are the opening orders\' fees (leg "open") while the trade is open');
  if (fees) marks.fees = fees;
  const orderIds = orderIdsInput(input.orderIds, 'orderIds');
  if (orderIds) marks.orderIds = orderIds;
  return marks;
}

/** The broker's figures at a time. */
export type Snapshot = Pick<Balance, 'balance' | 'unrealizedPL' | 'nav' | 'marginUsed' | 'marginAvailable'> & { time: string };

const SNAPSHOT_FIGURES = ['balance', 'unrealizedPL', 'nav', 'marginUsed', 'marginAvailable'] as const;

/** A balance snapshot; `prefix` names it among others (`snapshots[3].`). */
export function snapshotInput(value: unknown, now: Date = new Date(), prefix = ''): Snapshot {
  const input = object(value, prefix ? prefix.slice(0, -1) : 'snapshot');
  const figures = SNAPSHOT_FIGURES.map((name) => [name, decimal(input[name], `${prefix}${name}`)]);
  return { ...(Object.fromEntries(figures) as Omit<Snapshot, 'time'>), time: time(input.time, `${prefix}time`, now) };
}

/** A heartbeat: the bot's state, what it runs and says, and when; `time` defaults to `now`. */
export type Heartbeat = Pick<BotReport, 'state' | 'strategy' | 'message'> & { time: string };

export function heartbeatInput(value: unknown, now: Date): Heartbeat {
  const input = object(value, 'heartbeat');
  return {
    state: oneOf(input.state, 'state', ['running', 'paused', 'stopped', 'error'] as const),
    strategy: optionalText(input.strategy, 'strategy'),
    message: optionalText(input.message, 'message'),
    time: timeOrNow(input.time, 'time', now),
  };
}

/** Why a trade is gone from the bot, and when that was found (default `now`). */
export interface Gone {
  reason: string;
  time: string;
}

export function goneInput(value: unknown, now: Date): Gone {
  const input = object(value, 'gone');
  return {
    reason: text(input.reason, 'reason'),
    time: timeOrNow(input.time, 'time', now),
  };
}

/** A deposit or withdrawal as the exchange feed gives it (`recordTransfers`), checked field by field. */
export function transferInput(value: unknown, index: number, now: Date): Omit<TransferEntry, 'accountId'> {
  const field = (name: string) => `transfers[${index}].${name}`;
  const input = object(value, `transfers[${index}]`);
  const reference = input.reference ?? null;
  if (reference !== null && (typeof reference !== 'string' || reference.length > 200))
    throw invalidInput(field('reference'), 'must be a string of at most 200 characters, or null');
  return {
    id: tradeId(input.id, field('id')),
    kind: oneOf(input.kind, field('kind'), ['deposit', 'withdrawal'] as const),
    asset: currency(input.asset, field('asset')),
    amount: decimal(input.amount, field('amount'), 'positive'),
    fee: optionalDecimal(input.fee, field('fee')) ?? '0',
    time: time(input.time, field('time'), now),
    value: optionalDecimal(input.value, field('value')),
    rate: optionalDecimal(input.rate, field('rate')),
    reference: reference as string | null,
  };
}

/** An exchange's fill as a feed gives it with a step (`advanceFeed`), checked field by field. */
export function fillInput(value: unknown, prefix: string): ExchangeFill {
  const field = (name: string) => `${prefix}${name}`;
  const input = object(value, prefix.replace(/\.$/, ''));
  return {
    orderId: orderId(input.orderId, field('orderId')),
    fillId: orderId(input.fillId, field('fillId')),
    instrument: instrumentInput(input.instrument, field('instrument')),
    side: oneOf(input.side, field('side'), ['buy', 'sell'] as const),
    amount: decimal(input.amount, field('amount'), 'positive'),
    fee: decimal(input.fee, field('fee')),
    feeCurrency: currency(input.feeCurrency, field('feeCurrency')),
    time: time(input.time, field('time')),
  };
}

/** A decimal above 0 (a price). */
export const positiveDecimal = (value: unknown, field: string): string => decimal(value, field, 'positive');
/** A name such as an exchange's id: 1–40 lower-case letters, digits or `-`. */
export function checkpointPart(value: unknown, field: string): string {
  if (typeof value !== 'string' || !/^[a-z0-9-]{1,40}$/.test(value))
    throw invalidInput(field, 'must be 1–40 lower-case letters, digits or "-"');
  return value;
}
