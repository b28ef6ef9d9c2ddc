/**
 * How fills become this API's trades (pure: no I/O), for every bridge whose source trades by fills (hummingbot, an
 * exchange account): this API keeps round trips. The rule (docs/operations.md, "Fills into trades"), hummingbot's own for its v2 controllers' positions
 * (`PositionHold._process_order` in strategy_v2/executors/executor_orchestrator.py), with fees:
 *
 * - a **position** per trading pair (per pair and side for a derivative's OPEN and CLOSE fills, which hedge mode
 *   keeps apart): the first fill opens it (a trade, `buy` when long, `sell` when short), fills the same way grow it;
 * - a fill the other way **reduces** it by average cost: the units it matches close as a trade of their own (the
 *   reducing fill's id), opened when the position opened at its average price, closed at the fill's price, with
 *   realized P&L = proceeds − their share of the position's cost − their share of the fees paid on it − the fill's
 *   fee; the position goes on with the rest at the same average price;
 * - the fill that takes it **flat** closes the position's own trade; what a fill has beyond flat opens the opposite
 *   position (on hummingbot's spot and one-way futures; a derivative's CLOSE never opens one, nor a sell of an
 *   account that holds coins and never owes them, `longOnly`: an exchange's spot account);
 * - **fees** are in the quote currency: a percent of the fill's value, flat fees in the quote, in the base (at the
 *   fill's price) or in another token at a rate the configuration gives (hummingbot's `fee_amount_in_token`);
 * - and each trade keeps its fees as charged (API 1.5), each in its own token (BNB stays BNB): the opening fills'
 *   that its units carry (leg `open`, shared out as the cost is) and the reducing fill's (leg `close`), with the
 *   exchange's ids of those fills' orders where the source gives them (`exchangeOrderId`), else of the fills
 *   (hummingbot's `exchange_trade_id`);
 * - a derivative's fills (a perpetual connector's, `position` OPEN or CLOSE) make futures trades, of the instrument
 *   that names the perpetual (`BTC_USDT_PERP`), with the fill's leverage.
 *
 * Every figure is exact: costs and proceeds are products of the fills' decimals, a round trip's P&L is its proceeds
 * less its costs and fees to the last digit, and only a part closed out of a position bought at several prices has its
 * share of the cost rounded (numbers.ts, proportionOf), the rest staying with the position.
 */
import { createHash } from 'node:crypto';
import {
  canonicalInstrument,
  compareDecimals,
  decimalSign,
  MAX_ORDER_IDS,
  negateDecimal,
  roundDecimal,
  sumDecimals,
  type Trade,
  trimDecimal,
  type Fee as TradeFee,
} from '@trading-bot-api/writer';
import { MONEY_PLACES, multiplyDecimals, proportionOf, quotientOf } from './numbers';

/** A fee as hummingbot's `TradeFeeBase.to_json()` gives it: its percent and flat amounts are `str(Decimal)`. */
export interface Fee {
  /** Of the trade's value, in the quote (hummingbot's `fee_amount_in_token` counts it so). */
  percent: string;
  flat: { token: string; amount: string }[];
}

/** One fill (an `OrderFilled` event, a row of a trades CSV, an exchange's trade): every figure an exact decimal string. */
export interface Fill {
  /** The order's id as the bot knows it (hummingbot's client order id). */
  orderId: string;
  exchangeTradeId: string;
  /**
   * The exchange's id of the fill's order, where the source gives it: what the trades keep as `orderIds`, for a check
   * against the exchange (absent: the fill's `exchangeTradeId` is kept).
   */
  exchangeOrderId?: string;
  /** hummingbot's `BASE-QUOTE`. */
  pair: string;
  base: string;
  quote: string;
  side: 'buy' | 'sell';
  price: string;
  amount: string;
  fee: Fee;
  /** A derivative's position action; `NIL` on spot. */
  position: 'OPEN' | 'CLOSE' | 'NIL';
  /** The position's leverage, a whole number (hummingbot's `leverage`; 1 on spot). */
  leverage: string;
  /** ISO 8601, ms. */
  time: string;
}

/** How a source's fills make trades besides the rule itself. */
export interface FillRules {
  /** The trade id of what a fill opens or closes on its own (default: tradeIdOf, hummingbot's). */
  idOf?: (fill: Fill) => string;
  /** The account holds what it bought and never owes: a sell beyond the position opens none (an exchange's spot account). */
  longOnly?: boolean;
}

/** A fee as charged, in its own token. */
type Charge = Omit<TradeFee, 'leg'>;

/** An open position, as the bridge keeps it (its state file) between fills. */
export interface Position {
  /** The trade id of the position (its opening fill's). */
  id: string;
  instrument: string;
  side: 'buy' | 'sell';
  units: string;
  /** What the units held cost: the sum of price × amount of the fills that bought them (sold them, when short). */
  cost: string;
  /** The fees paid opening and growing it that its units still carry, in the quote. */
  fees: string;
  openTime: string;
  /** The unrealized P&L last written (hummingbot's `performance`). */
  unrealizedPL: string;
  /**
   * The fees charged opening and growing it that its units still carry, each in its own token; absent in a position
   * the bridge kept before it kept them (its trades' fees are then unknown), as are the three below.
   */
  charged?: Charge[];
  market?: 'spot' | 'futures';
  leverage?: string;
  /** The exchange's ids of the fills (or their orders: orderRefOf) that opened and grew it. */
  orderIds?: string[];
}

/** A fill's key: hummingbot's TradeFill is unique by market, order id and exchange trade id (model/trade_fill.py). */
export function fillKeyOf(fill: Pick<Fill, 'orderId' | 'exchangeTradeId'>): string {
  return `${fill.orderId}|${fill.exchangeTradeId}`;
}

/** The trade id of what a fill opens or closes on its own: its pair, and a digest of its key (ids allow 128 characters). */
export function tradeIdOf(fill: Pick<Fill, 'orderId' | 'exchangeTradeId' | 'base' | 'quote'>): string {
  const digest = createHash('sha256').update(fillKeyOf(fill)).digest('hex').slice(0, 16);
  return `hb-${fill.base}-${fill.quote}-${digest}`.replace(/[^A-Za-z0-9._:-]/g, '_');
}

/** The book a fill belongs to: its pair, or its pair and side for a derivative's OPEN and CLOSE fills. */
export function bookOf(fill: Pick<Fill, 'pair' | 'side' | 'position'>): string {
  if (fill.position === 'NIL') return fill.pair;
  const long = (fill.position === 'OPEN') === (fill.side === 'buy');
  return `${fill.pair}:${long ? 'long' : 'short'}`;
}

/** Tokens hummingbot takes as one another (`TradeFeeBase._are_tokens_interchangeable`). */
const INTERCHANGEABLE = [
  ['WETH', 'ETH'],
  ['WBNB', 'BNB'],
  ['WPOL', 'POL'],
  ['WAVAX', 'AVAX'],
  ['WONE', 'ONE'],
  ['USDC', 'USDC.E'],
  ['WBTC', 'BTC'],
  ['USOL', 'SOL'],
  ['UETH', 'ETH'],
  ['UBTC', 'BTC'],
];

const same = (a: string, b: string) => a === b || INTERCHANGEABLE.some((pair) => pair.includes(a) && pair.includes(b));

/**
 * A fill's fee in its quote currency, half-even to MONEY_PLACES (hummingbot computes it with 28 digits); `unpriced`
 * names the tokens of flat fees that have no rate in `rates` (the value of one token in the quote), left out.
 */
export function feeInQuote(
  fill: Pick<Fill, 'base' | 'quote' | 'price' | 'amount'>,
  fee: Fee,
  rates: Readonly<Record<string, string>> = {},
) {
  const parts: string[] = ['0'];
  const unpriced: string[] = [];
  if (decimalSign(fee.percent) !== 0) parts.push(multiplyDecimals(multiplyDecimals(fill.price, fill.amount), fee.percent));
  for (const { token, amount } of fee.flat) {
    if (same(token, fill.quote)) parts.push(amount);
    else if (same(token, fill.base)) parts.push(multiplyDecimals(amount, fill.price));
    else if (rates[token] !== undefined) parts.push(multiplyDecimals(amount, rates[token]));
    else if (decimalSign(amount) !== 0) unpriced.push(token);
  }
  return { fee: trimDecimal(roundDecimal(sumDecimals(parts), MONEY_PLACES)), unpriced };
}

/** A fill's fees as charged: the percent's in the quote (8 places, half-even), each flat fee in its token. */
function chargesOf(fill: Pick<Fill, 'quote' | 'price' | 'amount' | 'fee'>): Charge[] {
  const charges: Charge[] = [];
  if (decimalSign(fill.fee.percent) !== 0)
    charges.push({
      amount: trimDecimal(roundDecimal(multiplyDecimals(multiplyDecimals(fill.price, fill.amount), fill.fee.percent), MONEY_PLACES)),
      currency: fill.quote.toUpperCase(),
    });
  for (const { token, amount } of fill.fee.flat) if (decimalSign(amount) !== 0) charges.push({ amount, currency: token });
  return addCharges([], charges);
}

/** `a` and `b` together, one charge per currency, in the order the currencies came. */
function addCharges(a: readonly Charge[], b: readonly Charge[]): Charge[] {
  const sums = new Map<string, string>();
  for (const charge of [...a, ...b]) sums.set(charge.currency, plus(sums.get(charge.currency) ?? '0', charge.amount));
  return [...sums].map(([currency, amount]) => ({ amount, currency }));
}

/** The share `part` / `whole` of each charge (what rounding leaves stays with the rest: see proportionOf). */
function shareOf(charges: readonly Charge[], part: string, whole: string): Charge[] {
  return charges.map((charge) => ({ ...charge, amount: proportionOf(charge.amount, part, whole) }));
}

/** `a` less `b` (a share of it), charges left at 0 dropped. */
function lessCharges(a: readonly Charge[], b: readonly Charge[]): Charge[] {
  return addCharges(
    a,
    b.map((charge) => ({ ...charge, amount: negateDecimal(charge.amount) })),
  ).filter((charge) => decimalSign(charge.amount) !== 0);
}

const asFees = (charges: readonly Charge[], leg: TradeFee['leg']): TradeFee[] => charges.map((charge) => ({ ...charge, leg }));

/** The position as this API's open trade. */
export function openTradeOf(position: Position): Trade {
  return {
    id: position.id,
    accountId: '',
    instrument: position.instrument,
    side: position.side,
    units: position.units,
    status: 'open',
    openPrice: quotientOf(position.cost, position.units),
    openTime: position.openTime,
    closePrice: null,
    closeTime: null,
    realizedPL: '0',
    unrealizedPL: position.unrealizedPL,
    stopLoss: null,
    takeProfit: null,
    closeReason: null,
    currency: null,
    market: position.market ?? null,
    leverage: position.leverage ?? null,
    fees: position.charged ? asFees(position.charged, 'open') : null,
    feeTotal: null,
    fundingFees: null,
    liquidationPrice: null,
    orderIds: position.orderIds?.length ? position.orderIds : null,
  };
}

/** What a fill did to its book: the position after it (undefined: flat), the trades to write, and units it could not match. */
export interface Applied {
  position: Position | undefined;
  /** Closed parts and the position's trade as it now is, in the order to write them. */
  trades: Trade[];
  /** Units of a fill that reduces only (a CLOSE; a sell, long only) beyond the position known (opened before the bridge saw it, or bought elsewhere). */
  unmatched?: string;
}

const minus = (a: string, b: string) => trimDecimal(sumDecimals([a, negateDecimal(b)]));
const plus = (...values: string[]) => trimDecimal(sumDecimals(values));

/** A new position of `units` of the fill, carrying `fees` (in the quote) and `charged` (as charged). */
/** The exchange's id a fill's trades keep (its order's, where known). */
const orderRefOf = (fill: Fill) => fill.exchangeOrderId ?? fill.exchangeTradeId;

/**
 * `ids` and `fill`'s, each once, the first MAX_ORDER_IDS of them: a market maker's position can gather hundreds of
 * fills, and is mirrored whole all the same, its later orders' ids not kept (docs/operations.md, Fills into trades).
 */
const withOrderOf = (ids: readonly string[], fill: Fill) => [...new Set([...ids, orderRefOf(fill)])].slice(0, MAX_ORDER_IDS);

function opened(fill: Fill, units: string, fees: string, charged: Charge[], idOf: (fill: Fill) => string): Position {
  const futures = fill.position !== 'NIL';
  const instrument = canonicalInstrument(futures ? `${fill.pair}-PERP` : fill.pair);
  if (!instrument) throw new TypeError(`pair ${JSON.stringify(fill.pair)} is not an instrument here`);
  return {
    id: idOf(fill),
    instrument,
    side: fill.side,
    units,
    cost: multiplyDecimals(fill.price, units),
    fees,
    openTime: fill.time,
    unrealizedPL: '0',
    charged,
    market: futures ? 'futures' : 'spot',
    leverage: futures ? fill.leverage : '1',
    orderIds: [orderRefOf(fill)],
  };
}

/**
 * Applies one fill (its fee already in the quote: feeInQuote) to the position of its book; see the module's comment.
 * The fill's time must not be before the position's.
 */
export function applyFill(position: Position | undefined, fill: Fill, fee: string, rules: FillRules = {}): Applied {
  const charges = chargesOf(fill);
  const idOf = rules.idOf ?? tradeIdOf;
  // A fill that can only reduce: a derivative's CLOSE, or a sell of an account that never owes coins.
  const reducesOnly = fill.position === 'CLOSE' || (rules.longOnly === true && fill.side === 'sell');
  if (!position) {
    if (reducesOnly) return { position: undefined, trades: [], unmatched: fill.amount };
    const fresh = opened(fill, fill.amount, fee, charges, idOf);
    return { position: fresh, trades: [openTradeOf(fresh)] };
  }
  if (fill.side === position.side) {
    const grown: Position = {
      ...position,
      units: plus(position.units, fill.amount),
      cost: plus(position.cost, multiplyDecimals(fill.price, fill.amount)),
      fees: plus(position.fees, fee),
      charged: position.charged && addCharges(position.charged, charges),
      orderIds: position.orderIds && withOrderOf(position.orderIds, fill),
    };
    return { position: grown, trades: [openTradeOf(grown)] };
  }
  const whole = compareDecimals(fill.amount, position.units) >= 0;
  const matched = whole ? position.units : fill.amount;
  const excess = minus(fill.amount, matched);
  // The fill's fee goes with its units: the share of the units that close, the rest with what it opens.
  const closingFee = decimalSign(excess) === 0 ? fee : proportionOf(fee, matched, fill.amount);
  const closingCharges = decimalSign(excess) === 0 ? charges : shareOf(charges, matched, fill.amount);
  const costShare = whole ? position.cost : proportionOf(position.cost, matched, position.units);
  const feesShare = whole ? position.fees : proportionOf(position.fees, matched, position.units);
  const carried = position.charged && (whole ? position.charged : shareOf(position.charged, matched, position.units));
  const proceeds = multiplyDecimals(fill.price, matched);
  const gross = position.side === 'buy' ? minus(proceeds, costShare) : minus(costShare, proceeds);
  const closed: Trade = {
    ...openTradeOf(position),
    id: whole ? position.id : idOf(fill),
    units: matched,
    status: 'closed',
    closePrice: fill.price,
    closeTime: fill.time,
    realizedPL: minus(gross, plus(feesShare, closingFee)),
    unrealizedPL: '0',
    fees: carried ? [...asFees(carried, 'open'), ...asFees(closingCharges, 'close')] : null,
    orderIds: position.orderIds ? withOrderOf(position.orderIds, fill) : null,
  };
  if (!whole) {
    const rest: Position = {
      ...position,
      units: minus(position.units, matched),
      cost: minus(position.cost, costShare),
      fees: minus(position.fees, feesShare),
      charged: position.charged && carried ? lessCharges(position.charged, carried) : undefined,
    };
    return { position: rest, trades: [closed, openTradeOf(rest)] };
  }
  if (decimalSign(excess) === 0) return { position: undefined, trades: [closed] };
  if (reducesOnly) return { position: undefined, trades: [closed], unmatched: excess };
  const flipped = opened(fill, excess, minus(fee, closingFee), lessCharges(charges, closingCharges), idOf);
  return { position: flipped, trades: [closed, openTradeOf(flipped)] };
}
