/**
 * The fleet: one card per bot (state, stale and error called out, heartbeat age counting up, open trades, balance,
 * NAV, today's realized P&L), the counts per state, and totals per currency, never converted, with the win rate and
 * profit factor of the last 90 days (one request for the fleet, every 60 s). Status and balances refresh every 5 s
 * with If-None-Match (an unchanged fleet costs the API a few reads, whatever its size).
 *
 * Built for a thousand bots: problems first (error, then stale, then stopped), a filter by state and a search by
 * name or id, and PAGE_SIZE cards a page, so the page draws the same few cards at any fleet size. Today's P&L is
 * asked for the cards shown only (one small request each, every 30 s).
 *
 * Figures of one moment stand together, and each group says when it was read: the cards' open trades, balance and
 * NAV come from the same balances answer as the totals (a card and its totals row never disagree), their states and
 * heartbeats from the status read with it; today's P&L and the 90 days' ratios say their own times. Every label
 * says its period ("today (UTC)", "all time", "90 d").
 *
 * Every amount says its currency and is written as that currency is (format.ts): a card's figures each at its own
 * places (a USDT balance of 8 places does not pad the day's `0 USDT`); the totals one row per currency, never added
 * together.
 */
import type { AccountStatus, Balance, components } from '../../../client';
import { api, unwrap } from '../api';
import { type Attributes, type Child, fill, h, on, options, section, type StackColumn, stackTable } from '../dom';
import { age, daysAgo, money, percent, utc } from '../format';
import { renderReporting } from './reporting';
import type { View } from './view';

type Total = components['schemas']['Total'];
type Account = components['schemas']['Account'];

const PAGE_SIZE = 24;

/** Problems first: an error, then a stale bot, then a stopped one; then paused, then running. */
function rank(status: AccountStatus): number {
  if (status.state === 'error') return 0;
  if (status.stale) return 1;
  return { stopped: 2, paused: 3, running: 4, error: 0 }[status.state];
}

const FILTERS = {
  all: { label: 'All bots', keep: () => true },
  problems: { label: 'Needing attention', keep: (s: AccountStatus) => rank(s) <= 2 },
  error: { label: 'In error', keep: (s: AccountStatus) => s.state === 'error' },
  stale: { label: 'Stale', keep: (s: AccountStatus) => s.stale },
  stopped: { label: 'Stopped', keep: (s: AccountStatus) => s.state === 'stopped' },
  paused: { label: 'Paused', keep: (s: AccountStatus) => s.state === 'paused' },
  running: { label: 'Running', keep: (s: AccountStatus) => s.state === 'running' },
} as const;
type Filter = keyof typeof FILTERS;

export function fleetView(main: HTMLElement): View {
  const summary = h('p', { class: 'summary', 'data-testid': 'summary' }, 'Loading…');
  const cards = h('div', { class: 'cards', 'data-testid': 'fleet' });
  const stateSelect = h(
    'select',
    { id: 'fleet-state', name: 'state' },
    ...options(Object.entries(FILTERS).map(([value, { label }]) => [value, label])),
  );
  const search = h('input', { id: 'fleet-search', name: 'search', type: 'search', placeholder: 'Name or id', autocomplete: 'off' });
  const shown = h('p', { class: 'note', 'data-testid': 'shown', 'aria-live': 'polite' });
  const previous = h('button', { type: 'button', 'data-testid': 'previous' }, 'Previous');
  const next = h('button', { type: 'button', 'data-testid': 'next' }, 'Next');
  const controls = h(
    'div',
    { class: 'filters fleet-filters' },
    h('p', {}, h('label', { for: 'fleet-state' }, 'Show'), stateSelect),
    h('p', {}, h('label', { for: 'fleet-search' }, 'Search'), search),
    h('p', { class: 'actions' }, previous, next),
  );
  let filter: Filter = 'all';
  let query = '';
  let page = 0;
  // Each control changes what is shown, then the page is drawn again.
  on(stateSelect, 'change', () => ([filter, page] = [stateSelect.value as Filter, 0]), showPage);
  on(search, 'input', () => ([query, page] = [search.value.trim().toLowerCase(), 0]), showPage);
  on(previous, 'click', () => (page = Math.max(0, page - 1)), showPage);
  on(next, 'click', () => (page += 1), showPage);
  const totals = h('div', { class: 'table-wrap' });
  const moment = h('p', { class: 'note', 'data-testid': 'fleet-moment' });
  const oldest = h('span', { 'data-testid': 'oldest-balance' });
  const reporting = h('p', { class: 'note', 'data-testid': 'reporting-total' });
  const problem = h('p', { class: 'problem', role: 'alert' });
  fill(
    main,
    section('h2', 'fleet', 'Fleet', summary, moment, problem, controls, shown, cards),
    section(
      'h2',
      'totals',
      'Totals per currency',
      h('p', { class: 'note' }, 'Summed exactly within each currency; currencies are never converted or added together. ', oldest),
      totals,
      reporting,
    ),
  );

  /** Each account by id: its name, and its currency for a card whose balance has not come yet (its day's P&L says it). */
  let accounts = new Map<string, Account>();
  const nameOf = (id: string) => accounts.get(id)?.name ?? id;
  const today = new Map<string, string>();
  /** When each status was read, to count heartbeat ages up from what the server computed (no client clock skew). */
  let statusAt = performance.now();
  let statuses: AccountStatus[] = [];
  let balances = new Map<string, Balance>();
  /**
   * Win rate and profit factor over 90 days, per currency (one request for the fleet, on a schedule of its own);
   * undefined until its first answer, shown as "…" meanwhile: "—" is a currency without a closed trade.
   */
  let ratios: Map<string, { winRate: string | null; profitFactor: string | null }> | undefined;
  let lastTotals: Total[] = [];
  /** When each group of figures was read (ISO), said above the cards. */
  const readAt: { fleet?: string; today?: string; ratios?: string } = {};

  function sayMoments() {
    const at = (time: string | undefined) => (time ? utc(time) : '…');
    fill(
      moment,
      `States, open trades, balances and totals read together at ${at(readAt.fleet)}; today’s P&L at ${at(readAt.today)}; win rate and profit factor (90 d) at ${at(readAt.ratios)}.`,
    );
  }

  async function loadPerformance() {
    const data = unwrap(await api().GET('/api/all/performance', { params: { query: { from: daysAgo(89) } } }));
    ratios = new Map(data.currencies.map((row) => [row.currency, { winRate: row.winRate, profitFactor: row.profitFactor }]));
    readAt.ratios = new Date().toISOString();
    sayMoments();
  }

  async function loadNames() {
    accounts = new Map(unwrap(await api().GET('/api/accounts')).accounts.map((account) => [account.id, account]));
  }

  /** Today's realized P&L of the cards on the page (not of the whole fleet: one small request per card). */
  async function loadToday() {
    const from = `${new Date().toISOString().slice(0, 10)}T00:00:00Z`;
    const entries = await Promise.all(
      visible().map(async (status) => {
        const { data } = await api().GET('/api/{account}/pnl', { params: { path: { account: status.accountId }, query: { from } } });
        return [status.accountId, data?.points.at(-1)?.realizedPL ?? ''] as const;
      }),
    );
    for (const [id, value] of entries) if (value !== '') today.set(id, value);
    readAt.today = new Date().toISOString();
    sayMoments();
  }

  async function refresh() {
    const [status, balance] = await Promise.all([api().GET('/api/all/status'), api().GET('/api/all/balance')]);
    const fleet = unwrap(status);
    const all = unwrap(balance);
    statusAt = performance.now();
    readAt.fleet = new Date().toISOString();
    sayMoments();
    fill(oldest, all.asOf ? `The oldest balance figure among them was reported ${utc(all.asOf)}.` : '');
    statuses = fleet.accounts;
    balances = new Map(all.accounts.map((entry) => [entry.accountId, entry]));
    if (statuses.some((entry) => !accounts.has(entry.accountId))) await loadNames();
    const { total, running, paused, stopped, error, stale } = fleet.summary;
    fill(
      summary,
      `${total} bots: ${running} running · ${paused} paused · ${stopped} stopped · ${error} in error · `,
      h('strong', {}, `${stale} stale`),
    );
    fill(problem);
    render();
    lastTotals = all.totals;
    renderTotals(all.totals);
    renderReporting(reporting, all.reporting);
  }

  /** The statuses the filter and the search keep, problems first, then by name. */
  function kept(): AccountStatus[] {
    return statuses
      .filter(FILTERS[filter].keep)
      .filter(({ accountId }) => !query || nameOf(accountId).toLowerCase().includes(query) || accountId.toLowerCase().includes(query))
      .sort((a, b) => rank(a) - rank(b) || nameOf(a.accountId).localeCompare(nameOf(b.accountId)) || (a.accountId < b.accountId ? -1 : 1));
  }

  /** The cards of the current page. */
  function visible(): AccountStatus[] {
    const all = kept();
    page = Math.min(page, Math.max(0, Math.ceil(all.length / PAGE_SIZE) - 1));
    return all.slice(page * PAGE_SIZE, (page + 1) * PAGE_SIZE);
  }

  function render() {
    const total = kept().length;
    const cardsShown = visible();
    const first = page * PAGE_SIZE;
    fill(
      shown,
      total === 0
        ? 'No bot matches.'
        : `Showing ${first + 1}–${first + cardsShown.length} of ${total}${total === statuses.length ? '' : ` (of ${statuses.length} bots)`}, problems first.`,
    );
    previous.disabled = page === 0;
    next.disabled = first + cardsShown.length >= total;
    fill(cards, ...cardsShown.map(card));
  }

  /** A new page, filter or search: draw it, then fetch today's P&L of its cards. */
  function showPage() {
    render();
    void loadToday().then(render, () => undefined);
  }

  /**
   * A bot the statuses list but the balances do not yet: every account has a balance from its creation (zero until
   * its first snapshot), so it is on its way (the fleet's two answers are projected a moment apart), not absent: "…",
   * never "—".
   */
  const notYet = () => h('span', { class: 'muted', title: 'not in the balances yet' }, '…');

  function card(status: AccountStatus): HTMLElement {
    const balance = balances.get(status.accountId);
    const currency = balance?.currency ?? accounts.get(status.accountId)?.currency;
    const attention = status.stale ? 'stale' : status.state === 'error' ? 'error' : '';
    const heartbeat = status.heartbeatAgeSeconds;
    const figures: [Child | Child[], Child, Attributes?][] = [
      ['Heartbeat', heartbeat === null ? 'never' : `${age(heartbeat)} ago`, { 'data-age': heartbeat ?? '' }],
      // The balances' count, as the totals sum it: one answer for both.
      ['Open trades', String(balance?.openTradeCount ?? status.openTradeCount)],
      ['Balance', balance ? money(balance.balance, currency) : notYet()],
      ['NAV', balance ? money(balance.nav, currency) : notYet()],
      // Its period on a line of its own: the labels' column stays as wide as "Realized today", leaving the figures their room.
      [
        ['Realized today ', h('span', { class: 'period' }, '(UTC)')],
        today.has(status.accountId) ? money(today.get(status.accountId), currency, { signed: true }) : h('span', { class: 'muted' }, '…'),
      ],
      ['Last trade', utc(status.lastTradeAt)],
    ];
    return h(
      'article',
      {
        class: `card state-${status.state} ${attention}`,
        'data-account': status.accountId,
        'data-state': status.state,
        'data-stale': String(status.stale),
      },
      h('h3', {}, h('a', { href: `#/account/${encodeURIComponent(status.accountId)}` }, nameOf(status.accountId))),
      h(
        'p',
        { class: 'badges' },
        h('span', { class: `badge ${status.state}` }, status.state),
        status.stale ? h('span', { class: 'badge stale' }, 'stale') : null,
        h('span', { class: 'muted' }, status.accountId),
      ),
      status.message ? h('p', { class: 'message' }, status.message) : null,
      h('dl', {}, ...figures.flatMap(([term, value, attributes = {}]) => [h('dt', {}, term), h('dd', attributes, value)])),
    );
  }

  /**
   * The totals, one row per currency, each amount at its row's currency's places (one row per currency: a column
   * lines up within a currency, never across); stacked on a phone.
   */
  function renderTotals(rows: Total[]) {
    // Each column after the currency: its label and its figure of a row.
    const columns: StackColumn<Total>[] = [
      ['Accounts', 'num', (row) => String(row.accountCount)],
      ['Balance', 'num', (row) => money(row.balance, row.currency)],
      ['NAV', 'num', (row) => money(row.nav, row.currency)],
      ['Unrealized P&L', 'num', (row) => money(row.unrealizedPL, row.currency, { signed: true })],
      ['Realized P&L, all time', 'num', (row) => money(row.realizedPL, row.currency, { signed: true })],
      ['Open trades', 'num', (row) => String(row.openTradeCount)],
      ['Win rate (90 d)', 'num', (row) => (ratios ? percent(ratios.get(row.currency)?.winRate) : '…')],
      ['Profit factor (90 d)', 'num', (row) => (ratios ? (ratios.get(row.currency)?.profitFactor ?? '—') : '…')],
    ];
    fill(totals, stackTable({ 'data-testid': 'totals' }, ['Currency', (row) => row.currency], columns, rows));
  }

  /** Counts each heartbeat age up between polls. */
  function tick() {
    const elapsed = (performance.now() - statusAt) / 1000;
    for (const cell of cards.querySelectorAll<HTMLElement>('dd[data-age]')) {
      if (cell.dataset.age === '') continue;
      cell.textContent = `${age(Number(cell.dataset.age) + elapsed)} ago`;
    }
  }

  return {
    schedules: [
      { every: 5_000, run: refresh },
      { every: 30_000, run: () => loadToday().then(render) },
      { every: 60_000, run: () => loadPerformance().then(() => renderTotals(lastTotals)) },
      { every: 1_000, run: async () => tick(), quiet: true },
    ],
    onError: (message) => fill(problem, message),
  };
}
