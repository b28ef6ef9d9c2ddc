/**
 * The performance summaries (API 1.2) against the trade listings: every figure, overall and per instrument, equals
 * to the last digit a recomputation from the closed trades as GET .../trades shows them, for one account, for the
 * fleet per currency, for one instrument and for a key that sees only some accounts; histories written by the
 * writer in batches and trade by trade alike; windows are whole UTC days.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { DeleteCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { fleetPeriods } from '@trading-bot-api/core/store/fleet-table';
import { accountPeriods, entryPrefix, getPeriodOfOwners, readPeriodItems, readPeriods } from '@trading-bot-api/core/store/ledger-table';
import { mergePeriods, windowPeriods } from '@trading-bot-api/core/rollups';
import type { Trade } from '@trading-bot-api/core/types';
import { generateDataset } from '../../scripts/demo/dataset';
import { type FunctionName, type Harness, startHarness } from '../kit/api-harness';
import { sumDecimals } from '@trading-bot-api/core/decimal';
import { expectedPerformance, expectedStartBalance } from '../kit/expected';
import { call as callApi } from '../kit/gateway';
import { scriptArgs } from '../kit/scripts';

// perf-usd2 to perf-usd10 trade in USD too: the fleet's USD sums cover ten accounts, EUR's one; a key that sees every
// account reads both from the currencies' sums, a key that sees some from its accounts' own.
const dataset = generateDataset({
  tradeCounts: [240, 150, 90, ...Array(8).fill(15)],
  accountId: (i) => ['perf-usd', 'perf-eur', ...Array.from({ length: 9 }, (_, n) => `perf-usd${n + 2}`)][i],
  anchor: new Date('2026-03-02T06:00:00.000Z'),
  seed: 77,
});
for (const entry of dataset.accounts.slice(2)) {
  entry.account.currency = 'USD';
  entry.balance.currency = 'USD';
}
for (const trade of dataset.trades) if (/^perf-usd\d+$/.test(trade.accountId)) trade.currency = 'USD';
for (const trade of dataset.trades) if (/^perf-usd\d+$/.test(trade.accountId)) trade.id = `${trade.accountId.slice(5)}-${trade.id}`;
// Closes on both sides of a midnight, a break-even, and a tie with the best trade (an earlier close wins it); and
// closes on both sides of the new year.
const model = dataset.trades.find((t) => t.accountId === 'perf-usd' && t.status === 'closed')!;
for (const [id, closeTime, realizedPL] of [
  ['year-end', '2025-12-31T23:00:00.000Z', '-40.1000'],
  ['year-start', '2026-01-01T00:30:00.000Z', '12.0000'],
  ['mid-december', '2025-12-15T09:00:00.000Z', '7.5000'],
  ['edge-before', '2026-02-20T23:59:59.999Z', '31.5000'],
  ['edge-after', '2026-02-21T00:00:00.000Z', '-12.2500'],
  ['edge-zero', '2026-02-21T00:00:00.000Z', '0.0000'],
]) {
  const openTime = closeTime < '2026-02' ? new Date(Date.parse(closeTime) - 3_600_000).toISOString() : '2026-02-20T20:00:00.000Z';
  dataset.trades.push({ ...model, id, openTime, closeTime, realizedPL, unrealizedPL: '0.0000' });
}
const WINDOW = { from: '2026-01-15T00:00:00Z', to: '2026-03-03T00:00:00Z' };

let harness: Harness;
const keys = { all: '', some: '' };

beforeAll(async () => {
  harness = await startHarness({ AUTH_MODE: 'required' });
  await harness.load(dataset);
  // One close written trade by trade too (closeTrade), after the batch import of the rest.
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

const call = (name: FunctionName, query: Record<string, string>, { account, key = keys.all }: { account?: string; key?: string } = {}) =>
  callApi(name, { query, account, key });

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

/**
 * The balance the accounts had together at the start of `window` (what drawdown ratios are measured against), from
 * their daily equity series as the API lists them; null when none has a point.
 */
async function startBalance(accounts: readonly string[], window: { from: string; to: string }): Promise<string | null> {
  const from = window.from.replace('Z', '.000Z');
  const known = (
    await Promise.all(
      accounts.map(async (account) => {
        const { body } = await call('account-equity', { interval: 'day', from: '2025-06-01T00:00:00Z', to: window.to }, { account });
        return expectedStartBalance(body.points, from, window.to.replace('Z', '.000Z'));
      }),
    )
  ).flatMap((balance) => balance ?? []);
  return known.length ? sumDecimals(known) : null;
}

/** The fleet's summary of one currency over every account, from the listings; of one instrument when given. */
async function expectedFleet(currency: string, instrument?: string) {
  const accounts = dataset.accounts.filter((a) => a.account.currency === currency).map((a) => a.account.id);
  const trades = (await Promise.all(accounts.map((a) => closedIn(a, WINDOW)))).flat();
  return {
    currency,
    ...expectedPerformance(
      '2026-01-15T00:00:00.000Z',
      trades.filter((t) => instrument === undefined || t.instrument === instrument),
      await startBalance(accounts, WINDOW),
    ),
  };
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
      currencies: [{ currency, ...expectedPerformance('2026-01-15T00:00:00.000Z', trades, await startBalance([account], WINDOW)) }],
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
    await startBalance(['perf-usd'], { from: '2026-02-20T00:00:00Z', to: '2026-02-22T00:00:00Z' }),
  );
  expect(body.currencies).toEqual([{ currency: 'USD', ...expected }]);
  expect(body.currencies[0].instruments.map((i: { instrument: string }) => i.instrument)).toEqual([instrument]);
});

it('the fleet: one summary per currency over the accounts the key may see', async () => {
  const perAccount = Object.fromEntries(
    await Promise.all(['perf-eur', 'perf-usd2'].map(async (a) => [a, await closedIn(a, WINDOW)] as const)),
  );
  const from = '2026-01-15T00:00:00.000Z';
  const all = await call('all-performance', WINDOW);
  expect(all.body.accounts).toEqual(expect.arrayContaining(dataset.accounts.map((a) => a.account.id)));
  expect(all.body.currencies).toEqual([await expectedFleet('EUR'), await expectedFleet('USD')]);

  // One instrument, over the currencies' sums, against its trades in the listings.
  const instrument = (await closedIn('perf-usd', WINDOW))[0].instrument;
  const one = await call('all-performance', { ...WINDOW, instrument });
  expect(one.body.currencies).toEqual([await expectedFleet('EUR', instrument), await expectedFleet('USD', instrument)]);

  const some = await call('all-performance', WINDOW, { key: keys.some });
  expect(some.body.accounts).toEqual(['perf-eur', 'perf-usd2']);
  expect(some.body.currencies).toEqual([
    { currency: 'EUR', ...expectedPerformance(from, perAccount['perf-eur'], await startBalance(['perf-eur'], WINDOW)) },
    { currency: 'USD', ...expectedPerformance(from, perAccount['perf-usd2'], await startBalance(['perf-usd2'], WINDOW)) },
  ]);
});

it("concurrent closes of two accounts of one currency: the fleet's sums count each exactly once", async () => {
  const [a, b] = ['chf-a', 'chf-b'];
  for (const id of [a, b]) await harness.writer.upsertAccount({ id, name: id, currency: 'CHF', broker: 'paper', environment: 'paper' });
  const closes = [a, b].flatMap((account) =>
    Array.from({ length: 6 }, (_, i) => ({ account, id: `c-${i}`, realizedPL: `${i % 2 ? '-' : ''}${i + 1}.25` })),
  );
  for (const c of closes)
    await harness.writer.openTrade(c.account, {
      id: c.id,
      instrument: 'USD_CHF',
      side: 'buy',
      units: '100',
      openPrice: '0.9',
      openTime: '2026-06-01T08:00:00.000Z',
    });
  // Every close at once, all on one day and instrument: both accounts' closes update the same sum entry.
  await Promise.all(
    closes.map((c, i) =>
      harness.writer.closeTrade(c.account, c.id, {
        closePrice: '0.91',
        closeTime: `2026-06-01T10:00:0${i % 10}.000Z`,
        realizedPL: c.realizedPL,
      }),
    ),
  );
  const window = { from: '2026-06-01T00:00:00Z', to: '2026-06-02T00:00:00Z' };
  const trades = [...(await closedIn(a, window)), ...(await closedIn(b, window))];
  expect(trades).toHaveLength(12);
  // Two accounts have their own roll-ups; the currency's (which a key that sees every account reads), folded by the
  // projector from their changes, must equal both of theirs merged, every figure, the best and worst trade and the
  // day's net included, in each of the day's periods (day, block, month).
  const day = '2026-06-01T00:00:00.000Z';
  const { store } = harness;
  await harness.projector.drain();
  for (const unit of ['day', 'block', 'month'] as const) {
    const [ofA, ofB] = await getPeriodOfOwners(store, [a, b], { unit, start: day });
    const [sum] = await readPeriods(store, fleetPeriods(store, 'CHF'), [{ unit, start: day }]);
    expect(sum.figures).toEqual(mergePeriods(ofA.figures, ofB.figures));
    expect(sum.figures.USD_CHF.closedTrades).toBe(12);
  }
  const { body } = await call('all-performance', window);
  expect(body.currencies.find((c: { currency: string }) => c.currency === 'CHF')).toEqual({
    currency: 'CHF',
    // Neither account recorded a balance: the drawdown's ratio has nothing to be measured against.
    ...expectedPerformance(day, trades, null),
  });
});

it('a window from mid-month to mid-month across a year boundary: whole months and blocks read, every figure exact', async () => {
  const window = { from: '2025-12-10T00:00:00Z', to: '2026-02-18T00:00:00Z' };
  const from = '2025-12-10T00:00:00.000Z';
  const trades = await closedIn('perf-usd', window);
  expect(new Set(trades.map((t) => t.closeTime!.slice(0, 4)))).toEqual(new Set(['2025', '2026']));
  const { body } = await call('account-performance', window, { account: 'perf-usd' });
  expect(body.currencies).toEqual([{ currency: 'USD', ...expectedPerformance(from, trades, await startBalance(['perf-usd'], window)) }]);
  const fleet = (await call('all-performance', window)).body.currencies;
  const usd = dataset.accounts.filter((a) => a.account.currency === 'USD').map((a) => a.account.id);
  const usdTrades = (await Promise.all(usd.map((a) => closedIn(a, window)))).flat();
  expect(fleet.find((c: { currency: string }) => c.currency === 'USD')).toEqual({
    currency: 'USD',
    ...expectedPerformance(from, usdTrades, await startBalance(usd, window)),
  });
  // Read as 10-14 December in days, 15-31 in blocks, January whole, 1-14 February in blocks and 15-17 in days: fewer
  // items than the days that had closes.
  const periods = windowPeriods(Date.parse(from), Date.parse('2026-02-17T00:00:00.000Z'));
  expect(periods.map((period) => period.unit).join(' ')).toBe('day day day day day block block block month block block day day day');
  const items = await readPeriodItems(harness.store, accountPeriods(harness.store, 'perf-usd'), periods);
  expect(items.length).toBeLessThanOrEqual(periods.length);
  expect(items.length).toBeLessThan(new Set(trades.map((t) => t.closeTime!.slice(0, 10))).size);
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
      process.execPath,
      [...scriptArgs('backfill'), '--stage', harness.stage, '--endpoint', harness.db.endpoint],
      { cwd: ROOT, maxBuffer: 16 * 2 ** 20 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
  });
}

/** An account's roll-ups (`perf#`), or its items of the format before them (`stats#`). */
async function ledgerItems(account: string, prefix: string) {
  const { client, tables } = harness.store;
  const output = await client.send(
    new QueryCommand({
      TableName: tables.ledger,
      KeyConditionExpression: 'accountId = :a AND begins_with(entryKey, :p)',
      ExpressionAttributeValues: { ':a': account, ':p': prefix },
      ConsistentRead: true,
    }),
  );
  return output.Items ?? [];
}

/** The fleet's roll-ups of USD. */
async function usdSums() {
  const { client, tables } = harness.store;
  const output = await client.send(
    new QueryCommand({
      TableName: tables.fleet,
      KeyConditionExpression: 'part = :p',
      ExpressionAttributeValues: { ':p': fleetPeriods(harness.store, 'USD').partition },
      ConsistentRead: true,
    }),
  );
  return output.Items ?? [];
}

/** Sets one figure of one instrument inside a roll-up item (`path` below the instrument, as `best.id`). */
function setFigure(table: string, key: Record<string, string>, instrument: string, path: string, value: unknown) {
  return harness.store.client.send(
    new UpdateCommand({
      TableName: table,
      Key: key,
      UpdateExpression: `SET instruments.#i.${path} = :v`,
      ExpressionAttributeNames: { '#i': instrument },
      ExpressionAttributeValues: { ':v': value },
    }),
  );
}

it('npm run backfill writes the roll-ups of histories written before them, and a second run writes nothing', async () => {
  const before = (await call('account-performance', WINDOW, { account: 'perf-usd' })).body;
  const { client, tables } = harness.store;
  // The fleet's roll-ups, which a key that sees every account reads: one item lost and one wrong, so the fleet's
  // answer is off until the backfill adds them up again.
  await harness.projector.drain();
  // February whole (a month item), and 1 or 2 March (days): in the window's periods.
  const sums = (await usdSums()).filter((item) => /^perf#(month#2026-02-01|day#2026-03-0[12])T/.test(item.key));
  expect(sums.length).toBeGreaterThanOrEqual(2);
  await client.send(new DeleteCommand({ TableName: tables.fleet, Key: { part: sums[0].part, key: sums[0].key } }));
  await setFigure(tables.fleet, { part: sums[1].part, key: sums[1].key }, Object.keys(sums[1].instruments)[0], 'closedTrades', 999);
  const usd = await expectedFleet('USD');
  const summed = (await call('all-performance', WINDOW)).body.currencies.find((c: { currency: string }) => c.currency === 'USD');
  expect(summed).not.toEqual(usd);
  // A history from before the roll-ups: none at all for perf-usd but an item of the format before them (one per day
  // and instrument), and one wrong roll-up for perf-eur.
  const kept = await ledgerItems('perf-usd', entryPrefix('perf'));
  expect(kept.length).toBeGreaterThan(10);
  for (const item of kept)
    await client.send(new DeleteCommand({ TableName: tables.ledger, Key: { accountId: item.accountId, entryKey: item.entryKey } }));
  const legacy = { accountId: 'perf-usd', entryKey: 'stats#day#2026-02-20T00:00:00.000Z#EUR_USD', closedTrades: 3, version: 1 };
  await client.send(new PutCommand({ TableName: tables.ledger, Item: legacy }));
  const [wrong, nested, feeless] = (await ledgerItems('perf-eur', entryPrefix('perf'))).filter((item) => item.unit === 'day');
  await setFigure(tables.ledger, { accountId: 'perf-eur', entryKey: wrong.entryKey }, Object.keys(wrong.instruments)[0], 'wins', 999);
  // And, in another entry, only the best trade's id: a difference inside a nested figure is seen too.
  await setFigure(
    tables.ledger,
    { accountId: 'perf-eur', entryKey: nested.entryKey },
    Object.keys(nested.instruments)[0],
    'best.id',
    'not-the-best',
  );
  // And one as stored before API 1.5, without fees: the backfill gives it them (nothing reads the old shape since).
  await client.send(
    new UpdateCommand({
      TableName: tables.ledger,
      Key: { accountId: 'perf-eur', entryKey: feeless.entryKey },
      UpdateExpression: 'REMOVE instruments.#i.feesPaid, instruments.#i.feesUnknown, instruments.#i.feesElsewhere',
      ExpressionAttributeNames: { '#i': Object.keys(feeless.instruments)[0] },
    }),
  );
  expect((await call('account-performance', WINDOW, { account: 'perf-usd' })).body.currencies[0].closedTrades).toBe(0);
  // Trades stored before 1.5 have no currency: they read as unknown, until the backfill gives them their account's.
  const unstamped = (await closedIn('perf-eur', WINDOW)).slice(0, 3);
  for (const trade of unstamped) {
    const { Items = [] } = await client.send(
      new QueryCommand({
        TableName: tables.trades,
        KeyConditionExpression: 'accountId = :a',
        FilterExpression: 'id = :id',
        ExpressionAttributeValues: { ':a': 'perf-eur', ':id': trade.id },
      }),
    );
    await client.send(
      new UpdateCommand({
        TableName: tables.trades,
        Key: { accountId: 'perf-eur', orderKey: Items[0].orderKey },
        UpdateExpression: 'REMOVE currency',
      }),
    );
  }
  const ids = new Set(unstamped.map((trade) => trade.id));
  expect((await closedIn('perf-eur', WINDOW)).filter((trade) => ids.has(trade.id))).toMatchObject(
    unstamped.map(() => ({ currency: null, feeTotal: null })),
  );

  const first = await backfill();
  expect([first.code, first.stderr]).toEqual([
    0,
    `backfill: writing to stage ${harness.stage} on DynamoDB Local at ${harness.db.endpoint}\n`,
  ]);
  expect(first.stdout).toMatch(
    // Every roll-up written again, and the item of the format before them removed.
    new RegExp(`perf-usd: \\d+ closed trades, ${kept.length} roll-up periods, ${kept.length + 1} written, 0 unchanged`),
  );
  expect(first.stdout).toMatch(/perf-eur: \d+ closed trades, \d+ roll-up periods, 3 written, \d+ unchanged, 3 trades given their currency/);
  expect((await closedIn('perf-eur', WINDOW)).filter((trade) => ids.has(trade.id))).toMatchObject(
    unstamped.map(() => ({ currency: 'EUR', feeTotal: '0' })),
  );
  expect(await ledgerItems('perf-usd', 'stats#')).toEqual([]);
  expect((await call('account-performance', WINDOW, { account: 'perf-usd' })).body).toEqual(before);
  const eur = await closedIn('perf-eur', WINDOW);
  expect((await call('account-performance', WINDOW, { account: 'perf-eur' })).body.currencies[0]).toEqual({
    currency: 'EUR',
    ...expectedPerformance('2026-01-15T00:00:00.000Z', eur, await startBalance(['perf-eur'], WINDOW)),
  });
  // The fleet's roll-ups are whole again (perf-eur's three repaired entries moved the EUR ones too).
  expect(first.stdout).toMatch(/fleet summary: 0 accounts listed or unlisted, [1-9]\d* of \d+ sums written, versions moved/);
  const fleet = (await call('all-performance', WINDOW)).body.currencies;
  expect(fleet.filter((c: { currency: string }) => c.currency !== 'CHF')).toEqual([await expectedFleet('EUR'), usd]);

  const second = await backfill();
  expect(second.code).toBe(0);
  expect(second.stdout).toMatch(
    /accounts, \d+ closed trades, \d+ roll-up periods: 0 written, \d+ unchanged, 0 trades given their currency, 0 failed; fleet summary: 0 accounts listed or unlisted, 0 of \d+ sums written, versions moved/,
  );
});
