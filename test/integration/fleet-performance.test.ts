/**
 * The fleet's performance from the writer's sums against the same answer read account by account, on a fleet of
 * FLEET_ACCOUNTS accounts (40 by default) with FLEET_TRADES trades each (10), loaded through the writer: the bodies
 * are equal, and the sums read fewer items. It prints both ways' items and times: the p50 over 7 requests when
 * FLEET_ACCOUNTS is set, so `FLEET_ACCOUNTS=1000 npx jest --testPathPatterns fleet-performance` gives the figures of
 * docs/performance.md; in `npm test`, whose checks are the bodies and the items (the same for every request), one
 * request each.
 */
import { generateDataset } from '../../scripts/demo/dataset';
import { eventFor, type Harness, invoke, startHarness } from '../kit/api-harness';
import { expectContract } from '../kit/contract';
import { printedWhile } from '../kit/printed';

const ACCOUNTS = Number(process.env.FLEET_ACCOUNTS ?? 40);
const TRADES = Number(process.env.FLEET_TRADES ?? 10);
/** Requests per way and window: 7 for the figures' p50, one when only the checks are wanted. */
const RUNS = process.env.FLEET_ACCOUNTS ? 7 : 1;
jest.setTimeout(Math.max(120_000, ACCOUNTS * 1_000));

let harness: Harness;
const ids: string[] = [];

beforeAll(async () => {
  harness = await startHarness({ LOG_LEVEL: 'INFO' });
  const dataset = generateDataset({
    tradeCounts: Array.from({ length: ACCOUNTS }, () => TRADES),
    accountId: (i) => `fleet-${String(i).padStart(4, '0')}`,
    anchor: new Date('2026-11-20T00:00:00Z'),
    seed: 5,
  });
  ids.push(...dataset.accounts.map((entry) => entry.account.id));
  await harness.load(dataset);
});
afterAll(() => harness.close());

/** One request, as a key that sees every account (undefined) or exactly `accounts`, with its items read and time. */
async function request(query: Record<string, string>, accounts?: string[], name: 'all-performance' | 'all-pnl' = 'all-performance') {
  const event = eventFor(name, { query });
  if (accounts) event.requestContext = { ...event.requestContext, authorizer: { accounts: accounts.join(','), keyId: 'k' } };
  const started = performance.now();
  const { result, lines } = await printedWhile(() => invoke(name, event));
  const ms = performance.now() - started;
  expectContract(event.resource, result);
  expect(result.statusCode).toBe(200);
  return { ms, body: result.body as any, itemsRead: lines.find((line) => line.message === 'request')?.itemsRead as number };
}

async function median(query: Record<string, string>, accounts?: string[]) {
  const runs = [];
  for (let i = 0; i < RUNS; i++) runs.push(await request(query, accounts));
  return runs.sort((a, b) => a.ms - b.ms)[Math.floor(RUNS / 2)];
}

it.each([
  ['90 days', { from: '2026-08-23T00:00:00Z', to: '2026-11-21T00:00:00Z' }],
  ['a year', { from: '2025-11-21T00:00:00Z', to: '2026-11-21T00:00:00Z' }],
])("%s over the fleet: the sums answer as the accounts' own days do, reading fewer items", async (name, query) => {
  const summed = await median(query);
  // A key that names every account sees the same accounts, but may not read the sums: account by account.
  const perAccount = await median(query, ids);
  expect(summed.body.currencies).toEqual(perAccount.body.currencies);
  expect(summed.body.currencies.reduce((n: number, c: { closedTrades: number }) => n + c.closedTrades, 0)).toBeGreaterThan(0);
  expect(summed.itemsRead).toBeLessThan(perAccount.itemsRead);
  console.log(
    `${ACCOUNTS} accounts × ${TRADES} trades, ${name}: sums ${summed.itemsRead} items, p50 of ${RUNS} ${summed.ms.toFixed(0)} ms; ` +
      `account by account ${perAccount.itemsRead} items, p50 of ${RUNS} ${perAccount.ms.toFixed(0)} ms`,
  );
});

it("a year of the fleet's daily P&L: the currencies' sums answer as the accounts' own aggregates do, reading fewer items", async () => {
  const query = { period: 'day', from: '2025-11-21T00:00:00Z', to: '2026-11-21T00:00:00Z' };
  const summed = await request(query, undefined, 'all-pnl');
  const perAccount = await request(query, ids, 'all-pnl');
  expect(summed.body.series).toEqual(perAccount.body.series);
  expect(
    summed.body.series
      .flatMap((s: { points: { tradesClosed: number }[] }) => s.points)
      .some((p: { tradesClosed: number }) => p.tradesClosed > 0),
  ).toBe(true);
  expect(summed.itemsRead).toBeLessThan(perAccount.itemsRead);
  console.log(
    `${ACCOUNTS} accounts × ${TRADES} trades, a year of daily P&L: sums ${summed.itemsRead} items, ${summed.ms.toFixed(0)} ms; ` +
      `account by account ${perAccount.itemsRead} items, ${perAccount.ms.toFixed(0)} ms`,
  );
});
