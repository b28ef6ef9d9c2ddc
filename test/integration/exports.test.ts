/**
 * Issue 28 over the real handlers and DynamoDB Local: the trades' CSV and CoinTracking layouts against the JSON
 * listings (every row, across pages and filters), content negotiation and its refusals, the Prometheus scrape against
 * the JSON answers, and a key scoped to some accounts exporting and scraping only those (through the gateway's rules,
 * the Bearer form included).
 */
import { parse } from 'csv-parse/sync';
import { type Trade, TRADE_FIELDS } from '@trading-bot-api/core/types';
import { DEMO_TERMS, generateDataset } from '../../scripts/demo/dataset';
import { UNKNOWN_DETAILS } from '../kit/trade-details';
import { COINTRACKING_COLUMNS, cointrackingRecords } from '../../api/http/trade-csv';
import { type Harness, startHarness } from '../kit/api-harness';
import { expectContract } from '../kit/contract';
import { expectedTrades } from '../kit/expected';
import { call as callApi } from '../kit/gateway';
import { parsePrometheusText, promlintProblems, sampleOf } from '../kit/prometheus-text';

const IDS = ['x-usd', 'x-eur', 'x-gbp'];
const now = new Date();
const dataset = generateDataset({ tradeCounts: [90, 40, 0], accountId: (i) => IDS[i], seed: 28, anchor: now, heartbeatAt: now });
// A trade closed now, so the scrape's "today" figures are not all zero at any hour: anchored now, the dataset alone
// had none closed today in the first minutes after midnight (UTC), and the test failed then.
const startOfToday = Date.parse(`${now.toISOString().slice(0, 10)}T00:00:00.000Z`);
dataset.trades.push({
  id: 'x-usd-closed-today',
  accountId: 'x-usd',
  instrument: 'EUR_USD',
  side: 'buy',
  units: '1000',
  status: 'closed',
  openPrice: '1.08420',
  openTime: new Date(Math.max(startOfToday, now.getTime() - 60_000)).toISOString(),
  closePrice: '1.08530',
  closeTime: now.toISOString(),
  realizedPL: '1.10',
  unrealizedPL: '0',
  stopLoss: null,
  takeProfit: null,
  closeReason: null,
  currency: 'USD',
  ...DEMO_TERMS,
  fees: [{ amount: '0.12', currency: 'USD', leg: 'close' }],
  feeTotal: '0.12',
  fundingFees: null,
  liquidationPrice: null,
  orderIds: null,
});
// A trade gone from the bot (its outcome unknown) and a short future closed with its fees and funding (API 1.5).
const daysAgo = (days: number) => new Date(now.getTime() - days * 86_400_000).toISOString();
dataset.trades.push(
  {
    id: 'x-usd-gone',
    accountId: 'x-usd',
    instrument: 'EUR_USD',
    side: 'sell',
    units: '2000',
    status: 'gone',
    openPrice: '1.08000',
    openTime: daysAgo(3),
    closePrice: null,
    closeTime: daysAgo(2),
    realizedPL: '0',
    unrealizedPL: '0',
    stopLoss: null,
    takeProfit: null,
    closeReason: 'gone from the bot: its database was reset',
    ...UNKNOWN_DETAILS,
    currency: 'USD',
  },
  {
    id: 'x-usd-future',
    accountId: 'x-usd',
    instrument: 'BTC_USD_PERP',
    side: 'sell',
    units: '0.5',
    status: 'closed',
    openPrice: '60000',
    openTime: daysAgo(4),
    closePrice: '59000',
    closeTime: daysAgo(3.5),
    realizedPL: '486.5',
    unrealizedPL: '0',
    stopLoss: null,
    takeProfit: null,
    closeReason: 'take_profit',
    currency: 'USD',
    market: 'futures',
    leverage: '10',
    fees: [
      { amount: '6', currency: 'USD', leg: 'open' },
      { amount: '5.9', currency: 'USD', leg: 'close' },
    ],
    feeTotal: '11.9',
    fundingFees: '1.6',
    liquidationPrice: '65400',
    orderIds: ['77001', '77002'],
  },
);
let harness: Harness;
/** A key that sees every account: every request goes through the gateway's rules and the real authorizer. */
let allKey: string;

beforeAll(async () => {
  harness = await startHarness({ AUTH_MODE: 'required' });
  await harness.load(dataset);
  allKey = await harness.createKey('*');
});
afterAll(() => harness.close());

const call = (name: string, options: Parameters<typeof callApi>[1] = {}, key = allKey, bearer = false) =>
  callApi(name, { ...options, key, bearer });

const nameOf = (scope: string | undefined) => (scope === undefined ? 'all-trades' : 'account-trades');
const templateOf = (scope: string | undefined) => (scope === undefined ? '/api/all/trades' : '/api/{account}/trades');

/** A CSV page's records as objects by header; the header row is checked against `columns`. */
function records(text: string, columns: readonly string[]): Record<string, string>[] {
  const rows: string[][] = parse(text, { relax_quotes: false });
  expect(rows[0]).toEqual(columns);
  expect(text.endsWith('\r\n')).toBe(true);
  return rows.slice(1).map((row) => Object.fromEntries(columns.map((column, i) => [column, row[i]])));
}

/**
 * A trade as the CSV writes it: every field a string, null an empty cell; the fees as `AMOUNT CURRENCY LEG; …` (`none`
 * for none), the order ids separated by spaces; a gone trade's P&L empty (unknown, not zero).
 */
const asRow = (trade: Trade) =>
  Object.fromEntries(
    TRADE_FIELDS.map((column) => {
      if (column === 'fees')
        return [column, trade.fees ? trade.fees.map((f) => `${f.amount} ${f.currency} ${f.leg}`).join('; ') || 'none' : ''];
      if (column === 'orderIds') return [column, trade.orderIds?.join(' ') ?? ''];
      if (trade.status === 'gone' && (column === 'realizedPL' || column === 'unrealizedPL')) return [column, ''];
      return [column, trade[column] ?? ''];
    }),
  );

/** Follows a listing's `Link` headers (CSV) or `nextCursor` (JSON) to its end. */
async function walk(scope: string | undefined, query: Record<string, string>, headers: Record<string, string> = {}) {
  const pages: { body: any; headers: Record<string, string> }[] = [];
  let next: Record<string, string> | undefined = query;
  while (next) {
    const response = await call(nameOf(scope), { account: scope, query: next, headers });
    expect(response.statusCode).toBe(200);
    expectContract(templateOf(scope), response);
    pages.push(response);
    const link = response.headers.Link;
    const cursor = typeof response.body === 'object' ? response.body.nextCursor : null;
    // The Link is the request's own query with the next cursor, relative to the request's URL.
    if (link) expect(link).toMatch(/^<\?[^>]*cursor=[^>]+>; rel="next"$/);
    // JSON says the next page twice, and both agree; CSV only by its Link, which the page counts below hold to the rows.
    if (typeof response.body === 'object') expect(link === undefined).toBe(cursor === null);
    next = link ? Object.fromEntries(new URLSearchParams(/^<\?([^>]*)>/.exec(link)![1])) : undefined;
  }
  return pages;
}

describe('trades as CSV', () => {
  it.each<[string | undefined, Record<string, string>]>([
    [undefined, { limit: '37' }],
    ['x-usd', { status: 'closed', instrument: 'eur_usd', limit: '9' }],
    ['x-eur', { status: 'open' }],
    [undefined, { from: new Date(now.getTime() - 20 * 86_400_000).toISOString(), to: now.toISOString(), limit: '25' }],
    ['x-gbp', {}],
  ])('scope %s, %j: every row equals the JSON listing, page by page, by Accept and by format', async (scope, query) => {
    const json = (await walk(scope, query)).flatMap((page) => page.body.trades as Trade[]);
    const status = query.status;
    expect(json).toEqual(
      expectedTrades(dataset.trades, {
        accountId: scope,
        status: status as 'open' | 'closed' | undefined,
        instrument: query.instrument?.toUpperCase(),
      }).filter((t) => (!query.from || t.openTime >= query.from) && (!query.to || t.openTime < query.to)),
    );
    const asks: { headers?: Record<string, string>; query?: Record<string, string> }[] = [
      { headers: { Accept: 'text/csv' } },
      { query: { format: 'CSV' } },
    ];
    for (const ask of asks) {
      const pages = await walk(scope, { ...query, ...ask.query }, ask.headers);
      for (const page of pages) {
        expect(page.headers['Content-Type']).toBe('text/csv; charset=utf-8; header=present');
        expect(page.headers.Vary).toMatch(/Accept/);
      }
      const rows = pages.flatMap((page) => records(page.body, TRADE_FIELDS));
      expect(rows).toEqual(json.map(asRow));
      // Every row says the currency its amounts are in: its account's, whichever accounts the listing has.
      const currencyOf = Object.fromEntries(dataset.accounts.map(({ account }) => [account.id, account.currency]));
      expect(rows.filter((row) => row.currency === '' || row.currency !== currencyOf[row.accountId])).toEqual([]);
      // Without a limit a CSV page holds 500 trades (docs/api.md); with one, as JSON.
      if (!query.limit) expect(pages.length).toBe(Math.max(1, Math.ceil(json.length / 500)));
      else expect(pages.length).toBe(Math.max(1, Math.ceil(json.length / Number(query.limit))));
    }
  });

  it('CoinTracking: each closed trade as its records, with its account’s broker; open and gone trades counted, not exported', async () => {
    const pages = await walk('x-usd', { format: 'cointracking', limit: '40' });
    const rows = pages.flatMap((page) => records(page.body, COINTRACKING_COLUMNS));
    const closed = expectedTrades(dataset.trades, { accountId: 'x-usd', status: 'closed' });
    const broker = dataset.accounts[0].account.broker;
    const expected = closed.flatMap((trade) => cointrackingRecords(trade, { broker, currency: 'USD' }));
    expect(rows.map((row) => COINTRACKING_COLUMNS.map((column) => row[column]))).toEqual(
      expected.map((record) => record.map((cell) => cell ?? '')),
    );
    expect(rows.every((row) => row.Exchange === broker && row['Trade-Group'] === 'x-usd')).toBe(true);
    // The demo's margin trades are profits and losses, never purchases; the short future is a derivatives profit
    // (60000 − 59000) × 0.5 = 500 before its fees (in Fee) and funding (a loss of its own): no sale of BTC.
    expect(new Set(rows.map((row) => row.Type))).toEqual(
      new Set(['Margin Profit', 'Margin Loss', 'Derivatives / Futures Profit', 'Derivatives / Futures Loss']),
    );
    expect(rows.filter((row) => row.Comment.startsWith('x-usd-future'))).toMatchObject([
      { Type: 'Derivatives / Futures Profit', 'Buy Amount': '500', 'Buy Currency': 'USD', Fee: '11.9', 'Fee Currency': 'USD' },
      { Type: 'Derivatives / Futures Loss', 'Sell Amount': '1.6', 'Sell Currency': 'USD', Comment: 'x-usd-future funding paid' },
    ]);
    expect(
      rows.some((row) => row['Buy Currency'] === 'BTC' || row['Sell Currency'] === 'BTC' || row.Comment.startsWith('x-usd-gone')),
    ).toBe(false);
    const all = expectedTrades(dataset.trades, { accountId: 'x-usd' });
    const leftOut = pages.map((page) => /^open=(\d+), gone=(\d+)$/.exec(page.headers['X-Trades-Left-Out'])!.slice(1).map(Number));
    expect(leftOut.reduce(([open, gone], [o, g]) => [open + o, gone + g], [0, 0])).toEqual([
      all.filter((trade) => trade.status === 'open').length,
      1,
    ]);
  });

  it('refuses what it cannot answer with a 4xx problem, never a 5xx', async () => {
    const ask = async (query: Record<string, string>, headers: Record<string, string> = {}) => {
      const response = await call('account-trades', { account: 'x-usd', query, headers });
      expectContract('/api/{account}/trades', response);
      return response;
    };
    const notAcceptable = await ask({}, { Accept: 'application/xml' });
    expect([notAcceptable.statusCode, notAcceptable.body.code]).toEqual([406, 'NOT_ACCEPTABLE']);
    expect(notAcceptable.headers['Content-Type']).toMatch(/^application\/problem\+json/);
    expect(notAcceptable.body.detail).toMatch(/application\/json or text\/csv/);
    expect((await ask({}, { Accept: 'text/csv;q=0, application/json;q=0' })).statusCode).toBe(406);
    const badFormat = await ask({ format: 'xlsx' });
    expect([badFormat.statusCode, badFormat.body.errors]).toEqual([
      400,
      [{ parameter: 'format', message: 'must be one of json, csv, cointracking' }],
    ]);
    expect((await ask({ format: 'cointracking', status: 'open' })).body.errors[0].parameter).toBe('status');
    // A browser's Accept, and one naming any type, still get JSON; format wins over Accept.
    const browser = await ask({ limit: '1' }, { Accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' });
    expect([browser.statusCode, browser.headers['Content-Type']]).toEqual([200, 'application/json; charset=utf-8']);
    expect((await ask({ limit: '1', format: 'csv' }, { Accept: 'application/json' })).headers['Content-Type']).toMatch(/^text\/csv/);
  });
});

describe('GET /api/metrics', () => {
  it('parses as Prometheus text 0.0.4, and every value is the JSON answers’', async () => {
    const scrapedFrom = Date.now();
    const scrape = await call('metrics');
    const scrapedBy = Date.now();
    expectContract('/api/metrics', scrape);
    expect(scrape.headers['Content-Type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    const families = parsePrometheusText(scrape.body);
    const status = (await call('all-status')).body;
    const balances = (await call('all-balance')).body;
    expect(sampleOf(families, 'tba_fleet_bots_visible', {}).value).toBe(status.summary.total);
    expect(sampleOf(families, 'tba_fleet_bots_stale', {}).value).toBe(status.summary.stale);
    for (const state of ['running', 'paused', 'stopped', 'error']) {
      expect(sampleOf(families, 'tba_fleet_bots', { state }).value).toBe(status.summary[state]);
    }
    const day = `${now.toISOString().slice(0, 10)}T00:00:00Z`;
    for (const bot of status.accounts) {
      const { account } = dataset.accounts.find((a) => a.account.id === bot.accountId)!;
      const labels = { account: bot.accountId, currency: account.currency, broker: account.broker, environment: account.environment };
      for (const state of ['running', 'paused', 'stopped', 'error']) {
        expect(sampleOf(families, 'tba_bot_state', { ...labels, state }).value).toBe(bot.state === state ? 1 : 0);
      }
      expect(sampleOf(families, 'tba_bot_stale', labels).value).toBe(bot.stale ? 1 : 0);
      expect(sampleOf(families, 'tba_open_trades', labels).value).toBe(bot.openTradeCount);
      const age = sampleOf(families, 'tba_bot_heartbeat_age_seconds', labels).value;
      // Counted at the scrape's own instant, somewhere between the request and its answer (which a loaded machine
      // draws apart: not against the later status read's).
      const heartbeat = Date.parse(bot.lastHeartbeatAt);
      expect(age).toBeGreaterThanOrEqual(Math.floor((scrapedFrom - heartbeat) / 1000) - 1);
      expect(age).toBeLessThanOrEqual(Math.ceil((scrapedBy - heartbeat) / 1000) + 1);
      const balance = balances.accounts.find((b: { accountId: string }) => b.accountId === bot.accountId);
      expect(sampleOf(families, 'tba_balance', labels).text).toBe(balance.balance);
      expect(sampleOf(families, 'tba_nav', labels).text).toBe(balance.nav);
      expect(sampleOf(families, 'tba_unrealized_pnl', labels).text).toBe(balance.unrealizedPL);
      expect(sampleOf(families, 'tba_realized_pnl', labels).text).toBe(balance.realizedPL);
      const pnl = (await call('account-pnl', { account: bot.accountId, query: { from: day } })).body;
      const point = pnl.points.at(-1);
      expect(sampleOf(families, 'tba_realized_pnl_today', labels).text).toBe(point.tradesClosed ? point.realizedPL : '0');
      expect(sampleOf(families, 'tba_trades_closed_today', labels).value).toBe(point.tradesClosed);
      // The performance operation's default window (90 days), as a ratio.
      const [recent] = (await call('account-performance', { account: bot.accountId })).body.currencies;
      const sampled = (name: string) => families.get(name)!.samples.find((s) => s.labels.account === bot.accountId)?.text ?? null;
      expect([sampled('tba_win_ratio'), sampled('tba_max_drawdown_ratio')]).toEqual([recent.winRate, recent.maxDrawdown.ratio]);
    }
    expect(families.get('tba_trades_closed_today')!.samples.some((s) => s.value > 0)).toBe(true);
    expect(families.get('tba_win_ratio')!.samples.length).toBeGreaterThan(0);
    expect(promlintProblems(families)).toEqual([]);
  });

  it('answers a 406 problem to an Accept without text/plain', async () => {
    const response = await call('metrics', { headers: { Accept: 'application/json' } });
    expectContract('/api/metrics', response);
    expect([response.statusCode, response.body.code]).toEqual([406, 'NOT_ACCEPTABLE']);
  });
});

describe('a key scoped to some accounts', () => {
  it('exports and scrapes only its accounts; the scrape takes the key as a Bearer token too', async () => {
    const key = await harness.createKey(['x-eur', 'x-gbp']);
    const csv = await call('all-trades', { query: { format: 'csv' } }, key);
    expect(csv.statusCode).toBe(200);
    const rows = records(csv.body as unknown as string, TRADE_FIELDS);
    expect(rows.every((row) => row.accountId === 'x-eur')).toBe(true);
    expect(rows).toHaveLength(expectedTrades(dataset.trades, { accountId: 'x-eur' }).length);
    expect((await call('account-trades', { account: 'x-usd', query: { format: 'csv' } }, key)).statusCode).toBe(404);
    for (const bearer of [true, false]) {
      const scrape = await call('metrics', {}, key, bearer);
      expect(scrape.statusCode).toBe(200);
      const families = parsePrometheusText(scrape.body as unknown as string);
      const accounts = new Set(families.get('tba_bot_state')!.samples.map((s) => s.labels.account));
      expect([...accounts].sort()).toEqual(['x-eur', 'x-gbp']);
      expect(sampleOf(families, 'tba_fleet_bots_visible', {}).value).toBe(2);
    }
    // Elsewhere x-api-key is API Gateway's identity source: a Bearer token alone is refused there, before the authorizer.
    expect((await call('all-trades', {}, key, true)).statusCode).toBe(401);
    expect((await callApi('metrics')).statusCode).toBe(401);
    expect((await callApi('metrics', { headers: { Authorization: 'Bearer nope' } })).statusCode).toBe(401);
  });
});
