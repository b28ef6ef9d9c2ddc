/**
 * Reconciliation of a bot's account against the exchange account it trades (issue 47): the bot's trades compared with
 * the exchange's fills on the exchange's order ids (a trade's `orderIds`), and the two balances. Pure: no I/O; the
 * writer reads both sides and keeps the answer (packages/writer/src/reconcile.ts).
 *
 * The rules (docs/operations.md, "Reconciliation"):
 * - an order is on the exchange when at least one fill of it is; a trade is **matched** when every order it names is;
 *   a trade that names none (`orderIds` null or empty: the bot did not say) is counted `unchecked`, never a difference;
 * - `missing_on_exchange`: an order a trade names that no fill on the exchange has (one difference per order);
 * - `missing_in_bot`: an order filled on the exchange that no trade of the bot names (a manual trade, another bot), one
 *   per order;
 * - `amount`: a matched trade whose units differ from what its orders filled on its own side (its opening leg), and, a
 *   closed trade, on the other side (its closing leg), beyond AMOUNT_TOLERANCE; a leg's fee taken in the base asset may
 *   be netted out by the bot (freqtrade keeps the amount it got), so the units match either the filled amount or the
 *   filled amount less the leg's base fees;
 * - `fee`: a matched trade whose fees as charged (API 1.5), summed by currency, differ from its orders' fills' fees by
 *   currency beyond FEE_TOLERANCE (a trade whose fees are unknown, `fees` null, is not compared);
 * - `balance`: the bot's NAV and the exchange account's, in the same currency, differing by more than
 *   BALANCE_TOLERANCE_PERCENT of the exchange's (not compared when the currencies differ or a side has no balance).
 *
 * Differences are sorted by kind, then trade id, then order id, so two checks of the same data give the same answer.
 */
import { compareDecimals, decimalSign, divideDecimals, multiplyDecimals, negateDecimal, sumDecimals, trimDecimal } from './decimal';
import { compareIds } from './ids';
import type { Reconciliation, ReconciliationDifference, Trade } from './types';

/** An exchange's amounts carry 8 places (Binance's): what the bot reads from floats may differ in the last of them. */
export const AMOUNT_TOLERANCE = '0.00000001';
export const FEE_TOLERANCE = '0.00000001';
/** The NAVs may differ by this share of the exchange's (prices read at different moments), in percent. */
export const BALANCE_TOLERANCE_PERCENT = '1';

const DIFFERENCE_KINDS = ['missing_on_exchange', 'missing_in_bot', 'amount', 'fee', 'balance'] as const;
type DifferenceKind = (typeof DIFFERENCE_KINDS)[number];

/** One fill of the exchange account, as the exchange feed keeps it. */
export interface ExchangeFill {
  /** The exchange's id of the fill's order. */
  orderId: string;
  /** The exchange's id of the fill. */
  fillId: string;
  instrument: string;
  side: 'buy' | 'sell';
  amount: string;
  /** The fee as charged, in its own asset. */
  fee: string;
  feeCurrency: string;
  time: string;
}

/** What the check reads of a bot's trade. */
export type BotTrade = Pick<Trade, 'id' | 'instrument' | 'side' | 'units' | 'status' | 'fees' | 'orderIds'>;

/** One difference between the bot and the exchange: the contract's, but when it was first seen (the store's). */
export type Difference = Omit<ReconciliationDifference, 'since'>;

/** What a check finds: the contract's counts, and its differences without when each was first seen. */
export type Reconciled = Pick<Reconciliation, 'matched' | 'unchecked'> & { differences: Difference[] };

interface Order {
  instrument: string;
  side: 'buy' | 'sell';
  amount: string;
  fees: Map<string, string>;
}

function ordersOf(fills: readonly ExchangeFill[]): Map<string, Order> {
  const orders = new Map<string, Order>();
  for (const fill of fills) {
    const order = orders.get(fill.orderId) ?? { instrument: fill.instrument, side: fill.side, amount: '0', fees: new Map() };
    order.amount = sumDecimals([order.amount, fill.amount]);
    if (decimalSign(fill.fee) !== 0) addFee(order.fees, fill.feeCurrency, fill.fee);
    orders.set(fill.orderId, order);
  }
  return orders;
}

const within = (a: string, b: string, tolerance: string) => {
  const gap = sumDecimals([a, negateDecimal(b)]);
  return compareDecimals(decimalSign(gap) < 0 ? negateDecimal(gap) : gap, tolerance) <= 0;
};

const sortedFees = (fees: ReadonlyMap<string, string>) =>
  [...fees]
    .filter(([, amount]) => decimalSign(amount) !== 0)
    .sort(([a], [b]) => compareIds(a, b))
    .map(([currency, amount]) => `${trimDecimal(amount)} ${currency}`)
    .join(' + ') || 'none';

function addFee(into: Map<string, string>, currency: string, amount: string): void {
  into.set(currency, sumDecimals([into.get(currency) ?? '0', amount]));
}

/** One leg of a matched trade (its orders on `side`) against the trade's units; a difference when neither reading fits. */
function legDifference(trade: BotTrade, legOrders: readonly [string, Order][], leg: 'open' | 'close'): Difference | undefined {
  if (!legOrders.length) return undefined;
  const filled = sumDecimals(legOrders.map(([, order]) => order.amount));
  const base = trade.instrument.split('_')[0];
  const baseFees = sumDecimals(['0', ...legOrders.map(([, order]) => order.fees.get(base) ?? '0')]);
  const net = sumDecimals([filled, negateDecimal(baseFees)]);
  if (within(trade.units, filled, AMOUNT_TOLERANCE) || within(trade.units, net, AMOUNT_TOLERANCE)) return undefined;
  return {
    kind: 'amount',
    tradeId: trade.id,
    orderId: legOrders[0][0],
    bot: `${trimDecimal(trade.units)} ${base}`,
    exchange: `${trimDecimal(filled)} ${base}`,
    detail: `trade ${trade.id}: ${trimDecimal(trade.units)} ${base} in the bot, its ${leg} orders (${legOrders.map(([id]) => id).join(', ')}) filled ${trimDecimal(filled)} on the exchange`,
  };
}

/** The comparison: see the module's comment. `balances` are the two NAVs with their currencies, when both are known. */
export function reconcile(input: {
  trades: readonly BotTrade[];
  fills: readonly ExchangeFill[];
  balances?: { bot: { nav: string; currency: string } | null; exchange: { nav: string; currency: string } | null };
}): Reconciled {
  const orders = ordersOf(input.fills);
  const named = new Set<string>();
  const differences: Difference[] = [];
  let matched = 0;
  let unchecked = 0;
  for (const trade of input.trades) {
    const ids = [...new Set(trade.orderIds ?? [])];
    if (!ids.length) {
      unchecked += 1;
      continue;
    }
    for (const id of ids) named.add(id);
    const missing = ids.filter((id) => !orders.has(id));
    for (const orderId of missing)
      differences.push({
        kind: 'missing_on_exchange',
        tradeId: trade.id,
        orderId,
        bot: null,
        exchange: null,
        detail: `trade ${trade.id} names order ${orderId}, which the exchange has no fill of`,
      });
    if (missing.length) continue;
    matched += 1;
    const mine = ids.map((id) => [id, orders.get(id)!] as [string, Order]);
    // The opening leg's orders are on the trade's side, a closed trade's closing leg's on the other.
    for (const leg of trade.status === 'closed' ? (['open', 'close'] as const) : (['open'] as const)) {
      const legOrders = mine.filter(([, order]) => (order.side === trade.side) === (leg === 'open'));
      const difference = legDifference(trade, legOrders, leg);
      if (difference) differences.push(difference);
    }
    if (trade.fees) {
      const bot = new Map<string, string>();
      for (const fee of trade.fees) addFee(bot, fee.currency, fee.amount);
      const exchange = new Map<string, string>();
      for (const [, order] of mine) for (const [currency, amount] of order.fees) addFee(exchange, currency, amount);
      const currencies = new Set([...bot.keys(), ...exchange.keys()]);
      const differ = [...currencies].some((currency) => !within(bot.get(currency) ?? '0', exchange.get(currency) ?? '0', FEE_TOLERANCE));
      if (differ)
        differences.push({
          kind: 'fee',
          tradeId: trade.id,
          orderId: null,
          bot: sortedFees(bot),
          exchange: sortedFees(exchange),
          detail: `trade ${trade.id}: fees ${sortedFees(bot)} in the bot, ${sortedFees(exchange)} charged on the exchange`,
        });
    }
  }
  for (const [orderId, order] of orders) {
    if (named.has(orderId)) continue;
    differences.push({
      kind: 'missing_in_bot',
      tradeId: null,
      orderId,
      bot: null,
      exchange: `${order.side} ${trimDecimal(order.amount)} ${order.instrument.split('_')[0]}`,
      detail: `order ${orderId} (${order.side} ${trimDecimal(order.amount)} ${order.instrument}) was filled on the exchange and no trade of the bot names it`,
    });
  }
  const bot = input.balances?.bot;
  const exchange = input.balances?.exchange;
  if (bot && exchange && bot.currency === exchange.currency) {
    const magnitude = decimalSign(exchange.nav) < 0 ? negateDecimal(exchange.nav) : exchange.nav;
    const tolerance = divideDecimals(multiplyDecimals(magnitude, BALANCE_TOLERANCE_PERCENT), '100', 8);
    if (!within(bot.nav, exchange.nav, tolerance))
      differences.push({
        kind: 'balance',
        tradeId: null,
        orderId: null,
        bot: `${trimDecimal(bot.nav)} ${bot.currency}`,
        exchange: `${trimDecimal(exchange.nav)} ${exchange.currency}`,
        detail: `NAV ${trimDecimal(bot.nav)} ${bot.currency} in the bot, ${trimDecimal(exchange.nav)} on the exchange: more than ${BALANCE_TOLERANCE_PERCENT} % apart`,
      });
  }
  return { matched, unchecked, differences: differences.sort(compareDifferences) };
}

const rank = (kind: DifferenceKind) => DIFFERENCE_KINDS.indexOf(kind);
const text = (value: string | null) => value ?? '';

function compareDifferences(a: Difference, b: Difference): number {
  return rank(a.kind) - rank(b.kind) || compareIds(text(a.tradeId), text(b.tradeId)) || compareIds(text(a.orderId), text(b.orderId));
}

/** A difference's identity across checks: the same kind of the same trade and order is the same difference. */
export const differenceKey = (difference: Pick<Difference, 'kind' | 'tradeId' | 'orderId'>) =>
  `${difference.kind}|${text(difference.tradeId)}|${text(difference.orderId)}`;
