/**
 * The realized P&L series against the trade listings: for day, week and month, across a year's end and a month's
 * end, every point equals, to the last digit, the sum of the closed trades of its period as GET .../trades shows
 * them; the all-accounts series sums the accounts of each currency; windows widen to whole periods; every bad
 * request is a 400 naming its parameter.
 */
import type { Trade } from '@trading-bot-api/core/types';
import { type Dataset, generateDataset } from '../../scripts/demo/dataset';
import { type FunctionName, type Harness, startHarness } from '../kit/api-harness';
import { exactSum, periodStartOf } from '../kit/expected';
import { call as callApi } from '../kit/gateway';

type Period = 'day' | 'week' | 'month';

// Two stretches of history: one across the end of 2025 (month, year and an ISO week that straddles both), one
// across the end of February 2026. Each account's trades walk back from its anchor, the newest first: these counts
// reach back to 25 December and 24 February, so every boundary has closes on both sides (the first test below says
// so by name); more of them would only lengthen the history before the boundaries.
const yearEnd = generateDataset({
  tradeCounts: [130, 60, 40],
  accountId: (i) => ['p-usd', 'p-eur', 'p-gbp'][i],
  anchor: new Date('2026-01-04T12:00:00.000Z'),
  seed: 41,
});
const monthEnd = generateDataset({
  tradeCounts: [75, 45],
  accountId: (i) => ['q-usd', 'q-eur'][i],
  anchor: new Date('2026-03-02T06:00:00.000Z'),
  seed: 42,
});
const dataset: Dataset = { accounts: [...yearEnd.accounts, ...monthEnd.accounts], trades: [...yearEnd.trades, ...monthEnd.trades] };
// Closes on either side of midnight at the year's end, and one at exactly zero (neither a win nor a loss).
for (const [id, closeTime, realizedPL] of [
  ['edge-dec', '2025-12-31T23:59:59.999Z', '12.5000'],
  ['edge-jan', '2026-01-01T00:00:00.000Z', '-7.2500'],
  ['edge-zero', '2026-01-01T00:00:00.000Z', '0.0000'],
]) {
  const model = dataset.trades.find((t) => t.accountId === 'p-usd' && t.status === 'closed')!;
  dataset.trades.push({ ...model, id, openTime: '2025-12-31T20:00:00.000Z', closeTime, realizedPL, unrealizedPL: '0.0000' });
}
const ACCOUNTS = dataset.accounts.map((a) => a.account.id);
const WINDOW = { from: '2025-11-01T00:00:00Z', to: '2026-03-10T00:00:00Z' };

let harness: Harness;
const keys = { all: '', some: '' };

beforeAll(async () => {
  harness = await startHarness({ AUTH_MODE: 'required' });
  await harness.load(dataset);
  keys.all = await harness.createKey('*');
  keys.some = await harness.createKey(['p-usd', 'q-eur', 'p-gbp']);
});
afterAll(() => harness.close());

const call = (name: FunctionName, query: Record<string, string>, { account, key = keys.all }: { account?: string; key?: string } = {}) =>
  callApi(name, { query, account, key });

/** Every closed trade of an account, as the listing shows it (all pages). */
async function closedTrades(account: string): Promise<Trade[]> {
  const trades: Trade[] = [];
  let cursor: string | undefined;
  do {
    const { body } = await call('account-trades', { status: 'closed', limit: '500', ...(cursor ? { cursor } : {}) }, { account });
    trades.push(...body.trades);
    cursor = body.nextCursor ?? undefined;
  } while (cursor);
  return trades;
}

interface Point {
  start: string;
  realizedPL: string;
  tradesClosed: number;
  wins: number;
  losses: number;
}

/** The points a series must have: the listed trades grouped by the period of their closeTime, zero-filled. */
function expectedPoints(trades: readonly Trade[], period: Period, starts: readonly string[]): Point[] {
  return starts.map((start) => {
    const closed = trades.filter((t) => periodStartOf(t.closeTime!, period) === start);
    const sign = (t: Trade) => Math.sign(Number(t.realizedPL));
    return closed.length === 0
      ? { start, realizedPL: '0', tradesClosed: 0, wins: 0, losses: 0 }
      : {
          start,
          realizedPL: exactSum(closed.map((t) => t.realizedPL)),
          tradesClosed: closed.length,
          wins: closed.filter((t) => sign(t) > 0).length,
          losses: closed.filter((t) => sign(t) < 0).length,
        };
  });
}

/** The start of the period after the one starting at `start`, computed without the core package's time rules. */
function nextStart(start: string, period: Period): string {
  const date = new Date(start);
  if (period === 'day') date.setUTCDate(date.getUTCDate() + 1);
  else if (period === 'week') date.setUTCDate(date.getUTCDate() + 7);
  else date.setUTCMonth(date.getUTCMonth() + 1);
  return date.toISOString();
}

/** Period starts from `from` (a start) up to `to`, exclusive. */
function startsBetween(from: string, to: string, period: Period): string[] {
  const starts: string[] = [];
  for (let at = from; at < to; at = nextStart(at, period)) starts.push(at);
  return starts;
}

const listed = new Map<string, Trade[]>();
beforeAll(async () => {
  for (const account of ACCOUNTS) listed.set(account, await closedTrades(account));
});

it('the data crosses a year’s end and a month’s end, with closes on both sides of midnight', () => {
  const closes = [...listed.values()].flat().map((t) => t.closeTime!);
  // How many closes fall in each stretch, by name: a failure says which stretch is empty.
  const stretches = {
    'before 2025-12-29': closes.filter((t) => t < '2025-12-29').length,
    'from 2026-01-02': closes.filter((t) => t >= '2026-01-02').length,
    '2026-02-20 to 2026-03-01': closes.filter((t) => t < '2026-03-01' && t >= '2026-02-20').length,
    'from 2026-03-01': closes.filter((t) => t >= '2026-03-01').length,
  };
  expect(Object.entries(stretches).filter(([, count]) => count === 0)).toEqual([]);
  expect(closes.filter((t) => t.startsWith('2025-12-31T23:59:59.999') || t.startsWith('2026-01-01T00:00:00.000'))).toHaveLength(3);
});

describe.each(['day', 'week', 'month'] as const)('period=%s', (period) => {
  it('each account’s points equal the sums of its listed closed trades, zero-filled, across the boundaries', async () => {
    for (const account of ACCOUNTS) {
      const { body } = await call('account-pnl', { period, ...WINDOW }, { account });
      const from = periodStartOf(new Date(WINDOW.from).toISOString(), period);
      const to = WINDOW.to.replace('Z', '.000Z');
      const end = periodStartOf(to, period) === to ? to : nextStart(periodStartOf(to, period), period);
      expect(body).toMatchObject({
        accountId: account,
        currency: dataset.accounts.find((a) => a.account.id === account)!.account.currency,
        period,
        from,
        to: end,
      });
      expect([account, body.points]).toEqual([account, expectedPoints(listed.get(account)!, period, startsBetween(from, end, period))]);
    }
  });

  it('all accounts: one series per currency, the exact sum of its accounts’ points', async () => {
    const scopes: ['all' | 'some', string[]][] = [
      ['all', ACCOUNTS],
      ['some', ['p-usd', 'q-eur', 'p-gbp']],
    ];
    for (const [key, visible] of scopes) {
      const { body } = await call('all-pnl', { period, ...WINDOW }, { key: keys[key] });
      const currencies = [...new Set(dataset.accounts.filter((a) => visible.includes(a.account.id)).map((a) => a.account.currency))].sort();
      expect(body.series.map((s: { currency: string }) => s.currency)).toEqual(currencies);
      for (const series of body.series) {
        const accounts = dataset.accounts
          .filter((a) => visible.includes(a.account.id) && a.account.currency === series.currency)
          .map((a) => a.account.id);
        expect(series.accountCount).toBe(accounts.length);
        const trades = accounts.flatMap((account) => listed.get(account)!);
        expect([key, series.currency, series.points]).toEqual([
          key,
          series.currency,
          expectedPoints(
            trades,
            period,
            series.points.map((p: Point) => p.start),
          ),
        ]);
      }
    }
  });
});

it('counts a close in the period of its closeTime: the last millisecond of 2025 in December, midnight in January', async () => {
  const { body: month } = await call(
    'account-pnl',
    { period: 'month', from: '2025-12-15T00:00:00Z', to: '2026-01-15T00:00:00Z' },
    { account: 'p-usd' },
  );
  expect([month.from, month.to]).toEqual(['2025-12-01T00:00:00.000Z', '2026-02-01T00:00:00.000Z']);
  const { body: days } = await call(
    'account-pnl',
    { period: 'day', from: '2025-12-31T00:00:00Z', to: '2026-01-02T00:00:00Z' },
    { account: 'p-usd' },
  );
  const [dec31, jan1] = days.points;
  const trades = listed.get('p-usd')!;
  expect(dec31.realizedPL).toBe(exactSum(trades.filter((t) => t.closeTime!.startsWith('2025-12-31')).map((t) => t.realizedPL)));
  expect(jan1.tradesClosed).toBe(trades.filter((t) => t.closeTime!.startsWith('2026-01-01')).length);
  // The ISO week of Monday 29 December 2025 holds both sides of the year's end.
  const { body: week } = await call(
    'account-pnl',
    { period: 'week', from: '2026-01-01T00:00:00Z', to: '2026-01-02T00:00:00Z' },
    { account: 'p-usd' },
  );
  expect(week).toMatchObject({ from: '2025-12-29T00:00:00.000Z', to: '2026-01-05T00:00:00.000Z' });
  expect(week.points[0].tradesClosed).toBe(trades.filter((t) => t.closeTime! >= '2025-12-29' && t.closeTime! < '2026-01-05').length);
  // A close at exactly zero is counted, but is neither a win nor a loss.
  const zero = trades.find((t) => t.id === 'edge-zero')!;
  expect(zero.realizedPL).toBe('0.0000');
  expect(jan1.wins + jan1.losses).toBe(
    jan1.tradesClosed - trades.filter((t) => t.closeTime!.startsWith('2026-01-01') && Number(t.realizedPL) === 0).length,
  );
});

it('a window given with offsets and inside periods widens to whole periods; one on the boundaries stays', async () => {
  const { body: widened } = await call(
    'account-pnl',
    { period: 'day', from: '2026-01-02T05:00:00+09:00', to: '2026-01-03T00:00:00.001Z' },
    { account: 'p-eur' },
  );
  expect([widened.from, widened.to, widened.points.length]).toEqual(['2026-01-01T00:00:00.000Z', '2026-01-04T00:00:00.000Z', 3]);
  const { body: exact } = await call(
    'account-pnl',
    { period: 'week', from: '2026-01-05T00:00:00Z', to: '2026-01-19T00:00:00Z' },
    { account: 'p-eur' },
  );
  expect([exact.from, exact.to, exact.points.length]).toEqual(['2026-01-05T00:00:00.000Z', '2026-01-19T00:00:00.000Z', 2]);
});

describe('default windows end with the current period', () => {
  it.each([
    ['day', 30],
    ['week', 12],
    ['month', 12],
  ] as const)('period=%s: %i points', async (period, points) => {
    const { body } = await call('account-pnl', period === 'day' ? {} : { period }, { account: 'q-usd' });
    const current = periodStartOf(new Date().toISOString(), period);
    expect(body.period).toBe(period);
    expect(body.points).toHaveLength(points);
    expect(body.points[points - 1].start).toBe(current);
    expect(body.to).toBe(nextStart(current, period));
  });

  it('and a trade closed a moment ago is in the current period’s point', async () => {
    const now = Date.now();
    const openTime = new Date(now - 120_000).toISOString();
    await harness.writer.openTrade('q-usd', {
      id: 'just-now',
      instrument: 'EUR_USD',
      side: 'buy',
      units: '1000',
      openPrice: '1.08000',
      openTime,
    });
    await harness.writer.closeTrade('q-usd', 'just-now', {
      closePrice: '1.08100',
      closeTime: new Date(now - 60_000).toISOString(),
      realizedPL: '1.0000',
    });
    const { body } = await call('account-pnl', {}, { account: 'q-usd' });
    const today = body.points[body.points.length - 1];
    expect(today.start).toBe(periodStartOf(new Date(now - 60_000).toISOString(), 'day'));
    expect(today.tradesClosed).toBeGreaterThanOrEqual(1);
  });
});

describe('bad requests', () => {
  it.each([
    [{ period: 'year' }, 'period'],
    [{ period: '' }, 'period'],
    [{ from: '2026-01-32' }, 'from'],
    [{ to: '2026-01-01T00:00:00' }, 'to'],
    [{ from: '2026-02-01T00:00:00Z', to: '2026-01-01T00:00:00Z' }, 'from'],
    [{ from: '2025-01-01T00:00:00Z', to: '2026-03-01T00:00:00Z' }, 'from'],
    [{ period: 'week', from: '2010-01-01T00:00:00Z', to: '2020-01-01T00:00:00Z' }, 'from'],
    [{ from: '2099-01-01T00:00:00Z' }, 'from'],
    [{ limit: '5' }, 'limit'],
  ])('%j is a 400 naming %s, on both series', async (query, parameter) => {
    for (const [name, account] of [
      ['account-pnl', 'p-usd'],
      ['all-pnl', undefined],
    ] as const) {
      const response = await call(name, query as Record<string, string>, { account });
      expect([name, response.statusCode, response.body.errors?.[0]?.parameter]).toEqual([name, 400, parameter]);
    }
  });

  it('an account that does not exist, or that the key may not see, is ACCOUNT_NOT_FOUND', async () => {
    expect((await call('account-pnl', {}, { account: 'nobody' })).body.code).toBe('ACCOUNT_NOT_FOUND');
    expect((await call('account-pnl', {}, { account: 'q-usd', key: keys.some })).body.code).toBe('ACCOUNT_NOT_FOUND');
  });
});
