/**
 * The trade history: filters (account, status, instrument, a time window in UTC) that live in the URL, so a view
 * can be shared; pages of 50 followed by cursor with "Load more"; amounts exactly as the API sends them. The first
 * page refreshes every 30 s while no further page is loaded (a loaded page is never reshuffled under the reader).
 */
import type { Trade, TradePage } from '../../../client';
import { api, unwrap } from '../api';
import { fill, h } from '../dom';
import { amount, utc } from '../format';
import { tradesHash } from '../router';
import type { View } from './view';

const PAGE = '50';
const NUMERIC = new Set(['Units', 'Open price', 'Close price', 'Realized P&L', 'Unrealized P&L']);

/** A table of trades; newest first, as the API lists them. */
export function tradesTable(trades: Trade[], options: { showAccount: boolean }): HTMLTableElement {
  const headers = ['Opened', ...(options.showAccount ? ['Account'] : []), 'Instrument', 'Side', 'Units', 'Status', 'Open price', 'Close price', 'Closed', 'Realized P&L', 'Unrealized P&L'];
  return h(
    'table',
    { class: 'trades' },
    h('thead', {}, h('tr', {}, ...headers.map((label) => h('th', { scope: 'col', class: NUMERIC.has(label) ? 'num' : null }, label)))),
    h('tbody', {}, ...trades.map((trade) => tradeRow(trade, options.showAccount))),
  );
}

function tradeRow(trade: Trade, showAccount: boolean): HTMLTableRowElement {
  return h(
    'tr',
    { 'data-trade': `${trade.accountId}/${trade.id}`, 'data-status': trade.status },
    h('td', {}, utc(trade.openTime)),
    showAccount ? h('td', {}, h('a', { href: `#/account/${encodeURIComponent(trade.accountId)}` }, trade.accountId)) : null,
    h('td', {}, trade.instrument),
    h('td', {}, trade.side),
    h('td', { class: 'num' }, trade.units),
    h('td', {}, h('span', { class: `badge ${trade.status}` }, trade.status)),
    h('td', { class: 'num' }, trade.openPrice),
    h('td', { class: 'num' }, trade.closePrice ?? '—'),
    h('td', {}, utc(trade.closeTime)),
    h('td', { class: 'num' }, amount(trade.realizedPL, undefined, { signed: true })),
    h('td', { class: 'num' }, amount(trade.unrealizedPL, undefined, { signed: true })),
  );
}

/** `2026-11-01T09:30` (a datetime-local input, read as UTC) → `2026-11-01T09:30:00Z`; and back. */
const toApiTime = (local: string) => (local ? `${local.length === 16 ? `${local}:00` : local}Z` : '');
const toInputTime = (api: string) => api.replace(/Z$/, '').replace(/:00$/, '').slice(0, 19);

export function tradesView(main: HTMLElement, query: URLSearchParams, navigate: (hash: string) => void): View {
  const account = query.get('account') ?? '';
  const filters = { status: query.get('status') ?? '', instrument: query.get('instrument') ?? '', from: query.get('from') ?? '', to: query.get('to') ?? '' };

  const accountSelect = h('select', { id: 'f-account', name: 'account' }, h('option', { value: '' }, 'All accounts'));
  const statusSelect = h('select', { id: 'f-status', name: 'status' }, ...[['', 'Any status'], ['open', 'Open'], ['closed', 'Closed']].map(([value, label]) => h('option', { value, selected: value === filters.status }, label)));
  const instrumentInput = h('input', { id: 'f-instrument', name: 'instrument', value: filters.instrument, placeholder: 'EUR_USD', autocomplete: 'off', size: 10 });
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
  const problem = h('p', { class: 'problem', role: 'alert' });
  fill(main, h('section', { 'aria-labelledby': 'trades-title' }, h('h2', { id: 'trades-title' }, 'Trades'), form, problem, counter, tableBox, h('p', {}, more)));

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
    fill(tableBox, trades.length ? tradesTable(trades, { showAccount: !account }) : h('p', { class: 'note' }, 'No trades match these filters.'));
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

  async function loadAccounts() {
    const { accounts } = unwrap(await api().GET('/api/accounts'));
    fill(accountSelect, h('option', { value: '' }, 'All accounts'), ...accounts.map((entry) => h('option', { value: entry.id, selected: entry.id === account }, `${entry.name} (${entry.id})`)));
  }

  return {
    schedules: [
      { every: 300_000, run: loadAccounts },
      { every: 30_000, run: first },
    ],
    onError: (message) => fill(problem, message),
  };
}

