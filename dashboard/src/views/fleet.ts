/**
 * The fleet: one card per bot (state, stale and error called out, heartbeat age counting up, open trades, balance,
 * NAV, today's realized P&L), the counts per state, and totals per currency, never converted, with the win rate and
 * profit factor of the last 90 days (one request for the fleet, every 60 s). Status and balances
 * refresh every 5 s with If-None-Match; today's P&L every 30 s (one small request per account).
 */
import type { AccountStatus, Balance, components } from '../../../client';
import { api, unwrap } from '../api';
import { fill, h } from '../dom';
import { age, amount, columnPlaces, daysAgo, percent, startOfTodayUtc, utc } from '../format';
import type { View } from './view';

type Total = components['schemas']['Total'];
type Account = components['schemas']['Account'];

export function fleetView(main: HTMLElement): View {
  const summary = h('p', { class: 'summary', 'data-testid': 'summary' }, 'Loading…');
  const cards = h('div', { class: 'cards', 'data-testid': 'fleet' });
  const totals = h('div', { class: 'table-wrap' });
  const problem = h('p', { class: 'problem', role: 'alert' });
  fill(
    main,
    h('section', { 'aria-labelledby': 'fleet-title' }, h('h2', { id: 'fleet-title' }, 'Fleet'), summary, problem, cards),
    h(
      'section',
      { 'aria-labelledby': 'totals-title' },
      h('h2', { id: 'totals-title' }, 'Totals per currency'),
      h('p', { class: 'note' }, 'Summed exactly within each currency; currencies are never converted or added together.'),
      totals,
    ),
  );

  let names = new Map<string, string>();
  let today = new Map<string, string>();
  /** When each status was read, to count heartbeat ages up from what the server computed (no client clock skew). */
  let statusAt = performance.now();
  let statuses: AccountStatus[] = [];
  let balances = new Map<string, Balance>();
  /** Win rate and profit factor over 90 days, per currency (one request for the fleet). */
  let ratios = new Map<string, { winRate: string | null; profitFactor: string | null }>();
  let lastTotals: Total[] = [];

  async function loadPerformance() {
    const data = unwrap(await api().GET('/api/all/performance', { params: { query: { from: daysAgo(89) } } }));
    ratios = new Map(data.currencies.map((row) => [row.currency, { winRate: row.winRate, profitFactor: row.profitFactor }]));
  }

  async function loadNames() {
    const { accounts } = unwrap(await api().GET('/api/accounts'));
    names = new Map(accounts.map((account: Account) => [account.id, account.name]));
  }

  async function loadToday() {
    const from = startOfTodayUtc();
    const entries = await Promise.all(
      statuses.map(async (status) => {
        const { data } = await api().GET('/api/{account}/pnl', { params: { path: { account: status.accountId }, query: { from } } });
        return [status.accountId, data?.points.at(-1)?.realizedPL ?? ''] as const;
      }),
    );
    today = new Map(entries.filter(([, value]) => value !== ''));
  }

  async function refresh() {
    const [status, balance] = await Promise.all([api().GET('/api/all/status'), api().GET('/api/all/balance')]);
    const fleet = unwrap(status);
    const all = unwrap(balance);
    statusAt = performance.now();
    statuses = fleet.accounts;
    balances = new Map(all.accounts.map((entry) => [entry.accountId, entry]));
    if (statuses.some((entry) => !names.has(entry.accountId))) await loadNames();
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
  }

  function render() {
    fill(cards, ...statuses.map(card));
  }

  function card(status: AccountStatus): HTMLElement {
    const balance = balances.get(status.accountId);
    // One number of places for the card's amounts, so they line up.
    const places = columnPlaces([balance?.balance, balance?.nav, today.get(status.accountId)]);
    const attention = status.stale ? 'stale' : status.state === 'error' ? 'error' : '';
    return h(
      'article',
      {
        class: `card state-${status.state} ${attention}`,
        'data-account': status.accountId,
        'data-state': status.state,
        'data-stale': String(status.stale),
      },
      h('h3', {}, h('a', { href: `#/account/${encodeURIComponent(status.accountId)}` }, names.get(status.accountId) ?? status.accountId)),
      h(
        'p',
        { class: 'badges' },
        h('span', { class: `badge ${status.state}` }, status.state),
        status.stale ? h('span', { class: 'badge stale' }, 'stale') : null,
        h('span', { class: 'muted' }, status.accountId),
      ),
      status.message ? h('p', { class: 'message' }, status.message) : null,
      h(
        'dl',
        {},
        h('dt', {}, 'Heartbeat'),
        h(
          'dd',
          { 'data-age': status.heartbeatAgeSeconds ?? '' },
          status.heartbeatAgeSeconds === null ? 'never' : `${age(status.heartbeatAgeSeconds)} ago`,
        ),
        h('dt', {}, 'Open trades'),
        h('dd', {}, String(status.openTradeCount)),
        h('dt', {}, 'Balance'),
        h('dd', {}, amount(balance?.balance, balance?.currency, { places })),
        h('dt', {}, 'NAV'),
        h('dd', {}, amount(balance?.nav, balance?.currency, { places })),
        h('dt', {}, 'Realized today'),
        h(
          'dd',
          {},
          today.has(status.accountId)
            ? amount(today.get(status.accountId), balance?.currency, { signed: true, places })
            : h('span', { class: 'muted' }, '…'),
        ),
        h('dt', {}, 'Last trade'),
        h('dd', {}, utc(status.lastTradeAt)),
      ),
    );
  }

  /** The totals, one row per currency; each amount column padded to one number of places; stacked on a phone. */
  function renderTotals(rows: Total[]) {
    const amounts = (['balance', 'nav', 'unrealizedPL', 'realizedPL'] as const).map((field) => ({
      field,
      places: columnPlaces(rows.map((row) => row[field])),
    }));
    const labels: Record<(typeof amounts)[number]['field'], string> = {
      balance: 'Balance',
      nav: 'NAV',
      unrealizedPL: 'Unrealized P&L',
      realizedPL: 'Realized P&L',
    };
    const signed = new Set(['unrealizedPL', 'realizedPL']);
    fill(
      totals,
      h(
        'table',
        { class: 'stack', 'data-testid': 'totals' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ...[
              'Currency',
              'Accounts',
              ...amounts.map(({ field }) => labels[field]),
              'Open trades',
              'Win rate (90 d)',
              'Profit factor (90 d)',
            ].map((label, i) => h('th', { scope: 'col', class: i ? 'num' : null }, label)),
          ),
        ),
        h(
          'tbody',
          {},
          ...rows.map((row) =>
            h(
              'tr',
              {},
              h('th', { scope: 'row', class: 'key', 'data-label': 'Currency' }, row.currency),
              h('td', { class: 'num', 'data-label': 'Accounts' }, String(row.accountCount)),
              ...amounts.map(({ field, places }) =>
                h(
                  'td',
                  { class: 'num', 'data-label': labels[field] },
                  amount(row[field], undefined, { signed: signed.has(field), places }),
                ),
              ),
              h('td', { class: 'num', 'data-label': 'Open trades' }, String(row.openTradeCount)),
              h('td', { class: 'num', 'data-label': 'Win rate (90 d)' }, percent(ratios.get(row.currency)?.winRate)),
              h('td', { class: 'num', 'data-label': 'Profit factor (90 d)' }, ratios.get(row.currency)?.profitFactor ?? '—'),
            ),
          ),
        ),
      ),
    );
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
      {
        every: 30_000,
        run: async () => {
          await loadToday();
          render();
        },
      },
      {
        every: 60_000,
        run: async () => {
          await loadPerformance();
          renderTotals(lastTotals);
        },
      },
      { every: 1_000, run: async () => tick(), quiet: true },
    ],
    onError: (message) => fill(problem, message),
  };
}
