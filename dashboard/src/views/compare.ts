/**
 * Every bot side by side (`GET /api/all/comparison`, one request for the fleet, every 30 s with If-None-Match): its
 * state, NAV, return, realized P&L today and over 7 and 30 days, win rate, profit factor, drawdown and open trades,
 * over the same 30 UTC days, all read at one moment (said above the table). Sortable by any column (a click on its
 * heading, again to reverse, or with the "Sort by" controls a phone shows; unknown figures always last), filterable
 * by currency; the sort and the filter live in
 * the URL (`#/compare?sort=returnRatio&dir=desc&currency=USDT`). Amounts are each in their bot's own currency, never
 * converted: across currencies, the ratios compare. On a phone each bot is a block of labelled figures.
 */
import type { components } from '../../../client';
import { api, unwrap } from '../api';
import { type Attributes, fill, h, on, options, section, stackTable } from '../dom';
import { money, percent, utc } from '../format';
import type { View } from './view';

type Row = components['schemas']['ComparisonRow'];

interface Column {
  key: string;
  label: string;
  /** A text (name, currency, state): left-aligned, first sorted ascending; every other column is a figure. */
  text?: boolean;
  /** What the column sorts by: a text, or a number (null: unknown, always last). */
  value(row: Row): string | number | null;
  cell(row: Row): Node | string;
}

const signed = { signed: true };

const COLUMNS: Column[] = [
  {
    key: 'name',
    label: 'Bot',
    text: true,
    value: (row) => row.name.toLowerCase(),
    cell: (row) =>
      h(
        'span',
        {},
        h('a', { href: `#/account/${encodeURIComponent(row.accountId)}` }, row.name),
        h('span', { class: 'muted' }, ` ${row.accountId}`),
      ),
  },
  { key: 'currency', label: 'Currency', text: true, value: (row) => row.currency, cell: (row) => row.currency },
  {
    key: 'state',
    label: 'State',
    text: true,
    value: (row) => row.state,
    cell: (row) => h('span', { class: `badge ${row.state}` }, row.state),
  },
  { key: 'nav', label: 'NAV', value: (row) => row.nav, cell: (row) => money(row.nav, row.currency) },
  {
    key: 'returnRatio',
    label: 'Return, 30 d',
    value: (row) => row.returnRatio,
    cell: (row) =>
      row.returnRatio === null
        ? h('span', { class: 'muted', title: 'No balance at the window’s start' }, '—')
        : h('span', { class: 'ratio' }, percent(row.returnRatio)),
  },
  // Realized P&L over each of three periods: sorted by, and shown as, the same figure.
  ...(
    [
      ['today', 'Realized today'],
      ['last7Days', 'Realized, 7 d'],
      ['last30Days', 'Realized, 30 d'],
    ] as const
  ).map(
    ([key, label]): Column => ({
      key,
      label,
      value: (row) => row.realizedPL[key],
      cell: (row) => money(row.realizedPL[key], row.currency, signed),
    }),
  ),
  { key: 'winRate', label: 'Win rate, 30 d', value: (row) => row.winRate, cell: (row) => percent(row.winRate) },
  { key: 'profitFactor', label: 'Profit factor, 30 d', value: (row) => row.profitFactor, cell: (row) => row.profitFactor ?? '—' },
  {
    key: 'maxDrawdown',
    label: 'Max drawdown, 30 d',
    // Bots of different sizes and currencies compare by the share of equity lost; without it, the amount.
    value: (row) => row.maxDrawdown.ratio ?? null,
    cell: (row) =>
      h(
        'span',
        {},
        money(row.maxDrawdown.amount, row.currency),
        row.maxDrawdown.ratio === null ? '' : h('span', { class: 'muted' }, ` (${percent(row.maxDrawdown.ratio)})`),
      ),
  },
  { key: 'openTradeCount', label: 'Open trades', value: (row) => row.openTradeCount, cell: (row) => String(row.openTradeCount) },
];

/** Orders two sort values: numbers (decimal strings among them) by value, texts as text; an unknown is last either way. */
function order(a: string | number | null, b: string | number | null, descending: boolean): number {
  if (a === null || b === null) return a === b ? 0 : a === null ? 1 : -1;
  const [x, y] = typeof a === 'string' && Number.isNaN(Number(a)) ? [a, b] : [Number(a), Number(b)];
  const sign = x < y ? -1 : x > y ? 1 : 0;
  return descending ? -sign : sign;
}

export function compareView(main: HTMLElement, query: URLSearchParams): View {
  let sort = COLUMNS.some((column) => column.key === query.get('sort')) ? query.get('sort')! : 'returnRatio';
  let descending = (query.get('dir') ?? (sort === 'name' ? 'asc' : 'desc')) === 'desc';
  let currency = query.get('currency') ?? '';
  let rows: Row[] = [];

  const moment = h('p', { class: 'note', 'data-testid': 'compare-moment' }, 'Loading…');
  const currencySelect = h('select', { id: 'compare-currency', name: 'currency' });
  // The sort as controls too: a phone shows no column headings to click.
  const sortSelect = h('select', { id: 'compare-sort', name: 'sort' }, ...options(COLUMNS.map((each) => [each.key, each.label])));
  const dirSelect = h(
    'select',
    { id: 'compare-dir', name: 'dir' },
    ...options([
      ['desc', 'Highest first'],
      ['asc', 'Lowest first'],
    ]),
  );
  const tableBox = h('div', { class: 'table-wrap' });
  const problem = h('p', { class: 'problem', role: 'alert' });
  fill(
    main,
    section(
      'h2',
      'compare',
      'Compare bots',
      moment,
      h(
        'div',
        { class: 'filters fleet-filters' },
        h('p', {}, h('label', { for: 'compare-currency' }, 'Currency'), currencySelect),
        h('p', {}, h('label', { for: 'compare-sort' }, 'Sort by'), sortSelect),
        h('p', {}, h('label', { for: 'compare-dir' }, 'Order'), dirSelect),
      ),
      problem,
      tableBox,
      h(
        'p',
        { class: 'note' },
        'Amounts are in each bot’s own currency, never converted: across currencies, compare the return, win rate, profit factor and drawdown (a share of equity). Return: NAV now less NAV 30 days ago, deposits and withdrawals left out, on NAV 30 days ago; — when there was no balance then.',
      ),
    ),
  );

  on(sortSelect, 'change', () => (sort = sortSelect.value), render);
  on(dirSelect, 'change', () => (descending = dirSelect.value === 'desc'), render);
  on(currencySelect, 'change', () => (currency = currencySelect.value), render);

  /** The sort and the filter in the URL, without reopening the view. */
  function remember() {
    const next = new URLSearchParams({ sort, dir: descending ? 'desc' : 'asc' });
    if (currency) next.set('currency', currency);
    history.replaceState(null, '', `#/compare?${next}`);
  }

  function render() {
    remember();
    sortSelect.value = sort;
    dirSelect.value = descending ? 'desc' : 'asc';
    const codes = [...new Set(rows.map((row) => row.currency))].sort();
    fill(
      currencySelect,
      ...options(
        [['', 'All currencies'], ...[...new Set([...codes, ...(currency ? [currency] : [])])].map((code) => [code, code] as const)],
        currency,
      ),
    );
    const column = COLUMNS.find((each) => each.key === sort)!;
    const shown = rows
      .filter((row) => !currency || row.currency === currency)
      .sort((a, b) => order(column.value(a), column.value(b), descending) || (a.accountId < b.accountId ? -1 : 1));
    const head = (_label: string, index: number): [Attributes, Node] => {
      const each = COLUMNS[index];
      const button = h('button', { type: 'button', class: 'link sort', 'data-sort': each.key }, each.label);
      button.addEventListener('click', () => {
        descending = each.key === sort ? !descending : !each.text;
        sort = each.key;
        render();
      });
      return [
        { class: each.text ? null : 'num', 'aria-sort': each.key === sort ? (descending ? 'descending' : 'ascending') : null },
        button,
      ];
    };
    const [first, ...rest] = COLUMNS;
    fill(
      tableBox,
      shown.length
        ? stackTable(
            { class: 'stack compare', 'data-testid': 'comparison' },
            [first.label, first.cell],
            rest.map((each) => [each.label, each.text ? '' : 'num', each.cell]),
            shown,
            (row) => ({ 'data-account': row.accountId }),
            head,
          )
        : h('p', { class: 'note' }, rows.length ? 'No bot in this currency.' : 'No bots yet.'),
    );
  }

  async function load() {
    const data = unwrap(await api().GET('/api/all/comparison'));
    rows = data.accounts;
    fill(moment, `Every figure as of ${utc(data.asOf)}; the window is the last 30 UTC days, ${utc(data.from)} to now.`);
    fill(problem);
    render();
  }

  return { schedules: [{ every: 30_000, run: load }], onError: (message) => fill(problem, message) };
}
