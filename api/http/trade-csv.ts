import { decimalSign, multiplyDecimals, negateDecimal, sumDecimals, trimDecimal } from '@trading-bot-api/core/decimal';
import { pairOfInstrument } from '@trading-bot-api/core/instruments';
import { type Fee, TRADE_FIELDS, type Trade } from '@trading-bot-api/core/types';
import { type Cell, csvRecord, inertText } from './csv';

/**
 * The trades as CSV, in two layouts: `csv`, one record per trade with the JSON's fields and exact strings (the file
 * `npm run import` reads back), and `cointracking`, CoinTracking's own import columns. Pure: the HTTP layer
 * (trade-representations.ts) picks the layout and supplies what the trades do not carry (each account's broker).
 */

/** A trade's fees in one cell: `AMOUNT CURRENCY LEG` each, joined by `; `; `none` for no fee; empty when unknown. */
export function feesCell(fees: readonly Fee[] | null): Cell {
  if (fees === null) return null;
  return fees.length ? fees.map((fee) => `${fee.amount} ${fee.currency} ${fee.leg}`).join('; ') : 'none';
}

/** The fees of a `feesCell` (what `npm run import` reads back); undefined when the cell is not one. */
export function feesOfCell(cell: string): Fee[] | undefined {
  if (cell === 'none') return [];
  const fees = cell.split(';').map((text) => text.trim().split(/\s+/));
  if (!fees.every((parts) => parts.length === 3 && (parts[2] === 'open' || parts[2] === 'close'))) return undefined;
  return fees.map(([amount, currency, leg]) => ({ amount, currency, leg: leg as Fee['leg'] }));
}

/**
 * One trade's cells in the `csv` layout, whose columns are the Trade's fields in the contract's order, named as in JSON;
 * a gone trade's P&L is empty: its outcome is unknown, not zero.
 */
function tradeCells(trade: Trade): Cell[] {
  const gone = trade.status === 'gone';
  return TRADE_FIELDS.map((column): Cell => {
    if (column === 'closeReason') return inertText(trade.closeReason);
    if (column === 'fees') return feesCell(trade.fees);
    if (column === 'orderIds') return trade.orderIds ? trade.orderIds.join(' ') : null;
    if (gone && (column === 'realizedPL' || column === 'unrealizedPL')) return null;
    return trade[column];
  });
}

/** The trades in the `csv` layout: a header row, then one record per trade; null fields are empty cells. */
export function tradesCsv(trades: readonly Trade[]): string {
  return [TRADE_FIELDS, ...trades.map(tradeCells)].map(csvRecord).join('');
}

/** CoinTracking's "CoinTracking CSV" import columns, in its order. */
export const COINTRACKING_COLUMNS = [
  'Type',
  'Buy Amount',
  'Buy Currency',
  'Sell Amount',
  'Sell Currency',
  'Fee',
  'Fee Currency',
  'Exchange',
  'Trade-Group',
  'Comment',
  'Date',
] as const;

/** What a trade does not carry and CoinTracking asks for: its account's broker, and the account's currency. */
export interface AccountFacts {
  broker: string;
  currency: string;
}

/** A stored time as CoinTracking reads dates: `YYYY-MM-DD HH:mm:ss`, UTC (the import is told the zone). */
function cointrackingDate(time: string): string {
  return `${time.slice(0, 10)} ${time.slice(11, 19)}`;
}

/** CoinTracking's record types this export writes (its own names). */
const TYPES = {
  trade: 'Trade',
  margin: { profit: 'Margin Profit', loss: 'Margin Loss' },
  futures: { profit: 'Derivatives / Futures Profit', loss: 'Derivatives / Futures Loss' },
  marginFee: 'Margin Fee',
  otherFee: 'Other Fee',
  rebate: 'Other Income',
} as const;

/** An amount and its currency (a record's buy, sell or fee); null: the two cells left empty. */
type Pair = [string, string] | null;

/** Amounts as CoinTracking takes them: positive, exact, trailing zeros dropped. */
const magnitude = (amount: string) => trimDecimal(decimalSign(amount) < 0 ? negateDecimal(amount) : amount);
const sum = (amounts: readonly string[]) => trimDecimal(sumDecimals(['0', ...amounts]));

/** A trade's fees by currency, in the order the currencies came: each currency's sum. */
function byCurrency(fees: readonly Fee[]): [string, string][] {
  const sums = new Map<string, string[]>();
  for (const fee of fees) sums.set(fee.currency, [...(sums.get(fee.currency) ?? []), fee.amount]);
  return [...sums].map(([currency, amounts]) => [currency, sum(amounts)]);
}

/**
 * How many trades of a page its `cointracking` layout left out, and why (open: no result yet; gone: unknown): its
 * `X-Trades-Left-Out`.
 */
export function leftOutOf(trades: readonly Trade[]) {
  return {
    open: trades.filter((trade) => trade.status === 'open').length,
    gone: trades.filter((trade) => trade.status === 'gone').length,
  };
}

/**
 * A closed trade as CoinTracking records it (docs/operations.md, "CoinTracking", states the mapping record by record):
 *
 * - **spot** (and a trade whose market is unknown, as 1.4 wrote every trade): the two exchanges it made, each a
 *   `Trade`: opening, the base bought (a `buy`) or sold (a `sell`) for units × open price of the quote; closing, the
 *   reverse at the close price (amounts exact products). Each carries the fees of its exchange (leg) in `Fee` when
 *   they are in one currency (summed); fees of one exchange in several currencies are `Other Fee` records of their own
 *   (a rebate, a negative fee, `Other Income`).
 * - **margin** and **futures**: never a purchase or sale of the base (a short sells what the account never held, a
 *   leveraged long buys more than it paid for), but its result in the settlement currency (the account's), when it
 *   closed: `Margin Profit`/`Margin Loss` or `Derivatives / Futures Profit`/`Derivatives / Futures Loss` of the result
 *   before fees and funding (realizedPL, which is net of them, + the fees in that currency + the funding paid), with
 *   those fees in `Fee`; fees in another currency as `Margin Fee` records at their exchange's time; the funding as a
 *   record of its own (a profit when received, a loss when paid). So the records of a trade add up to its realizedPL.
 *
 * A trade that is not closed (open; gone: its outcome is unknown) has no record: the export counts it (leftOutOf).
 */
export function cointrackingRecords(trade: Trade, account: AccountFacts | undefined): Cell[][] {
  if (trade.status !== 'closed' || trade.closePrice === null || trade.closeTime === null) return [];
  const currency = trade.currency ?? account?.currency ?? null;
  const exchange = inertText(account?.broker ?? null);
  const record = (type: string, buy: Pair, sell: Pair, fee: Pair, comment: string, time: string): Cell[] => [
    type,
    ...[buy, sell, fee].flatMap((pair) => pair ?? [null, null]),
    exchange,
    trade.accountId,
    inertText(comment),
    cointrackingDate(time),
  ];
  /** Fees of one exchange not carried by a record's `Fee`: each a record of its own. */
  const feeRecords = (fees: readonly [string, string][], type: string, leg: Fee['leg']): Cell[][] =>
    fees.map(([feeCurrency, amount]) => {
      const time = leg === 'open' ? trade.openTime : trade.closeTime!;
      return decimalSign(amount) < 0
        ? record(TYPES.rebate, [magnitude(amount), feeCurrency], null, null, `${trade.id} ${leg} fee rebate`, time)
        : record(type, null, [amount, feeCurrency], null, `${trade.id} ${leg} fee`, time);
    });
  const pnl = `realized P&L ${trade.realizedPL}${currency ? ` ${currency}` : ''}`;
  const unknownFees = trade.fees === null ? '; fees unknown' : '';
  const reason = trade.closeReason ? ` (${trade.closeReason})` : '';

  if (trade.market === 'margin' || trade.market === 'futures') {
    const types = TYPES[trade.market];
    const settled = currency === null ? [] : (trade.fees ?? []).filter((fee) => fee.currency === currency);
    const fee = sum(settled.map((each) => each.amount));
    const funding = trade.fundingFees ?? '0';
    // realizedPL is net of the fees and the funding: the result before them is what CoinTracking books as the P&L.
    const gross = sum([trade.realizedPL, fee, funding]);
    const settlement = currency ?? pairOfInstrument(trade.instrument).split('_')[1];
    const feeCell: Pair = decimalSign(fee) > 0 ? [fee, settlement] : null;
    const comment = `${trade.id} ${trade.side === 'buy' ? 'long' : 'short'} ${trade.units} ${trade.instrument}${trade.leverage ? ` leverage ${trade.leverage}` : ''}${reason}; ${pnl}${unknownFees}`;
    const records: Cell[][] = [];
    if (decimalSign(gross) !== 0 || feeCell)
      records.push(
        decimalSign(gross) >= 0
          ? record(types.profit, [gross, settlement], null, feeCell, comment, trade.closeTime)
          : record(types.loss, null, [magnitude(gross), settlement], feeCell, comment, trade.closeTime),
      );
    // A rebate in the settlement currency (a negative sum of its fees) is in the result above, as realizedPL counts it.
    if (decimalSign(fee) < 0) records.push(...feeRecords([[settlement, fee]], TYPES.marginFee, 'close'));
    for (const leg of ['open', 'close'] as const)
      records.push(
        ...feeRecords(
          byCurrency((trade.fees ?? []).filter((each) => each.leg === leg && each.currency !== currency)),
          TYPES.marginFee,
          leg,
        ),
      );
    if (decimalSign(funding) !== 0)
      records.push(
        decimalSign(funding) < 0
          ? record(TYPES.futures.profit, [magnitude(funding), settlement], null, null, `${trade.id} funding received`, trade.closeTime)
          : record(TYPES.futures.loss, null, [funding, settlement], null, `${trade.id} funding paid`, trade.closeTime),
      );
    return records;
  }

  const [base, quote] = pairOfInstrument(trade.instrument).split('_');
  const opened = multiplyDecimals(trade.units, trade.openPrice);
  const closed = multiplyDecimals(trade.units, trade.closePrice);
  const long = trade.side === 'buy';
  /** An exchange's fees: in `Fee` when in one currency and paid; else records of their own. */
  const legFees = (leg: Fee['leg']) => {
    const fees = byCurrency((trade.fees ?? []).filter((fee) => fee.leg === leg));
    if (fees.length === 1 && decimalSign(fees[0][1]) > 0) return { cell: [fees[0][1], fees[0][0]] as [string, string], records: [] };
    return { cell: null, records: feeRecords(fees, TYPES.otherFee, leg) };
  };
  /** One of the two exchanges: the units of the base bought for `quoted` of the quote (`buying`), or sold for it. */
  const swap = (buying: boolean, quoted: string, leg: Fee['leg'], comment: string, time: string): Cell[][] => {
    const [units, value]: [string, string][] = [
      [trade.units, base],
      [quoted, quote],
    ];
    const fees = legFees(leg);
    return [record(TYPES.trade, buying ? units : value, buying ? value : units, fees.cell, comment, time), ...fees.records];
  };
  return [
    ...swap(long, opened, 'open', `${trade.id} open${unknownFees}`, trade.openTime),
    ...swap(!long, closed, 'close', `${trade.id} close${reason}; ${pnl}`, trade.closeTime),
  ];
}

/** The trades in the `cointracking` layout: a header row, then each closed trade's records. */
export function cointrackingCsv(trades: readonly Trade[], accounts: ReadonlyMap<string, AccountFacts>): string {
  const rows = trades.flatMap((trade) => cointrackingRecords(trade, accounts.get(trade.accountId)));
  return [COINTRACKING_COLUMNS, ...rows].map(csvRecord).join('');
}
