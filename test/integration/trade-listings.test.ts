/**
 * Every filter combination of both listings against the full listing computed independently, pagination walks
 * that neither skip nor repeat, and cursors that only work where they were issued.
 */
import type { Trade } from '@trading-bot-api/core/types';
import { generateDataset } from '../../scripts/demo/dataset';
import { type Harness, eventFor, invoke, startHarness } from '../kit/api-harness';
import { expectContract } from '../kit/contract';
import { expectedTrades } from '../kit/expected';

const IDS = ['acc-a', 'acc-b', 'acc-c', 'acc-d', 'acc-e'];
// 190 trades: walks of 17 a page of up to 12 pages, and every scope, status and instrument below that had trades
// with twice as many still has them (NZD_USD has none on purpose); a longer history adds pages, not cases.
const dataset = generateDataset({ tradeCounts: [110, 45, 23, 0, 12], accountId: (i) => IDS[i], seed: 11 });
// Trades of different accounts opened in the same millisecond, to pin the tie-break across accounts.
const TIE = '2026-10-30T08:00:00.000Z';
for (const [accountId, id] of [
  ['acc-b', 't-100'],
  ['acc-c', 't-100'],
  ['acc-a', 't-099'],
  ['acc-e', 't-1000'],
]) {
  const model = dataset.trades.find((t) => t.accountId === accountId && t.status === 'closed')!;
  dataset.trades.push({ ...model, id, openTime: TIE, closeTime: '2026-10-30T09:00:00.000Z' });
}
let harness: Harness;

beforeAll(async () => {
  harness = await startHarness();
  await harness.load(dataset);
});
afterAll(() => harness.close());

type Scope = string | undefined;
const STATUSES = [undefined, 'open', 'closed', 'all'] as const;
const INSTRUMENTS = [undefined, 'EUR_USD', 'XAU_USD', 'NZD_USD'] as const;

async function page(scope: Scope, query: Record<string, string>) {
  const name = scope === undefined ? 'all-trades' : 'account-trades';
  const response = await invoke(name, eventFor(name, { account: scope, query }));
  expectContract(scope === undefined ? '/api/all/trades' : '/api/{account}/trades', response);
  return response;
}

/** Follows nextCursor to the end; returns every trade in order and the number of pages. */
async function walk(scope: Scope, query: Record<string, string>): Promise<{ trades: Trade[]; pages: number }> {
  const trades: Trade[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const response = await page(scope, cursor ? { ...query, cursor } : query);
    expect(response.statusCode).toBe(200);
    const limit = Number(query.limit ?? 50);
    expect(response.body.limit).toBe(limit);
    expect(response.body.count).toBe(response.body.trades.length);
    // Only the last page may be short, and a full page is followed by a cursor unless nothing follows.
    if (response.body.nextCursor !== null) expect(response.body.count).toBe(limit);
    trades.push(...response.body.trades);
    cursor = response.body.nextCursor ?? undefined;
    pages += 1;
  } while (cursor);
  return { trades, pages };
}

describe.each([undefined, 'acc-a', 'acc-b', 'acc-d'])('scope %s', (scope) => {
  describe.each(STATUSES)('status=%s', (status) => {
    it.each(INSTRUMENTS)('instrument=%s: pages add up to the full listing, in order', async (instrument) => {
      const query: Record<string, string> = { limit: '17' };
      if (status) query.status = status;
      if (instrument) query.instrument = instrument;
      const expected = expectedTrades(dataset.trades, {
        accountId: scope,
        status: status === 'all' ? undefined : status,
        instrument,
      });
      const { trades, pages } = await walk(scope, query);
      expect(trades).toEqual(expected);
      expect(pages).toBe(Math.max(1, Math.ceil(expected.length / 17)));
    });
  });
});

it('the default page and the largest page', async () => {
  const expected = expectedTrades(dataset.trades, {});
  const first = await page(undefined, {});
  expect(first.body.trades).toEqual(expected.slice(0, 50));
  const { trades, pages } = await walk(undefined, { limit: '500' });
  expect(trades).toEqual(expected);
  expect(pages).toBe(Math.ceil(expected.length / 500));
});

it('a page that ends exactly at the last trade has no cursor', async () => {
  const expected = expectedTrades(dataset.trades, { accountId: 'acc-e' });
  const exact = await page('acc-e', { limit: String(expected.length) });
  expect(exact.body.trades).toEqual(expected);
  expect(exact.body.nextCursor).toBeNull();
  const oneShort = await page('acc-e', { limit: String(expected.length - 1) });
  expect(oneShort.body.nextCursor).toEqual(expect.any(String));
});

it('instrument and status are case-insensitive and accept / and - separators', async () => {
  const canonical = await page('acc-a', { instrument: 'EUR_USD', status: 'closed' });
  for (const instrument of ['eur/usd', 'Eur-Usd', 'eur_usd']) {
    const response = await page('acc-a', { instrument, status: 'CLOSED' });
    expect(response.body).toEqual(canonical.body);
  }
});

it('the limit may change between pages', async () => {
  const expected = expectedTrades(dataset.trades, { accountId: 'acc-a' });
  const first = await page('acc-a', { limit: '10' });
  const second = await page('acc-a', { limit: '25', cursor: first.body.nextCursor });
  expect([...first.body.trades, ...second.body.trades]).toEqual(expected.slice(0, 35));
});

describe('a cursor works only for the listing it came from', () => {
  let cursor: string;
  beforeAll(async () => {
    cursor = (await page('acc-a', { status: 'closed', limit: '5' })).body.nextCursor;
  });

  it.each([
    ['another account', 'acc-b', { status: 'closed' }],
    ['all accounts', undefined, { status: 'closed' }],
    ['another status', 'acc-a', { status: 'open' }],
    ['no status', 'acc-a', {}],
    ['an instrument added', 'acc-a', { status: 'closed', instrument: 'EUR_USD' }],
  ] as const)('%s: 400 on cursor', async (_, scope, query) => {
    const response = await page(scope, { ...query, cursor });
    expect(response.statusCode).toBe(400);
    expect(response.body.errors).toEqual([{ parameter: 'cursor', message: expect.any(String) }]);
  });

  it('an altered cursor is a 400, not another account’s trades', async () => {
    const [payload, signature] = cursor.split('.');
    const position = Buffer.from(payload, 'base64url').toString().replace('acc-a', 'acc-b');
    const forged = `${Buffer.from(position).toString('base64url')}.${signature}`;
    const response = await page('acc-b', { status: 'closed', cursor: forged });
    expect(response.statusCode).toBe(400);
  });
});
