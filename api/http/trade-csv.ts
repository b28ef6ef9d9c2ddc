import { multiplyDecimals } from '@trading-bot-api/core/decimal';
import { TRADE_FIELDS, type Trade } from '@trading-bot-api/core/types';
import { type Cell, csvRecord, inertText } from './csv';

/**
 * The trades as CSV, in two layouts: `csv`, one record per trade with the JSON's fields and exact strings (the file
 * `npm run import` reads back), and `cointracking`, CoinTracking's own import columns. Pure: the HTTP layer
 * (trade-representations.ts) picks the layout and supplies what the trades do not carry (each account's broker).
 */

/** The columns of the `csv` layout: the Trade's fields in the contract's order, named as in JSON. */
export const TRADE_COLUMNS = TRADE_FIELDS;

/** The trades in the `csv` layout: a header row, then one record per trade; null fields are empty cells. */
export function tradesCsv(trades: readonly Trade[]): string {
  const rows = trades.map((trade) =>
    TRADE_COLUMNS.map((column): Cell => (column === 'closeReason' ? inertText(trade.closeReason) : trade[column])),
  );
  return [TRADE_COLUMNS, ...rows].map(csvRecord).join('');
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
export function cointrackingDate(time: string): string {
  return `${time.slice(0, 10)} ${time.slice(11, 19)}`;
}

/**
 * The two exchanges a closed trade made, as CoinTracking records trades: opening, the base bought (a `buy`) or sold
 * (a `sell`) for units × open price of the quote; closing, the reverse at the close price. Amounts are exact products.
 * Fee and Fee Currency stay empty: a trade carries no fee (its realized P&L is the bot's, net of what the bot
 * counted), which the closing record's comment gives. A trade that is not closed (open, or gone: no close price)
 * made no closing exchange CoinTracking could value, and has no record.
 */
export function cointrackingRecords(trade: Trade, account: AccountFacts | undefined): Cell[][] {
  if (trade.status !== 'closed' || trade.closePrice === null || trade.closeTime === null) return [];
  const [base, quote] = trade.instrument.split('_');
  const opened = multiplyDecimals(trade.units, trade.openPrice);
  const closed = multiplyDecimals(trade.units, trade.closePrice);
  const long = trade.side === 'buy';
  const exchange = account?.broker ?? null;
  const pnl = `realized P&L ${trade.realizedPL}${account ? ` ${account.currency}` : ''}`;
  const record = (buy: [string, string], sell: [string, string], comment: string, time: string): Cell[] => [
    'Trade',
    buy[0],
    buy[1],
    sell[0],
    sell[1],
    null,
    null,
    inertText(exchange),
    trade.accountId,
    comment,
    cointrackingDate(time),
  ];
  return [
    long
      ? record([trade.units, base], [opened, quote], `${trade.id} open`, trade.openTime)
      : record([opened, quote], [trade.units, base], `${trade.id} open`, trade.openTime),
    long
      ? record([closed, quote], [trade.units, base], `${trade.id} close; ${pnl}`, trade.closeTime)
      : record([trade.units, base], [closed, quote], `${trade.id} close; ${pnl}`, trade.closeTime),
  ];
}

/** The trades in the `cointracking` layout: a header row, then each closed trade's two records. */
export function cointrackingCsv(trades: readonly Trade[], accounts: ReadonlyMap<string, AccountFacts>): string {
  const rows = trades.flatMap((trade) => cointrackingRecords(trade, accounts.get(trade.accountId)));
  return [COINTRACKING_COLUMNS, ...rows].map(csvRecord).join('');
}
