/**
 * `from` and `to` on both trade listings, against the full listing computed independently: every filter
 * combination, both scopes and a key limited to some accounts (whose listing is a merge), bounds that fall exactly on
 * trades, offsets and sub-millisecond digits; cursors bound to their window; every bad window a 400 naming it.
 */
import type { Trade } from '@trading-bot-api/core/types';
import { generateDataset } from '../../scripts/demo/dataset';
import { type FunctionName, type Harness, startHarness } from '../kit/api-harness';
import { expectedTrades } from '../kit/expected';
import { call as callApi } from '../kit/gateway';

const IDS = ['w-a', 'w-b', 'w-c', 'w-d'];
const dataset = generateDataset({ tradeCounts: [150, 70, 0, 40], accountId: (i) => IDS[i], seed: 13 });
// Trades opened exactly on the bounds used below, in two accounts each: `from` must keep them, `to` must drop them.
const EDGE = '2026-10-25T00:00:00.000Z';
const LATE_EDGE = '2026-10-29T12:00:00.000Z';
for (const [accountId, id, openTime] of [
  ['w-a', 'edge-1', EDGE],
  ['w-b', 'edge-1', EDGE],
  ['w-a', 'edge-2', LATE_EDGE],
  ['w-d', 'edge-2', LATE_EDGE],
]) {
  const model = dataset.trades.find((t) => t.accountId === accountId && t.status === 'closed')!;
  dataset.trades.push({ ...model, id, openTime, closeTime: '2026-10-31T00:00:00.000Z' });
}
let harness: Harness;
const keys = { all: '', some: '' };

beforeAll(async () => {
  harness = await startHarness({ AUTH_MODE: 'required' });
  await harness.load(dataset);
  keys.all = await harness.createKey('*');
  keys.some = await harness.createKey(['w-a', 'w-d']);
});
afterAll(() => harness.close());

/** A window as the client writes it, and the instants it means (ms since the epoch; fractions kept). */
const WINDOWS: { name: string; query: Record<string, string>; from?: number; to?: number }[] = [
  { name: 'from and to on trades', query: { from: EDGE, to: LATE_EDGE }, from: Date.parse(EDGE), to: Date.parse(LATE_EDGE) },
  { name: 'from only, with an offset', query: { from: '2026-10-25T02:00:00+02:00' }, from: Date.parse(EDGE) },
  { name: 'to only, past a bound by half a millisecond', query: { to: '2026-10-29T12:00:00.0005Z' }, to: Date.parse(LATE_EDGE) + 0.5 },
  {
    name: 'from half a millisecond after a bound, to with a negative offset',
    query: { from: '2026-10-25T00:00:00.0005Z', to: '2026-10-29T07:00:00-05:00' },
    from: Date.parse(EDGE) + 0.5,
    to: Date.parse(LATE_EDGE),
  },
];

function inWindow(trades: Trade[], window: { from?: number; to?: number }): Trade[] {
  return trades.filter(
    (t) =>
      (window.from === undefined || Date.parse(t.openTime) >= window.from) &&
      (window.to === undefined || Date.parse(t.openTime) < window.to),
  );
}

const call = (name: FunctionName, key: string, account: string | undefined, query: Record<string, string>) =>
  callApi(name, { key, account, query });

/** Follows nextCursor to the end of a listing. */
async function walk(key: string, account: string | undefined, query: Record<string, string>): Promise<Trade[]> {
  const name = account === undefined ? 'all-trades' : 'account-trades';
  const trades: Trade[] = [];
  let cursor: string | undefined;
  do {
    const response = await call(name, key, account, cursor ? { ...query, cursor } : query);
    expect(response.statusCode).toBe(200);
    trades.push(...response.body.trades);
    cursor = response.body.nextCursor ?? undefined;
  } while (cursor);
  return trades;
}

it('the dataset has trades on both sides of every bound', () => {
  for (const window of WINDOWS) {
    const kept = inWindow(dataset.trades, window).length;
    expect([kept > 0, kept < dataset.trades.length]).toEqual([true, true]);
  }
  expect(dataset.trades.filter((t) => t.openTime === EDGE || t.openTime === LATE_EDGE)).toHaveLength(4);
});

describe.each(WINDOWS)('$name', (window) => {
  it.each([
    ['all accounts', 'all', undefined],
    ['one account', 'all', 'w-a'],
    ['an account without trades', 'all', 'w-c'],
    ['all accounts of a key limited to two (a merge)', 'some', undefined],
  ] as const)('%s: every filter combination equals the full listing cut to the window', async (_label, key, account) => {
    for (const status of [undefined, 'open', 'closed'] as const) {
      for (const instrument of [undefined, 'EUR_USD', 'XAU_USD']) {
        const query: Record<string, string> = { ...window.query, limit: '13' };
        if (status) query.status = status;
        if (instrument) query.instrument = instrument;
        const expected = inWindow(
          expectedTrades(dataset.trades, { accountId: account, accounts: key === 'some' ? ['w-a', 'w-d'] : undefined, status, instrument }),
          window,
        );
        expect([status, instrument, await walk(keys[key], account, query)]).toEqual([status, instrument, expected]);
      }
    }
  });
});

it("a date alone is that day's start in UTC, on both ends of a window", async () => {
  const dates = await call('all-trades', keys.all, undefined, { from: '2026-10-24', to: '2026-10-26', limit: '500' });
  const times = await call('all-trades', keys.all, undefined, { from: '2026-10-24T00:00:00Z', to: '2026-10-26T00:00:00Z', limit: '500' });
  expect([dates.statusCode, dates.body.count > 0]).toEqual([200, true]);
  expect(dates.body).toEqual(times.body);
});

it('a window narrower than a millisecond between two stored times is empty', async () => {
  const response = await call('all-trades', keys.all, undefined, { from: '2026-10-25T00:00:00.0001Z', to: '2026-10-25T00:00:00.0009Z' });
  expect(response.body).toEqual({ trades: [], count: 0, limit: 50, nextCursor: null });
});

describe('a cursor belongs to its window', () => {
  const window = { from: EDGE, to: LATE_EDGE, limit: '5' };

  it('continues only with the same window', async () => {
    const first = await call('account-trades', keys.all, 'w-a', window);
    const cursor = first.body.nextCursor;
    expect(cursor).toEqual(expect.any(String));
    const next = await call('account-trades', keys.all, 'w-a', { ...window, cursor });
    const expected = inWindow(expectedTrades(dataset.trades, { accountId: 'w-a' }), { from: Date.parse(EDGE), to: Date.parse(LATE_EDGE) });
    expect([...first.body.trades, ...next.body.trades]).toEqual(expected.slice(0, 10));
    const others: Record<string, string>[] = [
      { limit: '5' },
      { from: EDGE, limit: '5' },
      { to: LATE_EDGE, limit: '5' },
      { from: '2026-10-25T00:00:00.001Z', to: LATE_EDGE, limit: '5' },
    ];
    for (const other of others) {
      const refused = await call('account-trades', keys.all, 'w-a', { ...other, cursor });
      expect([other, refused.statusCode, refused.body.errors]).toEqual([
        other,
        400,
        [{ parameter: 'cursor', message: expect.stringContaining('window') }],
      ]);
    }
  });

  it('and a cursor of a listing without a window does not continue a windowed one', async () => {
    const cursor = (await call('all-trades', keys.all, undefined, { limit: '3' })).body.nextCursor;
    expect((await call('all-trades', keys.all, undefined, { limit: '3', cursor })).statusCode).toBe(200);
    expect((await call('all-trades', keys.all, undefined, { limit: '3', cursor, to: LATE_EDGE })).statusCode).toBe(400);
  });
});

it.each([
  ['from', '2026-10-32', 'must be an RFC 3339 time with a zone'],
  ['to', '2026-10', 'must be an RFC 3339 time with a zone'],
  ['from', '2026-10-25T00:00:00', 'must be an RFC 3339 time with a zone'],
  ['to', '2026-02-30T00:00:00Z', 'must be an RFC 3339 time with a zone'],
  ['to', '2026-10-25T24:00:00Z', 'must be an RFC 3339 time with a zone'],
  ['from', '1730000000', 'must be an RFC 3339 time with a zone'],
  ['to', '9999-12-31T23:59:59-01:00', 'must fall between'],
  ['from', '0000-01-01T00:00:00+00:01', 'must fall between'],
  // An unencoded "+" reaches the function as a space.
  ['from', '2026-10-25T09:00:00 02:00', 'the "+" of its offset arrived as a space: send it as %2B (2026-10-25T09:00:00%2B02:00)'],
])('%s=%s is a 400 naming it, on both listings', async (parameter, value, message) => {
  for (const [name, account] of [
    ['all-trades', undefined],
    ['account-trades', 'w-a'],
  ] as const) {
    const response = await call(name, keys.all, account, { [parameter]: value });
    expect(response.statusCode).toBe(400);
    expect(response.body.errors).toEqual([{ parameter, message: expect.stringContaining(message) }]);
  }
});

it('from at or after to is a 400 naming from', async () => {
  for (const query of [
    { from: LATE_EDGE, to: EDGE },
    { from: EDGE, to: EDGE },
    { from: '2026-10-25T01:00:00+01:00', to: EDGE },
  ]) {
    const response = await call('account-trades', keys.all, 'w-a', query);
    expect([query, response.statusCode, response.body.errors]).toEqual([
      query,
      400,
      [{ parameter: 'from', message: 'must be earlier than to' }],
    ]);
  }
});
