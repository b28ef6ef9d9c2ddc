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
import { ApiError, api, unwrap } from '../api';
import { fill, h, options, section } from '../dom';
import { amount, columnPlaces, money, placesByCurrency, pricePlaces, unknown, utc } from '../format';
import { tradesHash } from '../router';
import type { View } from './view';

const PAGE = '50';

interface Column {
  label: string;
  /** Right-aligned figures. */
  num?: boolean;
  /**
   * In a phone's compact row (instrument, side, status, P&L, time): what a glance needs; the rest shows when the row
   * is tapped. A P&L column is key for the trades it applies to: realized for a closed or gone trade, unrealized for
   * an open one.
   */
  key?: boolean | ((trade: Trade) => boolean);
  /** Only in a row's details (a tapped row), never as a column of the table. */
  detail?: boolean;
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

/** The fees as charged, each in its own currency (never converted); "none", or unknown when the source did not say. */
function feesOf(trade: Trade): Node | string {
  if (trade.fees === null) return unknown('The source did not say what fees were charged');
  if (!trade.fees.length) return 'none';
  return h('span', { class: 'fees' }, ...trade.fees.flatMap((fee, i) => [i ? ' + ' : '', money(fee.amount, fee.currency)]));
}

const price = (value: string | null, trade: Trade, places: Places) =>
  value === null ? '—' : amount(value, { places: places.price.get(trade.instrument) });

/** Why a gone trade's figures are unknown: the bot no longer has it (its database reset, the trade deleted). */
const goneWhy = (trade: Trade) => `Outcome unknown: ${trade.closeReason ?? 'the bot no longer has this trade'}`;

const profitOrLoss =
  (field: 'realizedPL' | 'unrealizedPL') =>
  (trade: Trade, places: Places, currency: string | undefined): Node =>
    trade.status === 'gone' ? unknown(goneWhy(trade)) : money(trade[field], currency, { signed: true, places: places[field](currency) });

const COLUMNS: Column[] = [
  { label: 'Opened (UTC)', key: true, time: true, cell: (trade) => utc(trade.openTime, { zone: false }) },
  { label: 'Account', cell: (trade) => h('a', { href: `#/account/${encodeURIComponent(trade.accountId)}` }, trade.accountId) },
  { label: 'Instrument', key: true, cell: (trade) => trade.instrument },
  { label: 'Side', key: true, cell: (trade) => trade.side },
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
  { label: 'Realized P&L', num: true, key: (trade) => trade.status !== 'open', cell: profitOrLoss('realizedPL') },
  { label: 'Unrealized P&L', num: true, key: (trade) => trade.status === 'open', cell: profitOrLoss('unrealizedPL') },
  { label: 'Fees', detail: true, cell: feesOf },
  { label: 'Close reason', detail: true, cell: (trade) => trade.closeReason ?? '—' },
  { label: 'Trade id', detail: true, cell: (trade) => trade.id },
];

const isKey = (column: Column, trade: Trade) => (typeof column.key === 'function' ? column.key(trade) : Boolean(column.key));

/** The most places `values(trade)` needs, per instrument. */
function perInstrument(trades: Trade[], places: (trade: Trade) => number): Map<string, number> {
  const most = new Map<string, number>();
  for (const trade of trades) most.set(trade.instrument, Math.max(most.get(trade.instrument) ?? 0, places(trade)));
  return most;
}

/**
 * A table of trades; newest first, as the API lists them. Every column fits from 1280 px up, and a tap (or Enter) on
 * a row shows its details in a row below it: its fees as charged, why it closed, its id. On a phone each trade is
 * one compact row (style.css, `table.stack`): instrument, side, status, its P&L (unrealized while open, realized once
 * closed) and when it opened; a tap shows every other figure, labelled. `accountCurrency` names an account's
 * currency, for a trade that does not say its own.
 */
export function tradesTable(
  trades: Trade[],
  options: { showAccount: boolean; accountCurrency: (accountId: string) => string | undefined },
): HTMLTableElement {
  const columns = COLUMNS.filter((column) => options.showAccount || column.label !== 'Account');
  // A trade's currency: its own (API 1.5), else its account's (a trade stored before 1.5, not yet backfilled).
  const currencies = new Map(trades.map((trade) => [trade, trade.currency ?? options.accountCurrency(trade.accountId)]));
  const places: Places = {
    units: perInstrument(trades, (trade) => columnPlaces([trade.units])),
    price: perInstrument(trades, (trade) => pricePlaces([trade.openPrice, trade.closePrice])),
    realizedPL: placesByCurrency(trades.map((trade) => [currencies.get(trade), trade.realizedPL])),
    unrealizedPL: placesByCurrency(trades.map((trade) => [currencies.get(trade), trade.unrealizedPL])),
  };
  const shown = columns.filter((column) => !column.detail);
  const detailed = columns.filter((column) => column.detail);
  const cellClass = (column: Column, trade: Trade) =>
    [column.num ? 'num' : '', isKey(column, trade) ? 'key' : '', column.time ? 'time' : ''].join(' ').trim() || null;
  const cell = (column: Column, trade: Trade) => column.cell(trade, places, currencies.get(trade));
  // A row's details, made when it is opened: the row count stays one per trade.
  const details = (trade: Trade) => {
    const terms = detailed.map((column) => h('div', {}, h('dt', {}, column.label), h('dd', {}, cell(column, trade))));
    return h(
      'tr',
      { class: 'details', 'data-details': `${trade.accountId}/${trade.id}` },
      h('td', { colspan: shown.length }, h('dl', {}, terms)),
    );
  };
  const row = (trade: Trade) => {
    const tr = h(
      'tr',
      { 'data-trade': `${trade.accountId}/${trade.id}`, 'data-status': trade.status, tabindex: 0, 'data-expanded': 'false' },
      ...shown.map((column) => h('td', { class: cellClass(column, trade), 'data-label': column.label }, cell(column, trade))),
    );
    const toggle = (event: Event) => {
      if ((event.target as Element).closest('a, button')) return;
      if (event instanceof KeyboardEvent && event.key !== 'Enter' && event.key !== ' ') return;
      event.preventDefault();
      const opened = tr.dataset.expanded !== 'true';
      tr.dataset.expanded = String(opened);
      if (opened) tr.after(details(trade));
      else if (tr.nextElementSibling?.classList.contains('details')) tr.nextElementSibling.remove();
    };
    tr.addEventListener('click', toggle);
    tr.addEventListener('keydown', toggle);
    return tr;
  };
  return h(
    'table',
    { class: 'trades stack' },
    h('thead', {}, h('tr', {}, ...shown.map((column) => h('th', { scope: 'col', class: column.num ? 'num' : null }, column.label)))),
    h('tbody', {}, ...trades.map(row)),
  );
}

/** `2026-11-01T09:30` (a datetime-local input, read as UTC) → `2026-11-01T09:30:00Z`; and back. */
const toApiTime = (local: string) => (local ? `${local.length === 16 ? `${local}:00` : local}Z` : '');
const toInputTime = (api: string) => api.replace(/Z$/, '').replace(/:00$/, '').slice(0, 19);

export function tradesView(main: HTMLElement, query: URLSearchParams): View {
  const [account, status, instrument, from, to] = ['account', 'status', 'instrument', 'from', 'to'].map((name) => query.get(name) ?? '');
  const filters = { status, instrument, from, to };
  // `all` in an account's place names every account (the API's /api/all/trades): one listing, one way to ask for it.
  const path = { account: account || 'all' };

  const accountSelect = h('select', { id: 'f-account', name: 'account' }, ...options([['', 'All accounts']]));
  const statuses: [string, string][] = [
    ['', 'Any status'],
    ['open', 'Open'],
    ['closed', 'Closed'],
    ['gone', 'Gone from the bot'],
  ];
  // A status the URL names that is none of these stays shown as it is (the API refuses it, and says so), never as "Any".
  if (!statuses.some(([value]) => value === filters.status)) statuses.push([filters.status, `${filters.status} (not a status)`]);
  const statusSelect = h('select', { id: 'f-status', name: 'status' }, ...options(statuses, filters.status));
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
  // Each filter's control by its query parameter, with its label: the form, what it submits and what the API refused.
  const controls: Record<string, [string, HTMLInputElement | HTMLSelectElement]> = {
    account: ['Account', accountSelect],
    status: ['Status', statusSelect],
    instrument: ['Instrument', instrumentInput],
    from: ['Opened from (UTC)', fromInput],
    to: ['Opened before (UTC)', toInput],
  };
  const form = h(
    'form',
    { class: 'filters', 'aria-label': 'Trade filters' },
    ...Object.values(controls).map(([label, control]) => h('p', {}, h('label', { for: control.id }, label), control)),
    h('p', { class: 'actions' }, h('button', { type: 'submit' }, 'Apply'), h('button', { type: 'reset' }, 'Clear')),
  );
  const active = Object.values(filters).filter(Boolean).length + (account ? 1 : 0);
  // On a phone the filters fold away (one line saying how many are set), so the first screen reaches the trades and
  // their actions; from 761 px they are always open.
  const filterBox = h(
    'details',
    { class: 'filter-box', open: window.matchMedia('(min-width: 761px)').matches || undefined },
    h('summary', {}, active ? `Filters (${active} set)` : 'Filters'),
    form,
  );
  const counter = h('span', { class: 'summary', 'data-testid': 'trade-count', 'aria-live': 'polite' });
  const tableBox = h('div', { class: 'table-wrap' });
  const more = h('button', { type: 'button', class: 'more', hidden: true }, 'Load more');
  const moreBelow = h('button', { type: 'button', class: 'more-below', hidden: true }, 'Load more');
  const mores = [more, moreBelow];
  const download = h('button', { type: 'button', class: 'download' }, 'Download CSV');
  const downloading = h('span', { class: 'note', 'data-testid': 'download-status', 'aria-live': 'polite' });
  const problem = h('p', { class: 'problem', role: 'alert' });
  fill(
    main,
    section(
      'h2',
      'trades',
      'Trades',
      filterBox,
      problem,
      // The actions above the list, where a phone's first screen shows them; "Load more" again below it.
      h('p', { class: 'toolbar', 'data-testid': 'trade-actions' }, counter, ' ', download, ' ', more, ' ', downloading),
      tableBox,
      h('p', {}, moreBelow),
    ),
  );

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const next = new URLSearchParams();
    for (const [name, [, control]] of Object.entries(controls)) {
      const value =
        control.type === 'datetime-local' ? toApiTime(control.value) : control === instrumentInput ? control.value.trim() : control.value;
      if (value) next.set(name, value);
    }
    window.location.hash = tradesHash(next);
  });
  form.addEventListener('reset', (event) => {
    event.preventDefault();
    window.location.hash = tradesHash(new URLSearchParams());
  });

  let trades: Trade[] = [];
  /** Each account's currency, for a trade that does not say its own (before API 1.5). */
  let currencies = new Map<string, string>();
  let cursor: string | null = null;
  let pages = 0;

  /** The filters set, as the API's query, after `extra`. */
  const params = (extra: Record<string, string>) => ({
    ...extra,
    ...Object.fromEntries(Object.entries(filters).filter(([, value]) => value)),
  });

  async function page(after: string | null): Promise<TradePage> {
    const query = params(after ? { limit: PAGE, cursor: after } : { limit: PAGE });
    return unwrap(await api().GET('/api/{account}/trades', { params: { path, query } }));
  }

  function render() {
    fill(
      tableBox,
      trades.length
        ? tradesTable(trades, { showAccount: !account, accountCurrency: (id) => currencies.get(id) })
        : h('p', { class: 'note' }, 'No trades match these filters.'),
    );
    fill(counter, `Showing ${trades.length} trade${trades.length === 1 ? '' : 's'}${cursor ? ' (more available)' : ''}.`);
    for (const button of mores) button.hidden = !cursor;
  }

  /** A listing the API refused: the controls it named say so, and there is nothing to list or export. */
  function refused(error: ApiError) {
    for (const name of error.parameters) controls[name]?.[1].setAttribute('aria-invalid', 'true');
    filterBox.open = true;
    trades = [];
    cursor = null;
    download.hidden = true;
    fill(
      tableBox,
      h('p', { class: 'note', 'data-testid': 'refused' }, 'Nothing listed: the API refused these filters. Change them and apply.'),
    );
    fill(counter);
    for (const button of mores) button.hidden = true;
  }

  async function first() {
    if (pages > 1) return;
    let result: TradePage;
    try {
      result = await page(null);
    } catch (error) {
      if (error instanceof ApiError && error.status === 400) refused(error);
      throw error;
    }
    trades = result.trades;
    cursor = result.nextCursor;
    pages = 1;
    fill(problem);
    render();
  }

  const loadMore = async () => {
    if (!cursor) return;
    for (const button of mores) button.disabled = true;
    try {
      const result = await page(cursor);
      trades = [...trades, ...result.trades];
      cursor = result.nextCursor;
      pages += 1;
      render();
      // Keyboard users continue where the new rows begin.
      tableBox.querySelectorAll<HTMLElement>('tbody tr[data-trade]')[trades.length - result.trades.length]?.focus?.();
    } catch (error) {
      fill(problem, (error as Error).message);
    } finally {
      for (const button of mores) button.disabled = false;
    }
  };
  for (const button of mores) button.addEventListener('click', loadMore);

  // The listing as the API writes it (exact strings, every page, one header row), saved by the browser; nothing of it
  // is kept by the page once the file is handed over.
  download.addEventListener('click', async () => {
    download.disabled = true;
    fill(downloading, 'Preparing the file…');
    try {
      const query = params({ format: 'csv' });
      const chunks: string[] = [];
      for await (const chunk of api().csvPages('/api/{account}/trades', { params: { path, query } })) {
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
      ...options([['', 'All accounts'], ...accounts.map((entry) => [entry.id, `${entry.name} (${entry.id})`] as const)], account),
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
