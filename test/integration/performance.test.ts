/**
 * The performance summaries (API 1.2) against the trade listings: every figure, overall and per instrument, equals
 * to the last digit a recomputation from the closed trades as GET .../trades shows them, for one account, for the
 * fleet per currency, for one instrument and for a key that sees only some accounts; histories written by the
 * writer in batches and trade by trade alike; windows are whole UTC days.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { DeleteCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { entryPrefix } from '../../lib/store/ledger-table';
import type { Trade } from '../../lib/types';
import { generateDataset } from '../../scripts/support/dataset';
import { eventFor, type FunctionName, type Harness, ROUTES, startHarness } from '../support/api-harness';
import { expectContract } from '../support/contract';
import { expectedPerformance } from '../support/expected';
import { throughGateway } from '../support/gateway';

const dataset = generateDataset({
  tradeCounts: [240, 150, 90],
  accountId: (i) => ['perf-usd', 'perf-eur', 'perf-usd2'][i],
  anchor: new Date('2026-03-02T06:00:00.000Z'),
  seed: 77,
});
// perf-usd2 trades in USD too: the fleet's USD summary covers two accounts.
dataset.accounts[2].account.currency = 'USD';
dataset.accounts[2].balance.currency = 'USD';
for (const trade of dataset.trades) if (trade.accountId === 'perf-usd2') trade.id = `u2-${trade.id}`;
// Closes on both sides of a midnight, a break-even, and a tie with the best trade (an earlier close wins it).
const model = dataset.trades.find((t) => t.accountId === 'perf-usd' && t.status === 'closed')!;
for (const [id, closeTime, realizedPL] of [
  ['edge-before', '2026-02-20T23:59:59.999Z', '31.5000'],
  ['edge-after', '2026-02-21T00:00:00.000Z', '-12.2500'],
  ['edge-zero', '2026-02-21T00:00:00.000Z', '0.0000'],
]) {
  dataset.trades.push({ ...model, id, openTime: '2026-02-20T20:00:00.000Z', closeTime, realizedPL, unrealizedPL: '0.0000' });
}
const WINDOW = { from: '2026-01-15T00:00:00Z', to: '2026-03-03T00:00:00Z' };

let harness: Harness;
const keys = { all: '', some: '' };

beforeAll(async () => {
  harness = await startHarness({ AUTH_MODE: 'required' });
  await harness.load(dataset);
  // One close written trade by trade too (writeClose), after the batch import of the rest.
  await harness.writer.openTrade('perf-eur', {
    id: 'late',
    instrument: 'EUR_USD',
    side: 'buy',
    units: '1000',
    openPrice: '1.1',
    openTime: '2026-03-01T10:00:00.000Z',
  });
  await harness.writer.closeTrade('perf-eur', 'late', { closePrice: '1.2', closeTime: '2026-03-01T11:30:00.000Z', realizedPL: '100.0000' });
  keys.all = await harness.createKey('*');
  keys.some = await harness.createKey(['perf-eur', 'perf-usd2']);
});
afterAll(() => harness.close());

async function call(name: FunctionName, query: Record<string, string>, options: { account?: string; key?: string } = {}) {
  const response = await throughGateway(
    name,
    eventFor(name, { account: options.account, query, headers: { 'x-api-key': options.key ?? keys.all } }),
  );
  expectContract(ROUTES[name], response);
  return response;
}

/** An account's trades closed in the window, as the listing shows them (every page). */
async function closedIn(account: string, window: { from: string; to: string }): Promise<Trade[]> {
  const trades: Trade[] = [];
  let cursor: string | undefined;
  do {
    const { body } = await call('account-trades', { status: 'closed', limit: '500', ...(cursor ? { cursor } : {}) }, { account });
    trades.push(...body.trades);
    cursor = body.nextCursor ?? undefined;
  } while (cursor);
  return trades.filter((t) => t.closeTime! >= window.from.replace('Z', '.000Z') && t.closeTime! < window.to.replace('Z', '.000Z'));
}

it("one account's figures equal a recomputation from its listed trades, overall and per instrument", async () => {
  for (const account of ['perf-usd', 'perf-eur']) {
    const { statusCode, body } = await call('account-performance', WINDOW, { account });
    expect(statusCode).toBe(200);
    const currency = dataset.accounts.find((a) => a.account.id === account)!.account.currency;
    const trades = await closedIn(account, WINDOW);
    expect(trades.length).toBeGreaterThan(20);
    expect(body).toEqual({
      accountId: account,
      from: '2026-01-15T00:00:00.000Z',
      to: '2026-03-03T00:00:00.000Z',
      currencies: [{ currency, ...expectedPerformance('2026-01-15T00:00:00.000Z', trades) }],
    });
  }
});

it('one instrument, and a window widened to whole UTC days', async () => {
  const trades = await closedIn('perf-usd', { from: '2026-02-20T00:00:00Z', to: '2026-02-22T00:00:00Z' });
  const instrument = trades[0].instrument;
  const { body } = await call(
    'account-performance',
    { from: '2026-02-20T13:00:00Z', to: '2026-02-21T00:00:00.001Z', instrument },
    { account: 'perf-usd' },
  );
  expect([body.from, body.to]).toEqual(['2026-02-20T00:00:00.000Z', '2026-02-22T00:00:00.000Z']);
  const expected = expectedPerformance(
    body.from,
    trades.filter((t) => t.instrument === instrument),
  );
  expect(body.currencies).toEqual([{ currency: 'USD', ...expected }]);
  expect(body.currencies[0].instruments.map((i: { instrument: string }) => i.instrument)).toEqual([instrument]);
});

it('the fleet: one summary per currency over the accounts the key may see', async () => {
  const perAccount = Object.fromEntries(
    await Promise.all(['perf-usd', 'perf-eur', 'perf-usd2'].map(async (a) => [a, await closedIn(a, WINDOW)] as const)),
  );
  const from = '2026-01-15T00:00:00.000Z';
  const all = await call('all-performance', WINDOW);
  expect(all.body.accounts).toEqual(expect.arrayContaining(['perf-eur', 'perf-usd', 'perf-usd2']));
  const byCurrency = Object.fromEntries(all.body.currencies.map((c: { currency: string }) => [c.currency, c]));
  expect(byCurrency.EUR).toEqual({ currency: 'EUR', ...expectedPerformance(from, perAccount['perf-eur']) });
  expect(byCurrency.USD).toEqual({
    currency: 'USD',
    ...expectedPerformance(from, [...perAccount['perf-usd'], ...perAccount['perf-usd2']]),
  });

  const some = await call('all-performance', WINDOW, { key: keys.some });
  expect(some.body.accounts).toEqual(['perf-eur', 'perf-usd2']);
  expect(some.body.currencies).toEqual([
    { currency: 'EUR', ...expectedPerformance(from, perAccount['perf-eur']) },
    { currency: 'USD', ...expectedPerformance(from, perAccount['perf-usd2']) },
  ]);
});

it('no trade in the window: zero counts and null ratios; unknown accounts and bad windows are problems', async () => {
  const { body } = await call('account-performance', { from: '2020-01-01T00:00:00Z', to: '2020-01-02T00:00:00Z' }, { account: 'perf-usd' });
  expect(body.currencies[0]).toMatchObject({ closedTrades: 0, winRate: null, profitFactor: null, bestTrade: null, instruments: [] });
  expect((await call('account-performance', {}, { account: 'no-such' })).statusCode).toBe(404);
  expect((await call('account-performance', {}, { account: 'perf-usd', key: keys.some })).statusCode).toBe(404);
  const reversed = await call('all-performance', { from: '2026-02-02T00:00:00Z', to: '2026-02-01T00:00:00Z' });
  expect([reversed.statusCode, reversed.body.errors]).toEqual([400, [{ parameter: 'from', message: 'must be earlier than to' }]]);
  const long = await call('all-performance', { from: '2025-01-01T00:00:00Z', to: '2026-01-03T00:00:00Z' });
  expect([long.statusCode, long.body.errors[0].parameter]).toEqual([400, 'from']);
});

const ROOT = join(__dirname, '..', '..');

function backfill(): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      join(ROOT, 'node_modules', '.bin', 'tsx'),
      [join(ROOT, 'scripts', 'backfill.ts'), '--stage', harness.stage, '--endpoint', harness.db.endpoint],
      { cwd: ROOT, maxBuffer: 16 * 2 ** 20 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
  });
}

async function statsItems(account: string) {
  const { client, tables } = harness.writer.store;
  const output = await client.send(
    new QueryCommand({
      TableName: tables.ledger,
      KeyConditionExpression: 'accountId = :a AND begins_with(entryKey, :p)',
      ExpressionAttributeValues: { ':a': account, ':p': entryPrefix('stats') },
      ConsistentRead: true,
    }),
  );
  return output.Items ?? [];
}

it('npm run backfill writes the statistics of histories written before them, and a second run writes nothing', async () => {
  const before = (await call('account-performance', WINDOW, { account: 'perf-usd' })).body;
  const { client, tables } = harness.writer.store;
  // A history from before API 1.2: no statistics at all for perf-usd, and one wrong entry for perf-eur.
  const kept = await statsItems('perf-usd');
  expect(kept.length).toBeGreaterThan(10);
  for (const item of kept)
    await client.send(new DeleteCommand({ TableName: tables.ledger, Key: { accountId: item.accountId, entryKey: item.entryKey } }));
  const [wrong] = await statsItems('perf-eur');
  await client.send(
    new UpdateCommand({
      TableName: tables.ledger,
      Key: { accountId: 'perf-eur', entryKey: wrong.entryKey },
      UpdateExpression: 'SET wins = :w',
      ExpressionAttributeValues: { ':w': 999 },
    }),
  );
  // And, in another entry, only the best trade's id: a difference inside a nested figure is seen too.
  const [, nested] = await statsItems('perf-eur');
  await client.send(
    new UpdateCommand({
      TableName: tables.ledger,
      Key: { accountId: 'perf-eur', entryKey: nested.entryKey },
      UpdateExpression: 'SET best.id = :id',
      ExpressionAttributeValues: { ':id': 'not-the-best' },
    }),
  );
  expect((await call('account-performance', WINDOW, { account: 'perf-usd' })).body.currencies[0].closedTrades).toBe(0);

  const first = await backfill();
  expect([first.code, first.stderr]).toEqual([0, '']);
  expect(first.stdout).toMatch(
    new RegExp(`perf-usd: \\d+ closed trades, ${kept.length} days × instruments, ${kept.length} written, 0 unchanged`),
  );
  expect(first.stdout).toMatch(/perf-eur: \d+ closed trades, \d+ days × instruments, 2 written, \d+ unchanged/);
  expect((await call('account-performance', WINDOW, { account: 'perf-usd' })).body).toEqual(before);
  const eur = await closedIn('perf-eur', WINDOW);
  expect((await call('account-performance', WINDOW, { account: 'perf-eur' })).body.currencies[0]).toEqual({
    currency: 'EUR',
    ...expectedPerformance('2026-01-15T00:00:00.000Z', eur),
  });

  const second = await backfill();
  expect(second.code).toBe(0);
  expect(second.stdout).toMatch(
    /accounts, \d+ closed trades, \d+ days × instruments: 0 written, \d+ unchanged, fleet stamps written for 0 and marked complete, 0 failed/,
  );
});
