/**
 * One account: its name, broker and environment, its balance figures and bot status, the equity chart (NAV and
 * balance, by day over 90 days or by hour over 7; the line breaks where an interval has no snapshot), daily realized
 * P&L as bars with the cumulative line (90 days), how it traded over 90 days (a summary and a row per instrument),
 * and its open trades. Each chart spans the window its note states, up to now. Every amount is in the account's
 * currency, says so, and is written as that currency is (format.ts): a fiat currency at its minor units, a crypto at
 * the places each figure needs (a table's column at the most its values need); the charts' axes name the currency.
 * Refreshes every 30 s. An account the API does not know gets a not-found message.
 */
import type { AccountPerformance, Trade } from '../../../client';
import { api, unwrap } from '../api';
import { chartWindow } from '../chart-data';
import { type Chart, equityChart, pnlChart } from '../charts';
import { fill, h, section, type StackColumn, stackTable } from '../dom';
import { age, currencyPlaces, daysAgo, duration, money, moneyText, percent, utc } from '../format';
import { reconciliationPanel } from './reconciliation';
import { tradesTable } from './trades';
import type { View } from './view';

/**
 * A chart's window in words, `2026-08-26 00:00:00 UTC to now (2026-11-23 10:15:03 UTC)`: "now" when chartWindow cut
 * the API's window (`apiTo`, the end of the current interval) short.
 */
function spanned([from, to]: [number, number], apiTo: string): string {
  const time = (value: number) => utc(new Date(value * 1000).toISOString());
  return `${time(from)} to ${to < Date.parse(apiTo) / 1000 ? `now (${time(to)})` : time(to)}`;
}

export function accountView(main: HTMLElement, account: string): View {
  const title = h('h2', { id: 'account-title' }, account);
  const identity = h('p', { class: 'identity', 'data-testid': 'account-identity' });
  const status = h('p', { class: 'badges', 'data-testid': 'account-status' });
  const figures = h('dl', { class: 'figures', 'data-testid': 'figures' });
  const equityBox = h('div', { class: 'chart', 'data-testid': 'equity-chart', role: 'img', 'aria-label': 'Equity chart' });
  const pnlBox = h('div', { class: 'chart', 'data-testid': 'pnl-chart', role: 'img', 'aria-label': 'Daily realized P&L chart' });
  const equityNote = h('p', { class: 'note' });
  const pnlNote = h('p', { class: 'note' });
  const open = h('div', { class: 'table-wrap' });
  const performanceBox = h('dl', { class: 'figures', 'data-testid': 'performance' });
  const perInstrument = h('div', { class: 'table-wrap' });
  const problem = h('p', { class: 'problem', role: 'alert' });
  const byHour = h('input', { type: 'checkbox', id: 'equity-hourly' });
  const reconciliation = reconciliationPanel(account);
  fill(
    main,
    h(
      'p',
      {},
      h('a', { href: '#/' }, '← Fleet'),
      ' · ',
      h('a', { href: `#/trades?account=${encodeURIComponent(account)}` }, 'All trades of this account'),
    ),
    h('section', { 'aria-labelledby': 'account-title' }, title, identity, status, problem, figures),
    section(
      'h3',
      'equity',
      'Equity',
      h('p', { class: 'control' }, byHour, h('label', { for: 'equity-hourly' }, ' Hourly, last 7 days (otherwise daily, last 90 days)')),
      equityBox,
      equityNote,
    ),
    section('h3', 'pnl', 'Realized P&L per day and running total, last 90 days', pnlBox, pnlNote),
    section('h3', 'performance', 'Performance, last 90 days', performanceBox, perInstrument),
    section('h3', 'open', 'Open trades', open),
    reconciliation.element,
  );

  const charts: Chart[] = [];
  let currency = '';

  let found = true;

  /** The heading: the account's name, then its id, broker, environment and currency. */
  async function loadIdentity() {
    const { accounts } = unwrap(await api().GET('/api/accounts'));
    const entry = accounts.find((candidate) => candidate.id === account);
    if (!entry) return;
    fill(title, entry.name);
    fill(
      identity,
      h('span', { class: 'muted' }, entry.id),
      ' · ',
      entry.broker,
      ' · ',
      h('span', { class: `badge ${entry.environment}` }, entry.environment),
      ' · ',
      entry.currency,
    );
  }

  /** An account the API does not know (or this key may not see): say so instead of drawing empty charts. */
  function notFound(message: string) {
    found = false;
    for (const destroy of charts.splice(0)) destroy();
    fill(
      main,
      h('p', {}, h('a', { href: '#/' }, '← Fleet')),
      h(
        'section',
        { 'aria-labelledby': 'account-title', 'data-testid': 'not-found' },
        h('h2', { id: 'account-title' }, 'No such account'),
        h('p', {}, message),
        h('p', {}, 'The fleet lists every account this dashboard may see.'),
      ),
    );
  }

  async function loadFigures() {
    const [balanceResult, statusResult] = await Promise.all([
      api().GET('/api/{account}/balance', { params: { path: { account } } }),
      api().GET('/api/{account}/status', { params: { path: { account } } }),
    ]);
    if (balanceResult.response.status === 404) {
      notFound((balanceResult.error as { detail?: string } | undefined)?.detail ?? `No account "${account}".`);
      return;
    }
    const balance = unwrap(balanceResult);
    const bot = unwrap(statusResult);
    currency = balance.currency;
    fill(
      status,
      h('span', { class: `badge ${bot.state}` }, bot.state),
      bot.stale ? h('span', { class: 'badge stale' }, 'stale') : null,
      // Out of the fleet's views, the probe and its alarms; its history is what this page shows.
      bot.retiredAt ? h('span', { class: 'badge retired', title: `Retired ${utc(bot.retiredAt)}: not in the fleet` }, 'retired') : null,
      h('span', {}, bot.heartbeatAgeSeconds === null ? 'no heartbeat yet' : `heartbeat ${age(bot.heartbeatAgeSeconds)} ago`),
      bot.message ? h('span', { class: 'message' }, bot.message) : null,
    );
    // Side by side, not in a column: each figure at its currency's places, a crypto's at those it needs (a NAV of 8
    // places does not pad a margin of 0 to 0.00000000).
    const rows: [string, HTMLElement | string][] = [
      ['Balance', money(balance.balance, currency)],
      ['NAV', money(balance.nav, currency)],
      ['Unrealized P&L', money(balance.unrealizedPL, currency, { signed: true })],
      ['Realized P&L, all time', money(balance.realizedPL, currency, { signed: true })],
      ['Margin used', money(balance.marginUsed, currency)],
      ['Margin available', money(balance.marginAvailable, currency)],
      ['Open trades', String(balance.openTradeCount)],
      ['Figures as of', utc(balance.updatedAt)],
    ];
    fill(figures, ...rows.map(([label, value]) => h('div', {}, h('dt', {}, label), h('dd', {}, value))));
  }

  async function loadCharts() {
    const hourly = byHour.checked;
    const [equity, pnl] = await Promise.all([
      api().GET('/api/{account}/equity', {
        params: { path: { account }, query: hourly ? { interval: 'hour' } : { interval: 'day', from: daysAgo(89) } },
      }),
      api().GET('/api/{account}/pnl', { params: { path: { account }, query: { period: 'day', from: daysAgo(89) } } }),
    ]);
    const equityData = unwrap(equity);
    const pnlData = unwrap(pnl);
    for (const destroy of charts.splice(0)) destroy();
    fill(equityBox);
    fill(pnlBox);
    const last = equityData.points.at(-1);
    const equityRange = chartWindow(equityData, last?.time);
    charts.push(equityChart(equityBox, equityData.points, hourly ? 3_600 : 86_400, equityRange, currency));
    equityBox.dataset.points = String(equityData.points.length);
    equityBox.setAttribute(
      'aria-label',
      `Equity chart, ${spanned(equityRange, equityData.to)}: ${equityData.points.length} points${last ? `; last NAV ${moneyText(last.nav, currency)}` : ''}`,
    );
    fill(
      equityNote,
      `${hourly ? 'Hourly' : 'Daily'}, ${spanned(equityRange, equityData.to)}. `,
      last
        ? `NAV (solid) and balance (dashed); last snapshot ${utc(last.time)}: NAV ${moneyText(last.nav, currency)}. Gaps are intervals without a snapshot.`
        : 'No balance snapshots in this window.',
    );
    const pnlRange = chartWindow(pnlData, pnlData.points.at(-1)?.start);
    charts.push(pnlChart(pnlBox, pnlData.points, pnlRange, currency));
    const closed = pnlData.points.reduce((n, point) => n + point.tradesClosed, 0);
    pnlBox.dataset.points = String(pnlData.points.length);
    pnlBox.setAttribute(
      'aria-label',
      `Daily realized P&L chart, ${spanned(pnlRange, pnlData.to)}: ${pnlData.points.length} days, ${closed} trades closed`,
    );
    fill(
      pnlNote,
      `${pnlData.points.length} days, ${spanned(pnlRange, pnlData.to)}; ${closed} trades closed. Bars: each UTC day's realized P&L (left axis); line: the running total since the first day (right axis); both in ${currency}, their zero lines level.`,
    );
  }

  /** How the bot traded over 90 days: a summary, then one row per instrument (GET /api/{account}/performance). */
  async function loadPerformance() {
    const data: AccountPerformance = unwrap(
      await api().GET('/api/{account}/performance', { params: { path: { account }, query: { from: daysAgo(89) } } }),
    );
    const [summary] = data.currencies;
    const ccy = summary.currency;
    // Different quantities side by side, not a column: each figure at its own places.
    const trade = (mark: typeof summary.bestTrade) =>
      mark ? h('span', {}, money(mark.realizedPL, ccy, { signed: true }), h('span', { class: 'muted' }, ` ${mark.id}`)) : '—';
    const rows: [string, HTMLElement | string][] = [
      ['Closed trades', `${summary.closedTrades} (${summary.wins} won, ${summary.losses} lost, ${summary.breakEvens} even)`],
      ['Win rate', percent(summary.winRate)],
      ['Net realized P&L', money(summary.netRealizedPL, ccy, { signed: true })],
      ['Profit factor', summary.profitFactor ?? '—'],
      ['Expectancy per trade', money(summary.expectancy, ccy, { signed: true })],
      ['Average win / loss', h('span', {}, money(summary.averageWin, ccy), ' / ', money(summary.averageLoss, ccy))],
      ['Best trade', trade(summary.bestTrade)],
      ['Worst trade', trade(summary.worstTrade)],
      ['Holding time, average / longest', `${duration(summary.averageHoldingSeconds)} / ${duration(summary.longestHoldingSeconds)}`],
      [
        'Max drawdown',
        h(
          'span',
          {},
          money(summary.maxDrawdown.amount, ccy),
          summary.maxDrawdown.ratio === null ? '' : ` (${percent(summary.maxDrawdown.ratio)} of equity)`,
        ),
      ],
    ];
    fill(performanceBox, ...rows.map(([label, value]) => h('div', {}, h('dt', {}, label), h('dd', {}, value))));
    // A column of one currency lines up: a crypto's at the most its values need.
    const values = (field: 'netRealizedPL' | 'expectancy') => summary.instruments.map((row) => row[field]);
    const [netPlaces, expectancyPlaces] = [currencyPlaces(ccy, values('netRealizedPL')), currencyPlaces(ccy, values('expectancy'))];
    // Each column after the instrument: its label, its class and its figure.
    const columns: StackColumn<(typeof summary.instruments)[number]>[] = [
      ['Trades', 'num', (row) => String(row.closedTrades)],
      ['Win rate', 'num key', (row) => percent(row.winRate)],
      ['Net P&L', 'num key', (row) => money(row.netRealizedPL, ccy, { signed: true, places: netPlaces })],
      ['Profit factor', 'num', (row) => row.profitFactor ?? '—'],
      ['Expectancy', 'num', (row) => money(row.expectancy, ccy, { signed: true, places: expectancyPlaces })],
    ];
    fill(
      perInstrument,
      summary.instruments.length
        ? stackTable(
            { 'data-testid': 'performance-instruments' },
            ['Instrument', (row) => row.instrument],
            columns,
            summary.instruments,
            (row) => ({ 'data-instrument': row.instrument }),
          )
        : h('p', { class: 'note' }, 'No trade closed in these 90 days.'),
    );
  }

  async function loadOpen() {
    const page = unwrap(
      await api().GET('/api/{account}/trades', { params: { path: { account }, query: { status: 'open', limit: '100' } } }),
    );
    fill(
      open,
      page.trades.length
        ? tradesTable(page.trades as Trade[], { showAccount: false, accountCurrency: () => currency })
        : h('p', { class: 'note' }, 'No open trades.'),
    );
  }

  byHour.addEventListener('change', () => void loadCharts().catch((error: Error) => fill(problem, error.message)));

  return {
    // The heading first: until the account list answers, it is the id.
    schedules: [
      { every: 300_000, run: async () => (found ? loadIdentity() : undefined) },
      {
        every: 30_000,
        run: async () => {
          if (!found) return;
          await loadFigures();
          if (!found) return;
          await Promise.all([loadCharts(), loadOpen(), loadPerformance(), reconciliation.load()]);
          fill(problem);
        },
      },
    ],
    onError: (message) => fill(problem, message),
    close: () => {
      for (const destroy of charts.splice(0)) destroy();
    },
  };
}
