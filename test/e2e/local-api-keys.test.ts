/**
 * `AUTH=on npm start` in miniature: serverless offline with the API-key authorizer in front of the data routes,
 * so the key flow is tried over HTTP without AWS.
 */
import { generateDataset } from '../../scripts/support/dataset';
import { freePort, type Offline, startOffline } from '../../scripts/support/offline';
import { type Harness, startHarness, TEST_STAGE } from '../support/api-harness';
import { expectedTrades } from '../support/expected';

jest.setTimeout(120_000);

const IDS = ['ek-one', 'ek-two', 'ek-three'];
const dataset = generateDataset({ tradeCounts: [40, 35, 5], accountId: (i) => IDS[i], seed: 8 });
let harness: Harness;
let offline: Offline;
let scoped = '';
let disabled = '';

beforeAll(async () => {
  harness = await startHarness({ AUTH_MODE: 'required' });
  await harness.load(dataset);
  scoped = await harness.createKey(['ek-two']);
  disabled = await harness.createKey(['ek-two'], { disabled: true });
  offline = await startOffline({
    port: await freePort(),
    lambdaPort: await freePort(),
    stage: TEST_STAGE,
    auth: true,
    quiet: true,
    env: { DYNAMODB_ENDPOINT: process.env.DYNAMODB_ENDPOINT!, CURSOR_SECRET: process.env.CURSOR_SECRET!, CORS_ALLOWED_ORIGINS: '*' },
  });
});
afterAll(async () => {
  await offline?.stop();
  await harness?.close();
});

const get = async (path: string, key?: string) => {
  const response = await fetch(`${offline.url}${path}`, { headers: key ? { 'x-api-key': key } : {} });
  return { status: response.status, body: (await response.json()) as any };
};

it('refuses a missing or unknown key (401) and a disabled one (403)', async () => {
  expect((await get('/api/accounts')).status).toBe(401);
  expect((await get('/api/accounts', 'tbk_0123456789abcdef_' + 'x'.repeat(43))).status).toBe(401);
  expect((await get('/api/ek-two/balance', disabled)).status).toBe(403);
});

it('keeps health public', async () => {
  expect(await get('/api/health')).toMatchObject({ status: 200, body: { status: 'ok' } });
});

it('shows a key only its own accounts', async () => {
  expect((await get('/api/accounts', scoped)).body.accounts.map((a: { id: string }) => a.id)).toEqual(['ek-two']);
  const trades = await get('/api/all/trades?limit=100', scoped);
  expect(trades.body.trades).toEqual(expectedTrades(dataset.trades, { accountId: 'ek-two' }));
  expect(await get('/api/ek-one/balance', scoped)).toMatchObject({ status: 404, body: { code: 'ACCOUNT_NOT_FOUND' } });
});
