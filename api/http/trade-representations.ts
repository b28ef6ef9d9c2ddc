import type { TradePage } from '@trading-bot-api/core/types';
import { readProfiles } from '../operations/accounts';
import { JSON_REPRESENTATION, type RenderRequest, type Representation } from './representation';
import { nextLink } from './links';
import { cointrackingCsv, leftOutOf, tradesCsv } from './trade-csv';

/**
 * The representations of both trade listings: JSON (the default), CSV (by `Accept: text/csv` or `format=csv`) and
 * CoinTracking's CSV (by `format=cointracking` only: its media type is CSV's). Each carries the next page in a
 * `Link` header, so a CSV client pages without reading the body.
 */

/** The media type of both CSV layouts: UTF-8, no byte order mark (pages concatenate), a header row on every page. */
const CSV_TYPE = 'text/csv; charset=utf-8; header=present';

const linked = (page: TradePage, request: RenderRequest) => nextLink(page.nextCursor, request);

/** The trades' representations, JSON first (the default when neither `format` nor `Accept` asks otherwise). */
export const TRADE_REPRESENTATIONS: readonly Representation<TradePage>[] = [
  { ...(JSON_REPRESENTATION as Representation<TradePage>), headers: linked },
  { format: 'csv', mediaType: CSV_TYPE, render: (page) => tradesCsv(page.trades), headers: linked },
  {
    format: 'cointracking',
    mediaType: CSV_TYPE,
    byFormatOnly: true,
    // The broker (CoinTracking's Exchange) and currency are the account's: one BatchGetItem of the page's accounts.
    render: async (page) => cointrackingCsv(page.trades, await readProfiles([...new Set(page.trades.map((trade) => trade.accountId))])),
    // What the layout leaves out, and why, in a header: a comment row would be a record to CoinTracking's import.
    headers: (page, request) => {
      const { open, gone } = leftOutOf(page.trades);
      return { ...linked(page, request), 'X-Trades-Left-Out': `open=${open}, gone=${gone}` };
    },
  },
];
