/**
 * The trade history: filters (account, status, instrument, a time window in UTC) that live in the URL, so a view
 * can be shared; pages of 50 followed by cursor with "Load more". Each trade's P&L says its currency (the trade's
 * own `currency` where the API gives it, API 1.5, else its account's) and is written as that currency is
 * (format.ts): listed across accounts, EUR, USD and USDT amounts stand in one column, each with its code, a crypto's
 * padded to no more places than that currency's values in the column need. Prices keep each instrument's quoted
 * places, units the places the instrument's values need; each figure is exact in its title. A `gone` trade's outcome
 * is unknown, and its P&L and close say "unknown", never zero, with why. The first page refreshes every 30 s while no
 * further page is loaded (a loaded page is never reshuffled under the reader). "Download CSV" saves the whole
 * listing of the current filters and window as one CSV file, following the API's pages (1.4).
 */
import type { Trade, TradePage } from '../../../client';
import { api, unwrap } from '../api';
import { fill, h } from '../dom';
import { amount, columnPlaces, money, placesByCurrency, pricePlaces, unknown, utc } from '../format';
import { tradesHash } from '../router';
import type { View } from './view';

const PAGE = '50';

interface Column {
  label: string;
  /** Right-aligned figures. */
  num?: boolean;
  /** Shown first in a phone's stacked row: what a glance needs. */
  key?: boolean;
  /** A date and time, which may break between the two when the table is short of room (style.css). */
  time?: boolean;
  cell(trade: Trade, places: Places, currency: string | undefined): Node | string;
}

/**
 * Places per instrument for units and prices (a yen pair's prices have 3, gold's 2, most pairs 5), and per currency
 * for each P&L column.
 */
interface Places {
  units: Map<string, number>;
  price: Map<string, number>;
  realizedPL: (currency: string | undefined) => number;
  unrealizedPL: (currency: string | undefined) => number;
}

/** A trade's currency: its own (API 1.5), else its account's. */
const currencyOf = (trade: Trade, accountCurrency: (accountId: string) => string | undefined): string | undefined =>
  (trade as Trade & { currency?: string | null }).currency ?? accountCurrency(trade.accountId);

const price = (value: string | null, trade: Trade, places: Places) =>
  value === null ? '—' : amount(value, { places: places.price.get(trade.instrument) });

/** Why a gone trade's figures are unknown: the bot no longer has it (its database reset, the trade deleted). */
const goneWhy = (trade: Trade) => `Outcome unknown: ${trade.closeReason ?? 'the bot no longer has this trade'}`;

const profitOrLoss =
  (field: 'realizedPL' | 'unrealizedPL') =>
  (trade: Trade, places: Places, currency: string | undefined): Node =>
    trade.status === 'gone' ? unknown(goneWhy(trade)) : money(trade[field], currency, { signed: true, places: places[field](currency) });

const COLUMNS: Column[] = [
  { label: 'Opened (UTC)', time: true, cell: (trade) => utc(trade.openTime, { zone: false }) },
  { label: 'Account', cell: (trade) => h('a', { href: `#/account/${encodeURIComponent(trade.accountId)}` }, trade.accountId) },
  { label: 'Instrument', key: true, cell: (trade) => trade.instrument },
  { label: 'Side', cell: (trade) => trade.side },
  { label: 'Units', num: true, cell: (trade, places) => amount(trade.units, { places: places.units.get(trade.instrument) }) },
  {
    label: 'Status',
    key: true,
    // A gone trade says why, on the page (a phone has no hover): the bot no longer has it.
    cell: (trade) =>
      trade.status === 'gone'
        ? h(
            'span',
            { class: 'status' },
            h('span', { class: 'badge gone', title: `Found gone ${utc(trade.closeTime)}` }, 'gone'),
            h('span', { class: 'reason' }, trade.closeReason ?? 'the bot no longer has this trade'),
          )
        : h('span', { class: `badge ${trade.status}`, title: trade.closeReason ?? null }, trade.status),
  },
  { label: 'Open price', num: true, cell: (trade, places) => price(trade.openPrice, trade, places) },
  { label: 'Close price', num: true, cell: (trade, places) => price(trade.closePrice, trade, places) },
  {
    label: 'Closed (UTC)',
    time: true,
    // A gone trade's closeTime is when it was found gone: whether and when it closed is not known.
    cell: (trade) =>
      trade.status === 'gone'
        ? unknown(`Found gone ${utc(trade.closeTime)}; whether and when it closed is unknown`)
        : utc(trade.closeTime, { zone: false }),
  },
  { label: 'Realized P&L', num: true, key: true, cell: profitOrLoss('realizedPL') },
  { label: 'Unrealized P&L', num: true, key: true, cell: profitOrLoss('unrealizedPL') },
];

/** The most places `values(trade)` needs, per instrument. */
function perInstrument(trades: Trade[], places: (trade: Trade) => number): Map<string, number> {
  const most = new Map<string, number>();
  for (const trade of trades) most.set(trade.instrument, Math.max(most.get(trade.instrument) ?? 0, places(trade)));
  return most;
}

/**
 * A table of trades; newest first, as the API lists them. Every column fits from 1280 px up; on a phone each trade
 * becomes a stacked row (style.css, `table.stack`) that leads with status, instrument and P&L, each cell labelled.
 * `accountCurrency` names an account's currency, for a trade that does not say its own.
 */
export function tradesTable(
  trades: Trade[],
  options: { showAccount: boolean; accountCurrency: (accountId: string) => string | undefined },
): HTMLTableElement {
  const columns = COLUMNS.filter((column) => options.showAccount || column.label !== 'Account');
  const currencies = new Map(trades.map((trade) => [trade, currencyOf(trade, options.accountCurrency)]));
  const places: Places = {
    units: perInstrument(trades, (trade) => columnPlaces([trade.units])),
    price: perInstrument(trades, (trade) => pricePlaces([trade.openPrice, trade.closePrice])),
    realizedPL: placesByCurrency(trades.map((trade) => [currencies.get(trade), trade.realizedPL])),
    unrealizedPL: placesByCurrency(trades.map((trade) => [currencies.get(trade), trade.unrealizedPL])),
  };
  return h(
    'table',
    { class: 'trades stack' },
    h('thead', {}, h('tr', {}, ...columns.map((column) => h('th', { scope: 'col', class: column.num ? 'num' : null }, column.label)))),
    h(
      'tbody',
      {},
      ...trades.map((trade) =>
        h(
          'tr',
          { 'data-trade': `${trade.accountId}/${trade.id}`, 'data-status': trade.status },
          ...columns.map((column) =>
            h(
              'td',
              {
                class: [column.num ? 'num' : '', column.key ? 'key' : '', column.time ? 'time' : ''].join(' ').trim() || null,
                'data-label': column.label,
              },
              column.cell(trade, places, currencies.get(trade)),
            ),
          ),
        ),
      ),
    ),
  );
}

/** `2026-11-01T09:30` (a datetime-local input, read as UTC) → `2026-11-01T09:30:00Z`; and back. */
const toApiTime = (local: string) => (local ? `${local.length === 16 ? `${local}:00` : local}Z` : '');
const toInputTime = (api: string) => api.replace(/Z$/, '').replace(/:00$/, '').slice(0, 19);

export function tradesView(main: HTMLElement, query: URLSearchParams, navigate: (hash: string) => void): View {
  const account = query.get('account') ?? '';
  const filters = {
    status: query.get('status') ?? '',
    instrument: query.get('instrument') ?? '',
    from: query.get('from') ?? '',
    to: query.get('to') ?? '',
  };

  const accountSelect = h('select', { id: 'f-account', name: 'account' }, h('option', { value: '' }, 'All accounts'));
  const statusSelect = h(
    'select',
    { id: 'f-status', name: 'status' },
    ...[
      ['', 'Any status'],
      ['open', 'Open'],
      ['closed', 'Closed'],
      ['gone', 'Gone from the bot'],
    ].map(([value, label]) => h('option', { value, selected: value === filters.status }, label)),
  );
  const instrumentInput = h('input', {
    id: 'f-instrument',
    name: 'instrument',
    value: filters.instrument,
    placeholder: 'EUR_USD',
    autocomplete: 'off',
    size: 10,
  });
  const fromInput = h('input', { id: 'f-from', name: 'from', type: 'datetime-local', step: 1, value: toInputTime(filters.from) });
  const toInput = h('input', { id: 'f-to', name: 'to', type: 'datetime-local', step: 1, value: toInputTime(filters.to) });
  const form = h(
    'form',
    { class: 'filters', 'aria-label': 'Trade filters' },
    h('p', {}, h('label', { for: 'f-account' }, 'Account'), accountSelect),
    h('p', {}, h('label', { for: 'f-status' }, 'Status'), statusSelect),
    h('p', {}, h('label', { for: 'f-instrument' }, 'Instrument'), instrumentInput),
    h('p', {}, h('label', { for: 'f-from' }, 'Opened from (UTC)'), fromInput),
    h('p', {}, h('label', { for: 'f-to' }, 'Opened before (UTC)'), toInput),
    h('p', { class: 'actions' }, h('button', { type: 'submit' }, 'Apply'), h('button', { type: 'reset' }, 'Clear')),
  );
  const counter = h('p', { class: 'summary', 'data-testid': 'trade-count', 'aria-live': 'polite' });
  const tableBox = h('div', { class: 'table-wrap' });
  const more = h('button', { type: 'button', class: 'more', hidden: true }, 'Load more');
  const download = h('button', { type: 'button', class: 'download' }, 'Download CSV');
  const downloading = h('span', { class: 'note', 'data-testid': 'download-status', 'aria-live': 'polite' });
  const problem = h('p', { class: 'problem', role: 'alert' });
  fill(
    main,
    h(
      'section',
      { 'aria-labelledby': 'trades-title' },
      h('h2', { id: 'trades-title' }, 'Trades'),
      form,
      problem,
      counter,
      tableBox,
      h('p', {}, more, ' ', download, ' ', downloading),
    ),
  );

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const next = new URLSearchParams();
    const chosen: [string, string][] = [
      ['account', accountSelect.value],
      ['status', statusSelect.value],
      ['instrument', instrumentInput.value.trim()],
      ['from', toApiTime(fromInput.value)],
      ['to', toApiTime(toInput.value)],
    ];
    for (const [name, value] of chosen) if (value) next.set(name, value);
    navigate(tradesHash(next));
  });
  form.addEventListener('reset', (event) => {
    event.preventDefault();
    navigate(tradesHash(new URLSearchParams()));
  });

  let trades: Trade[] = [];
  /** Each account's currency, for a trade that does not say its own (before API 1.5). */
  let currencies = new Map<string, string>();
  let cursor: string | null = null;
  let pages = 0;

  function params(extra: Record<string, string> = {}) {
    const q: Record<string, string> = { limit: PAGE, ...extra };
    for (const [name, value] of Object.entries(filters)) if (value) q[name] = value;
    return q;
  }

  async function page(after: string | null): Promise<TradePage> {
    const query = params(after ? { cursor: after } : {});
    const result = account
      ? await api().GET('/api/{account}/trades', { params: { path: { account }, query } })
      : await api().GET('/api/all/trades', { params: { query } });
    return unwrap(result);
  }

  function render() {
    fill(
      tableBox,
      trades.length
        ? tradesTable(trades, { showAccount: !account, accountCurrency: (id) => currencies.get(id) })
        : h('p', { class: 'note' }, 'No trades match these filters.'),
    );
    fill(counter, `Showing ${trades.length} trade${trades.length === 1 ? '' : 's'}${cursor ? ' (more available)' : ''}.`);
    more.hidden = !cursor;
  }

  async function first() {
    if (pages > 1) return;
    const result = await page(null);
    trades = result.trades;
    cursor = result.nextCursor;
    pages = 1;
    fill(problem);
    render();
  }

  more.addEventListener('click', async () => {
    if (!cursor) return;
    more.disabled = true;
    try {
      const result = await page(cursor);
      trades = [...trades, ...result.trades];
      cursor = result.nextCursor;
      pages += 1;
      render();
      // Keyboard users continue where the new rows begin.
      tableBox.querySelectorAll('tbody tr')[trades.length - result.trades.length]?.querySelector<HTMLElement>('a, td')?.focus?.();
    } catch (error) {
      fill(problem, (error as Error).message);
    } finally {
      more.disabled = false;
    }
  });

  // The listing as the API writes it (exact strings, every page, one header row), saved by the browser; nothing of it
  // is kept by the page once the file is handed over.
  download.addEventListener('click', async () => {
    download.disabled = true;
    fill(downloading, 'Preparing the file…');
    try {
      const query: Record<string, string> = { format: 'csv' };
      for (const [name, value] of Object.entries(filters)) if (value) query[name] = value;
      const chunks: string[] = [];
      const pages = account
        ? api().csvPages('/api/{account}/trades', { params: { path: { account }, query } })
        : api().csvPages('/api/all/trades', { params: { query } });
      for await (const chunk of pages) {
        chunks.push(chunk);
        fill(downloading, `Preparing the file… ${chunks.length} page${chunks.length === 1 ? '' : 's'}`);
      }
      const url = URL.createObjectURL(new Blob(chunks, { type: 'text/csv;charset=utf-8' }));
      const link = h('a', { href: url, download: `trades-${account || 'all'}-${new Date().toISOString().slice(0, 10)}.csv`, hidden: true });
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      fill(downloading, 'Downloaded.');
    } catch (error) {
      fill(downloading);
      fill(problem, (error as Error).message);
    } finally {
      download.disabled = false;
    }
  });

  async function loadAccounts() {
    const { accounts } = unwrap(await api().GET('/api/accounts'));
    currencies = new Map(accounts.map((entry) => [entry.id, entry.currency]));
    fill(
      accountSelect,
      h('option', { value: '' }, 'All accounts'),
      ...accounts.map((entry) => h('option', { value: entry.id, selected: entry.id === account }, `${entry.name} (${entry.id})`)),
    );
  }

  return {
    schedules: [
      { every: 300_000, run: loadAccounts },
      { every: 30_000, run: first },
    ],
    onError: (message) => fill(problem, message),
  };
}
