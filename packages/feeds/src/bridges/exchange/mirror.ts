/**
 * How an exchange account becomes an account of the API (pure: no I/O; feed.ts does the reading and writing):
 *
 * - **markets followed**: those the feed followed before (its checkpoints), those the bot it is reconciled with
 *   trades (its trades' instruments), those of every asset held, against the account's currency, and those asked for
 *   (`--symbols`); only spot markets quoted in the account's currency, never "every market";
 * - **fills into trades**: per market, by the rule every fill-trading bridge shares (../positions.ts: average cost,
 *   realized P&L per closing fill, fees as charged), long only: a sell of coins the feed never saw bought (deposited,
 *   bought in another market) closes nothing, opens nothing, and is counted as `unmatched`;
 * - **the balance**: every asset held valued at its market's last price in the account's currency (the currency
 *   itself at 1); `nav` their sum, `unrealizedPL` the open positions' value less their cost and the fees they carry,
 *   `balance` = `nav` − `unrealizedPL`, no margin;
 * - **fills as recorded**: each fill also kept as the exchange recorded it (its order's id, the amount traded before
 *   a commission taken in the base, the commission in its own asset), for a reconciliation against a bot's account;
 * - **transfers**: deposits and withdrawals (with their fees) valued at their asset's price in the minute they
 *   happened, never P&L.
 *
 * Every figure is the product or sum of the exchange's decimal strings, exact.
 */
import {
  canonicalInstrument,
  compareDecimals,
  decimalSign,
  type ExchangeFill,
  negateDecimal,
  sumDecimals,
  type Trade,
  trimDecimal,
} from '@trading-bot-api/writer';
import { multiplyDecimals } from '../numbers';
import { applyFill, feeInQuote, type Fill, openTradeOf, type Position } from '../positions';
import type { ExchangeTransfer, Holding, MarketInfo } from './profile';

/** How many of a market's unmatched sells' order ids its checkpoint keeps (the latest). */
const UNMATCHED_ORDER_IDS = 100;

/** What the feed keeps of one market, in its checkpoint (`<exchange>:market:<id>`), rewritten with every page of fills. */
export interface MarketState {
  market: MarketInfo;
  /** The cursor of the next page: the first fill not yet mirrored. */
  next: string;
  /** Fills mirrored so far. */
  fills: number;
  /** The open position, exactly (its trade's average price is rounded). */
  position: Position | null;
  /** Sells beyond the position: units, fills, and their orders' ids (the latest UNMATCHED_ORDER_IDS). */
  unmatched: { units: string; fills: number; orderIds: string[] };
  /** Fee tokens neither the base nor the quote (BNB): kept as charged, left out of the realized P&L. */
  unpricedFees: string[];
}

export const checkpointOfMarket = (exchange: string, market: MarketInfo) => `${exchange}:market:${market.id}`;

export function newMarketState(market: MarketInfo, firstCursor: string): MarketState {
  return { market, next: firstCursor, fills: 0, position: null, unmatched: { units: '0', fills: 0, orderIds: [] }, unpricedFees: [] };
}

/** A market followed and why one asked for is not. */
export interface Followed {
  markets: MarketInfo[];
  skipped: { symbol: string; why: string }[];
}

/** `BTC/USDT`, `BTC_USDT`, `BTC-USDT` or `btcusdt`-less forms as ccxt's symbol; undefined when it names no pair. */
export function symbolOf(text: string): string | undefined {
  const match = /^([A-Za-z0-9]{1,20})[/_-]([A-Za-z0-9]{1,20})$/.exec(text.trim());
  return match ? `${match[1].toUpperCase()}/${match[2].toUpperCase()}` : undefined;
}

/**
 * The markets to follow (see the module's comment), sorted by symbol: `known` (the checkpoints' markets), `instruments`
 * (the reconciled bot's trades'), `holdings` and `asked` (`--symbols`), among the exchange's spot `markets`.
 */
export function followedMarkets(input: {
  markets: ReadonlyMap<string, MarketInfo>;
  quote: string;
  known: readonly MarketInfo[];
  instruments: readonly string[];
  holdings: readonly Holding[];
  asked: readonly string[];
}): Followed {
  const chosen = new Map<string, MarketInfo>();
  const skipped: Followed['skipped'] = [];
  const consider = (symbol: string, origin: string) => {
    if (chosen.has(symbol)) return;
    const market = input.markets.get(symbol);
    if (!market) return skipped.push({ symbol, why: `${origin}: the exchange has no spot market ${symbol}` });
    if (market.quote !== input.quote)
      return skipped.push({
        symbol,
        why: `${origin}: quoted in ${market.quote}, and the account is in ${input.quote} (mirror it into an account in ${market.quote})`,
      });
    if (!canonicalInstrument(`${market.base}_${market.quote}`))
      return skipped.push({ symbol, why: `${origin}: ${symbol} is not an instrument here (2 to 12 letters or digits a side)` });
    chosen.set(symbol, market);
  };
  for (const market of input.known) chosen.set(market.symbol, market);
  for (const instrument of input.instruments) {
    const [base, quote, contract] = instrument.split('_');
    if (contract !== undefined) skipped.push({ symbol: instrument, why: `the bot's ${instrument} is a future: the feed mirrors spot` });
    else consider(`${base}/${quote}`, `the bot's trades`);
  }
  for (const { asset, free, locked } of input.holdings) {
    if (asset === input.quote || decimalSign(sumDecimals([free, locked])) === 0) continue;
    // A held asset without a market in the account's currency is valued as nothing, and said so by the balance.
    if (input.markets.has(`${asset}/${input.quote}`)) consider(`${asset}/${input.quote}`, `held ${asset}`);
  }
  for (const text of input.asked) {
    const symbol = symbolOf(text);
    if (!symbol) skipped.push({ symbol: text, why: 'asked for: not a market such as BTC/USDT' });
    else consider(symbol, 'asked for');
  }
  return { markets: [...chosen.values()].sort((a, b) => (a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : 0)), skipped };
}

/** One fill of a page: the feed's Fill, the exchange's id of it, and the cursor after it. */
export interface PageFill {
  fill: Fill;
  id: string;
  next: string;
}

/** The trade id of what a fill of `market` opens or closes on its own: the exchange, the market and the fill's id. */
const tradeIdOf = (exchange: string, market: MarketInfo, fill: Pick<Fill, 'exchangeTradeId'>) =>
  `${exchange}-${market.id}-${fill.exchangeTradeId}`;

/** A fill as the exchange recorded it: the amount traded (a commission in the base added back) and the commission. */
export function recordedFill(market: MarketInfo, fill: Fill): ExchangeFill {
  const [charged] = fill.fee.flat;
  const inBase = charged?.token === market.base ? charged.amount : '0';
  return {
    orderId: fill.exchangeOrderId ?? fill.exchangeTradeId,
    fillId: fill.exchangeTradeId,
    instrument: `${market.base}_${market.quote}`,
    side: fill.side,
    amount: trimDecimal(sumDecimals([fill.amount, fill.side === 'buy' ? inBase : negateDecimal(inBase)])),
    fee: charged ? trimDecimal(charged.amount) : '0',
    feeCurrency: charged?.token ?? market.quote,
    time: fill.time,
  };
}

/**
 * A page of fills applied to a market's state, one step per fill (the trades it changed, and the state after it):
 * what the writer's advanceFeed stores, each transaction ending at a step.
 */
export function stepsOfFills(exchange: string, accountId: string, state: MarketState, fills: readonly PageFill[]) {
  const steps: { trades: Trade[]; state: MarketState; fills: ExchangeFill[] }[] = [];
  let current = state;
  for (const { fill, next } of fills) {
    const position = current.position ?? undefined;
    // The exchange's fills come in id order; a time before the position's (none on Binance) counts from its open.
    const at = position && fill.time < position.openTime ? { ...fill, time: position.openTime } : fill;
    const { fee, unpriced } = feeInQuote(at, at.fee);
    const applied =
      decimalSign(at.amount) > 0
        ? applyFill(position, at, fee, { idOf: (each) => tradeIdOf(exchange, state.market, each), longOnly: true })
        : { position, trades: [] as Trade[] };
    const unmatched =
      'unmatched' in applied && applied.unmatched
        ? {
            units: trimDecimal(sumDecimals([current.unmatched.units, applied.unmatched])),
            fills: current.unmatched.fills + 1,
            orderIds: [...current.unmatched.orderIds, fill.exchangeOrderId ?? fill.exchangeTradeId].slice(-UNMATCHED_ORDER_IDS),
          }
        : current.unmatched;
    current = {
      ...current,
      next,
      fills: current.fills + 1,
      position: applied.position ?? null,
      unmatched,
      unpricedFees: [...new Set([...current.unpricedFees, ...unpriced])].sort(),
    };
    steps.push({
      trades: applied.trades.map((trade) => ({ ...trade, accountId })),
      state: current,
      fills: [recordedFill(state.market, fill)],
    });
  }
  return { steps, state: current };
}

/** The unrealized P&L of a long position at `price`: its value less its cost and the opening fees it carries. */
function unrealizedOf(position: Position, price: string): string {
  return trimDecimal(sumDecimals([multiplyDecimals(position.units, price), negateDecimal(position.cost), negateDecimal(position.fees)]));
}

/** The market's state with its position marked at `price`, and the trade to write; undefined when the mark did not change. */
export function markedState(accountId: string, state: MarketState, price: string): { trade: Trade; state: MarketState } | undefined {
  if (!state.position) return undefined;
  const unrealizedPL = unrealizedOf(state.position, price);
  if (compareDecimals(unrealizedPL, state.position.unrealizedPL) === 0) return undefined;
  const position = { ...state.position, unrealizedPL };
  return { trade: { ...openTradeOf(position), accountId }, state: { ...state, position } };
}

/** One asset held, valued in the account's currency. */
interface ValuedHolding extends Holding {
  /** Its price in the account's currency (1 for the currency itself); null when the exchange has no market for it. */
  price: string | null;
  value: string | null;
}

/** The account's balance at the exchange's last prices (see the module's comment). */
export interface Valuation {
  nav: string;
  unrealizedPL: string;
  balance: string;
  assets: ValuedHolding[];
  /** Assets held that have no price in the account's currency: left out of `nav`. */
  unvalued: string[];
}

/** `holdings` valued at `prices` (by market id) in `quote`, the open `positions` marked. */
export function valuationOf(input: {
  quote: string;
  holdings: readonly Holding[];
  markets: ReadonlyMap<string, MarketInfo>;
  prices: ReadonlyMap<string, string>;
  positions: readonly { market: MarketInfo; position: Position }[];
}): Valuation {
  const assets: ValuedHolding[] = [];
  for (const holding of input.holdings) {
    const total = sumDecimals([holding.free, holding.locked]);
    if (decimalSign(total) === 0) continue;
    const market = input.markets.get(`${holding.asset}/${input.quote}`);
    const price = holding.asset === input.quote ? '1' : market ? (input.prices.get(market.id) ?? null) : null;
    assets.push({ ...holding, price, value: price === null ? null : trimDecimal(multiplyDecimals(total, price)) });
  }
  const nav = trimDecimal(sumDecimals(['0', ...assets.flatMap((asset) => (asset.value === null ? [] : [asset.value]))]));
  const unrealized = input.positions.flatMap(({ market, position }) => {
    const price = input.prices.get(market.id);
    return price === undefined ? [] : [unrealizedOf(position, price)];
  });
  const unrealizedPL = trimDecimal(sumDecimals(['0', ...unrealized]));
  return {
    nav,
    unrealizedPL,
    balance: trimDecimal(sumDecimals([nav, negateDecimal(unrealizedPL)])),
    assets,
    unvalued: assets.filter((asset) => asset.value === null).map((asset) => asset.asset),
  };
}

/** [from, to] cut into windows of at most `windowMs` (an exchange's limit on a history's time range), oldest first. */
export function windowsOf(fromMs: number, toMs: number, windowMs: number): { from: number; to: number }[] {
  const windows: { from: number; to: number }[] = [];
  for (let from = fromMs; from <= toMs; from += windowMs + 1) windows.push({ from, to: Math.min(from + windowMs, toMs) });
  return windows;
}

/** How far back each sync asks for transfers again: the exchange lists one a while after it happened. */
export const TRANSFER_OVERLAP_MS = 3_600_000;

/**
 * Where the next history of `kind` starts, having read up to `nowMs`: at the oldest transfer still on its way (asked
 * again until it is done or failed), else TRANSFER_OVERLAP_MS before now; never before where this one started.
 */
export function nextTransferCursor(fromMs: number, nowMs: number, transfers: readonly ExchangeTransfer[]): number {
  const pending = transfers.filter((transfer) => transfer.state === 'pending').map((transfer) => transfer.listedAt);
  return Math.max(fromMs, Math.min(nowMs - TRANSFER_OVERLAP_MS, ...pending));
}

/** A transfer as the writer keeps it: what moved (amount and a withdrawal's fee) valued at `rate` (null: no rate). */
export function transferRecord(transfer: ExchangeTransfer, rate: string | undefined) {
  const { listedAt, state, time, ...kept } = transfer;
  const moved = trimDecimal(sumDecimals([transfer.amount, transfer.fee]));
  return {
    ...kept,
    time: new Date(time).toISOString(),
    value: rate === undefined ? null : trimDecimal(multiplyDecimals(moved, rate)),
    rate: rate ?? null,
  };
}
