/**
 * The equity series against the snapshots recorded through the writer: for each hour or day the last snapshot in
 * it, intervals without one left out, windows widened to whole intervals, defaults ending now, the 400s.
 */
import type { Snapshot } from '@trading-bot-api/writer';
import { eventFor, type Harness, invoke, ROUTES, startHarness } from '../kit/api-harness';
import { expectContract } from '../kit/contract';

let harness: Harness;
const HOUR = 3_600_000;
const START = Date.parse('2026-03-28T21:00:00.000Z');

/** Snapshots at irregular minutes across three days (several per hour, some hours with none), oldest first. */
const snapshots: Snapshot[] = [];
for (let minute = 0; minute < 3 * 24 * 60; minute += 7 + (minute % 11)) {
  const hour = Math.floor(minute / 60);
  if (hour % 5 === 3) continue;
  const cents = 1_000_000 + minute * 37;
  const balance = `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
  snapshots.push({
    time: new Date(START + minute * 60_000).toISOString(),
    balance,
    unrealizedPL: '-1.25',
    nav: `${Math.floor((cents - 125) / 100)}.${String((cents - 125) % 100).padStart(2, '0')}`,
    marginUsed: '0',
    marginAvailable: '0',
  });
}

beforeAll(async () => {
  harness = await startHarness();
  await harness.writer.upsertAccount({
    id: 'eq-acc',
    name: 'Equity',
    currency: 'CHF',
    broker: 'OANDA',
    environment: 'paper',
    createdAt: '2026-01-01T00:00:00.000Z',
  });
  await harness.writer.upsertAccount({
    id: 'eq-empty',
    name: 'No snapshots',
    currency: 'USD',
    broker: 'OANDA',
    environment: 'paper',
    createdAt: '2026-01-01T00:00:00.000Z',
  });
  for (const snapshot of snapshots) await harness.writer.recordBalance('eq-acc', snapshot);
});
afterAll(() => harness.close());

async function equity(account: string, query: Record<string, string>) {
  const response = await invoke('account-equity', eventFor('account-equity', { account, query }));
  expectContract(ROUTES['account-equity'], response);
  return response;
}

/** The last snapshot of each interval that has one, between two interval starts. */
function expectedPoints(size: number, from: number, to: number) {
  const last = new Map<number, Snapshot>();
  for (const snapshot of snapshots) {
    const at = Date.parse(snapshot.time);
    if (at >= from && at < to) last.set(Math.floor(at / size) * size, snapshot);
  }
  return [...last.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, { time, balance, nav, unrealizedPL }]) => ({ time, balance, nav, unrealizedPL }));
}

it('hour: the last snapshot of each hour that has one, oldest first', async () => {
  const { body } = await equity('eq-acc', { interval: 'hour', from: '2026-03-28T21:00:00Z', to: '2026-03-31T21:00:00Z' });
  expect(body).toMatchObject({
    accountId: 'eq-acc',
    currency: 'CHF',
    interval: 'hour',
    from: '2026-03-28T21:00:00.000Z',
    to: '2026-03-31T21:00:00.000Z',
  });
  const expected = expectedPoints(HOUR, START, START + 72 * HOUR);
  expect(body.points).toEqual(expected);
  // Several snapshots per hour went in; one point per hour came out, and the hours without one are missing.
  expect(snapshots.length).toBeGreaterThan(2 * expected.length);
  expect(expected.length).toBeLessThan(72);
});

it('day: the last snapshot of each UTC day, the window widened to whole days', async () => {
  const { body } = await equity('eq-acc', { interval: 'DAY', from: '2026-03-29T10:30:00+02:00', to: '2026-03-31T00:00:00.001Z' });
  expect([body.interval, body.from, body.to]).toEqual(['day', '2026-03-29T00:00:00.000Z', '2026-04-01T00:00:00.000Z']);
  expect(body.points).toEqual(expectedPoints(24 * HOUR, Date.parse('2026-03-29T00:00:00Z'), Date.parse('2026-04-01T00:00:00Z')));
  expect(body.points).toHaveLength(3);
});

it('an account without snapshots has no points; the default window is the last 7 days of hours', async () => {
  const { body } = await equity('eq-empty', {});
  const to = Math.floor(Date.now() / HOUR) * HOUR + HOUR;
  expect(body).toEqual({
    accountId: 'eq-empty',
    currency: 'USD',
    interval: 'hour',
    from: new Date(to - 168 * HOUR).toISOString(),
    to: new Date(to).toISOString(),
    points: [],
  });
  const { body: days } = await equity('eq-empty', { interval: 'day' });
  expect(Date.parse(days.to) - Date.parse(days.from)).toBe(90 * 24 * HOUR);
});

it('a snapshot taken a moment ago is the last point of the default window', async () => {
  const time = new Date(Date.now() - 60_000).toISOString();
  await harness.writer.recordBalance('eq-empty', {
    time,
    balance: '500.00',
    unrealizedPL: '2.50',
    nav: '502.50',
    marginUsed: '0',
    marginAvailable: '502.50',
  });
  const { body } = await equity('eq-empty', {});
  expect(body.points).toEqual([{ time, balance: '500.00', nav: '502.50', unrealizedPL: '2.50' }]);
});

it.each([
  [{ interval: 'minute' }, 'interval'],
  [{ from: '2026-01-01T00:00:00Z', to: '2026-03-01T00:00:00Z' }, 'from'],
  [{ interval: 'day', from: '2020-01-01T00:00:00Z', to: '2023-01-01T00:00:00Z' }, 'from'],
  [{ from: 'yesterday' }, 'from'],
  [{ from: '2026-03-30T00:00:00Z', to: '2026-03-29T00:00:00Z' }, 'from'],
  [{ period: 'day' }, 'period'],
])('%j is a 400 naming %s', async (query, parameter) => {
  const response = await equity('eq-acc', query as Record<string, string>);
  expect([response.statusCode, response.body.errors?.[0]?.parameter]).toEqual([400, parameter]);
});

it('an unknown account is ACCOUNT_NOT_FOUND', async () => {
  expect((await equity('nobody', {})).body.code).toBe('ACCOUNT_NOT_FOUND');
  // /api/all/equity is this route with the account "all": the answer says equity is per account.
  expect((await equity('all', {})).body).toMatchObject({
    code: 'ACCOUNT_NOT_FOUND',
    detail: expect.stringContaining('No account "all": equity is per account'),
  });
});
