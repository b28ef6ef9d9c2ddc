/**
 * Cheap polling: every 200 carries an ETag; If-None-Match naming it (or `*`, or it among others, or its other form,
 * weak or strong) is a 304 with no body and the same headers; a changed body gets a new tag. The fleet answers'
 * tags are weak and come from the fleet's stamps (test/integration/fleet-polls.test.ts); the others are the SHA-256
 * of the body.
 */
import { createHash } from 'node:crypto';
import { generateDataset } from '../../scripts/demo/dataset';
import { eventFor, type FunctionName, type Harness, invoke, ROUTES, startHarness } from '../kit/api-harness';
import { expectContract } from '../kit/contract';
import { withDateHeld } from '../kit/held-date';

const dataset = generateDataset({
  tradeCounts: [40, 12],
  accountId: (i) => ['c-usd', 'c-eur'][i],
  seed: 3,
  history: { everyMinutes: 120, days: 2 },
});
let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({ CORS_ALLOWED_ORIGINS: 'http://localhost:5173' });
  await harness.load(dataset);
});
afterAll(() => harness.close());

const REQUESTS: [FunctionName, { account?: string; query?: Record<string, string> }][] = [
  ['health', {}],
  ['accounts', {}],
  ['all-balance', {}],
  ['all-trades', { query: { limit: '5' } }],
  ['all-status', {}],
  ['all-pnl', { query: { period: 'month' } }],
  ['account-balance', { account: 'c-usd' }],
  ['account-trades', { account: 'c-usd', query: { status: 'closed', limit: '3' } }],
  ['account-status', { account: 'c-eur' }],
  ['account-pnl', { account: 'c-usd', query: { period: 'week' } }],
  ['account-equity', { account: 'c-usd', query: { interval: 'day', from: '2026-10-01T00:00:00Z', to: '2026-11-02T00:00:00Z' } }],
];

async function get(
  name: FunctionName,
  options: { account?: string; query?: Record<string, string> },
  headers: Record<string, string> = {},
) {
  const response = await invoke(name, eventFor(name, { ...options, headers: { origin: 'http://localhost:5173', ...headers } }));
  expectContract(ROUTES[name], response);
  return response;
}

/** Headers but the request id, which is each request's own. */
const comparable = (headers: Record<string, string>) =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => name !== 'X-Request-Id'));

/** The fleet answers, tagged from the stamps before their items are read. */
const STAMPED: Record<string, string> = { accounts: 'profile', 'all-balance': 'balance', 'all-status': 'status' };

describe.each(REQUESTS)('%s', (name, options) => {
  it('a 200 carries an ETag; If-None-Match naming it is a 304 with no body and the same headers', async () => {
    const first = await invoke(name, eventFor(name, options));
    const tag = first.headers.ETag;
    if (STAMPED[name]) expect(tag).toMatch(new RegExp(`^W/"${STAMPED[name]}-[A-Za-z0-9_-]{32}"$`));
    else expect(tag).toBe(`"${createHash('sha256').update(JSON.stringify(first.body)).digest('base64url')}"`);
    // Ages computed from the clock make an account's status body change every second; the rest must be stable
    // (the fleet's status too: its weak tag leaves out what time alone moves).
    if (name === 'health' || name === 'account-status') return;
    const again = await get(name, options);
    expect(again.headers.ETag).toBe(tag);
    const otherForm = tag.startsWith('W/') ? tag.slice(2) : `W/${tag}`;
    for (const header of [tag, otherForm, `"other", ${tag}`, '*']) {
      const notModified = await get(name, options, { 'If-None-Match': header });
      expect([header, notModified.statusCode, notModified.body]).toEqual([header, 304, '']);
      expect(comparable(notModified.headers)).toEqual(comparable(again.headers));
    }
    const other = await get(name, options, { 'if-none-match': '"not-this-one"' });
    // The fleet's status counts heartbeat ages in whole seconds: the two requests may straddle one.
    const ageless = (body: unknown) =>
      name === 'all-status' ? JSON.stringify(body).replace(/"heartbeatAgeSeconds":\d+/g, '"heartbeatAgeSeconds":0') : body;
    expect([other.statusCode, ageless(other.body)]).toEqual([200, ageless(first.body)]);
  });
});

it('an account status answers 304 too when nothing, the clock included, changed its body, and 200 once the clock moved its ages', async () => {
  // Only the Date is held still (the status counts its ages from it); timers and I/O run as they do.
  await withDateHeld(Date.now(), async () => {
    const { headers, body } = await get('account-status', { account: 'c-eur' });
    expect(body.heartbeatAgeSeconds).toEqual(expect.any(Number));
    const tagged = await get('account-status', { account: 'c-eur' }, { 'If-None-Match': headers.ETag });
    expect(tagged.statusCode).toBe(304);
    jest.setSystemTime(Date.now() + 2_000);
    const later = await get('account-status', { account: 'c-eur' }, { 'If-None-Match': headers.ETag });
    expect(later.statusCode).toBe(200);
    expect(later.body.heartbeatAgeSeconds).toBe(body.heartbeatAgeSeconds + 2);
    expect(later.headers.ETag).not.toBe(headers.ETag);
  });
});

it('a change gives a new tag, and the old one gets the new body', async () => {
  const before = await get('all-balance', {});
  await harness.writer.recordBalance('c-eur', {
    time: '2026-11-21T00:00:00.000Z',
    balance: '1.00',
    unrealizedPL: '0.00',
    nav: '1.00',
    marginUsed: '0.00',
    marginAvailable: '1.00',
  });
  const after = await get('all-balance', {}, { 'If-None-Match': before.headers.ETag });
  expect(after.statusCode).toBe(200);
  expect(after.headers.ETag).not.toBe(before.headers.ETag);
  expect(after.body.accounts.find((a: { accountId: string }) => a.accountId === 'c-eur').balance).toBe('1.00');
});

it('errors carry no ETag, and If-None-Match does not turn them into 304s', async () => {
  const response = await get('account-balance', { account: 'nobody' }, { 'If-None-Match': '*' });
  expect(response.statusCode).toBe(404);
  expect(response.headers).not.toHaveProperty('ETag');
});
