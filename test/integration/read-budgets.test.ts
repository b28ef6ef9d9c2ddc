/**
 * The bench's correctness rule, in npm test: every query the bench measures (every operation serverless.yml routes,
 * with its filters, windows, limits and deep pages) reads at most the items its budget allows (a page: what it
 * returns plus one; the fleet: its stamps and one or two items per account; a series: one per point and account;
 * performance: one per period read (months, blocks, edge days) and two per account) and returns what the plain SDK reads fetch.
 * Measured by the bench's own code (bench/query-measure.ts) on the quick bench's dataset, one call each: the timings
 * are the bench's business (`npm run bench`, and its smoke run `npm run test:bench`).
 */
import { EQUITY_HISTORY, SEED } from '../../bench/options';
import { benchQueries, DEEP_LIMIT } from '../../bench/queries';
import { DEFAULT_ANCHOR, generateDataset } from '../../scripts/demo/dataset';
import { serviceDefinition } from '../../scripts/local-stack/service-definition';
import { type Harness, startHarness } from '../kit/api-harness';

jest.setTimeout(120_000);

// The quick bench's dataset: 3 accounts of 200 trades, the first with 3 days of balance snapshots every 5 minutes and
// reconciled with its broker account (retired: the fleet's reads of whole tables read it too).
const dataset = generateDataset({ tradeCounts: [200, 200, 200], seed: SEED, history: EQUITY_HISTORY, mirror: true });
const account = dataset.accounts[0].account.id;
const mine = dataset.trades.filter((trade) => trade.accountId === account);
const instrument = (mine.find((trade) => trade.status === 'open') ?? mine[0]).instrument;
const specs = benchQueries(account, instrument, 3, DEFAULT_ANCHOR);
// Every API operation serverless.yml routes, but the dashboard's files, found independently of the bench's own list.
const OPERATIONS = [...new Set(serviceDefinition().routes.map((route) => route.functionKey))].filter((key) => key !== 'dashboard');

let harness: Harness;
let measured: Awaited<ReturnType<typeof import('../../bench/query-measure').measure>>[];

beforeAll(async () => {
  harness = await startHarness();
  await harness.load(dataset);
  // Projected, as a deployed stage's streams are within seconds: the fleet's answers read its summary.
  await harness.projector.drain();
  // The functions read their configuration when first imported: after the harness set the environment.
  const { closeClients, measure, prepare } = await import('../../bench/query-measure');
  try {
    await prepare(specs);
    measured = [];
    for (const spec of specs) measured.push(await measure(spec.id, 1, { budgetMs: 0, min: 1, max: 1, warmup: 0, passes: 1 }));
  } finally {
    closeClients();
  }
});
afterAll(() => harness?.close());

it('covers every operation, with the bench’s filters, windows, limits and deep pages', () => {
  expect(new Set(measured.map((pass) => pass.operation))).toEqual(new Set(OPERATIONS));
  expect(specs.filter((spec) => spec.deepPages).length).toBeGreaterThan(0);
  expect(specs.some((spec) => spec.limit === DEEP_LIMIT)).toBe(true);
});

it('every query reads at most its budget, and returns what the plain SDK reads fetch', () => {
  const over = measured
    .filter((pass) => pass.itemsRead > pass.readBudget)
    .map((pass) => `${pass.request}: ${pass.itemsRead} > ${pass.readBudget}`);
  expect(over).toEqual([]);
  expect(measured.filter((pass) => !pass.sameItems).map((pass) => pass.request)).toEqual([]);
  // Pages are what they were asked for, and a series is its points, one item each and the account.
  expect(measured.find((pass) => pass.request === '/api/all/trades?limit=50')?.itemsReturned).toBe(50);
  const hours = measured.find((pass) => pass.operation === 'account-equity' && pass.request.includes('interval=hour'))!;
  expect([hours.itemsReturned, hours.itemsRead]).toEqual([72, 73]);
  // A reconciliation is one item, kept whole by the check that wrote it.
  const reconciled = measured.find((pass) => pass.operation === 'account-reconciliation')!;
  expect([reconciled.itemsRead, reconciled.itemsReturned, reconciled.sameItems]).toEqual([1, 1, true]);
});
