/**
 * End to end: `serverless offline` (API Gateway emulation, esbuild bundles, the handlers) against dynalite over
 * HTTP, for all seven operations and the main errors.
 */
import { generateDataset } from '../../scripts/support/dataset';
import { freePort, type Offline, startOffline } from '../../scripts/support/offline';
import { type Harness, startHarness, TEST_STAGE } from '../support/api-harness';
import { expectContract } from '../support/contract';
import { expectedTrades } from '../support/expected';

jest.setTimeout(120_000);

const IDS = ['e2e-usd', 'e2e-eur', 'e2e-gbp'];
const dataset = generateDataset({ tradeCounts: [120, 30, 0], accountId: (i) => IDS[i], seed: 3 });
let harness: Harness;
let offline: Offline;

beforeAll(async () => {
  harness = await startHarness();
  await harness.load(dataset);
  offline = await startOffline({
    port: await freePort(),
    lambdaPort: await freePort(),
    stage: TEST_STAGE,
    quiet: true,
    env: {
      DYNAMODB_ENDPOINT: process.env.DYNAMODB_ENDPOINT!,
      CURSOR_SECRET: process.env.CURSOR_SECRET!,
      CORS_ALLOWED_ORIGINS: '*',
    },
  });
});
afterAll(async () => {
  await offline?.stop();
  await harness?.close();
});

async function get(path: string, template: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${offline.url}${path}`, { headers });
  const result = { statusCode: response.status, headers: Object.fromEntries(response.headers), body: (await response.json()) as any };
  expectContract(template, result);
  expect(result.headers['x-request-id']).toEqual(expect.any(String));
  expect(result.headers['cache-control']).toBe('no-store');
  expect(result.headers['x-content-type-options']).toBe('nosniff');
  expect(result.headers).not.toHaveProperty('x-powered-by');
  return result;
}

it('serves all seven operations', async () => {
  expect((await get('/api/health', '/api/health')).body.status).toBe('ok');
  expect((await get('/api/accounts', '/api/accounts')).body.accounts.map((a: { id: string }) => a.id)).toEqual([...IDS].sort());
  expect((await get('/api/all/balance', '/api/all/balance')).body.accounts).toHaveLength(3);
  const all = await get('/api/all/trades?status=closed&limit=20', '/api/all/trades');
  expect(all.body.trades).toEqual(expectedTrades(dataset.trades, { status: 'closed' }).slice(0, 20));
  expect((await get('/api/e2e-eur/balance', '/api/{account}/balance')).body).toEqual(dataset.accounts[1].balance);
  expect((await get('/api/e2e-eur/status', '/api/{account}/status')).body.state).toBe(dataset.accounts[1].bot.state);
  const one = await get('/api/e2e-usd/trades?instrument=usd%2Fjpy&limit=3', '/api/{account}/trades');
  expect(one.body.trades).toEqual(expectedTrades(dataset.trades, { accountId: 'e2e-usd', instrument: 'USD_JPY' }).slice(0, 3));
});

it('walks every page of an account over HTTP', async () => {
  const seen: unknown[] = [];
  let path = '/api/e2e-usd/trades?limit=50';
  for (;;) {
    const { body } = await get(path, '/api/{account}/trades');
    seen.push(...body.trades);
    if (!body.nextCursor) break;
    path = `/api/e2e-usd/trades?limit=50&cursor=${encodeURIComponent(body.nextCursor)}`;
  }
  expect(seen).toEqual(expectedTrades(dataset.trades, { accountId: 'e2e-usd' }));
});

it('answers the main errors as problem+json', async () => {
  const badLimit = await get('/api/e2e-usd/trades?limit=1e3', '/api/{account}/trades');
  expect(badLimit).toMatchObject({ statusCode: 400, body: { code: 'INVALID_PARAMETER', errors: [{ parameter: 'limit' }] } });
  const twice = await get('/api/all/trades?status=open&status=closed', '/api/all/trades');
  expect(twice).toMatchObject({ statusCode: 400, body: { errors: [{ parameter: 'status' }] } });
  expect((await get('/api/nobody/balance', '/api/{account}/balance')).body.code).toBe('ACCOUNT_NOT_FOUND');
  expect((await get('/api/all/status', '/api/{account}/status')).body.code).toBe('NOT_FOUND');
  expect((await get('/api/e2e-usd/trades?cursor=forged', '/api/{account}/trades')).statusCode).toBe(400);
});
