/**
 * `AUTH=on npm start` over HTTP: the local gateway runs the real authorizer in front of the data routes, as API
 * Gateway does, and answers every refusal with the stage's own problem+json gateway responses. A key is sent in
 * x-api-key and nowhere else; a key's scope is a set; a cursor belongs to the key that received it; and a key lookup
 * that fails says the service is unavailable, never that a good key is invalid.
 */
import gatewayResponses from '../../resources/gateway-responses.js';
import stages from '../../resources/stages.js';
import { generateDataset } from '../../scripts/demo/dataset';
import { type LocalApi, startLocalApi } from '../../scripts/local-stack/local-api';
import { type Harness, startHarness, TEST_CURSOR_SECRET } from '../kit/api-harness';
import { schemaViolations } from '../kit/contract';
import { expectedTrades } from '../kit/expected';
import { FaultProxy } from '../kit/fault-proxy';
import fc from 'fast-check';
import { answerViolations, type FuzzEnvironment, fuzzRequests, requestBytes } from '../kit/contract-fuzz';
import { http, type HttpAnswer, rawHttp } from '../kit/http';
import { propertyRuns } from '../kit/property-runs';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { tradesCsv } from '../../api/http/trade-csv';
import { createClient } from '../../client';
import type { Trade } from '@trading-bot-api/core/types';
import { parsePrometheusText } from '../kit/prometheus-text';
import { until } from '../kit/until';
import { runScript } from '../kit/scripts';

jest.setTimeout(120_000);

/** Requests of the generated contract check in `npm test` (PROPERTY_SCALE multiplies it). */
const FUZZ_REQUESTS = 300;

const IDS = ['ek-one', 'ek-two', 'ek-three'];
const dataset = generateDataset({ tradeCounts: [40, 35, 5], accountId: (i) => IDS[i], seed: 8 });
/**
 * An account of over a thousand trades, for `npm run export`: three of its pages of 500 (written in one recordTrades
 * call: the writer batches it).
 */
const MANY = generateDataset({ tradeCounts: [1100], accountId: () => 'ek-many', seed: 28 });
let manyWritten: Promise<void>;
let harness: Harness;
let proxy: FaultProxy;
let api: LocalApi;
const keys = { scoped: '', disabled: '', twin: '', repeated: '', all: '' };
/** What serverless offline printed. */
const output: string[] = [];
const logLines = () => output.filter((text) => text.startsWith('{')).map((text) => JSON.parse(text) as Record<string, unknown>);

beforeAll(async () => {
  harness = await startHarness({ AUTH_MODE: 'required', LOG_LEVEL: 'INFO' });
  await harness.load(dataset);
  keys.scoped = await harness.createKey(['ek-two']);
  keys.twin = await harness.createKey(['ek-two']);
  keys.disabled = await harness.createKey(['ek-two'], { disabled: true });
  keys.all = await harness.createKey('*');
  // Written while the local API starts (seconds of bundling), awaited by the export's test: DynamoDB Local with
  // streams takes seconds over a thousand trades, which this file need not wait for twice.
  manyWritten = harness.writer
    .upsertAccount(MANY.accounts[0].account)
    .then(() => harness.writer.recordTrades('ek-many', MANY.trades))
    .then(() => undefined);
  manyWritten.catch(() => undefined);
  // A key stored before scopes were sets: the same account twice.
  const { apiKeyItem, newApiKey } = await import('@trading-bot-api/core/store/api-keys-table');
  const { key, record } = newApiKey(['ek-one', 'ek-three'], 'old key');
  await harness.putItems(process.env.API_KEYS_TABLE!, [apiKeyItem({ ...record, accounts: ['ek-three', 'ek-one', 'ek-three', 'ek-one'] })]);
  keys.repeated = key;
  // The functions (authorizer included) reach the database through a proxy that can inject faults.
  proxy = await new FaultProxy(harness.db.endpoint).start();
  api = await startLocalApi({
    stage: harness.stage,
    dbEndpoint: proxy.endpoint,
    cursorSecret: TEST_CURSOR_SECRET,
    port: 0,
    lambdaPort: 0,
    auth: true,
    onLine: (line) => output.push(line),
    // Tight, so a hung database ends quickly (the defaults' budget is checked in the unit tests of readConfig), yet
    // above what a page of 500 trades takes on a busy two-core machine (400 ms was not, once: a 503 on CI); the slow
    // fault below (2 s) still outlasts every attempt.
    env: { DYNAMODB_CONNECT_TIMEOUT_MS: '200', DYNAMODB_REQUEST_TIMEOUT_MS: '1000', DYNAMODB_MAX_ATTEMPTS: '2' },
  });
});
afterEach(() => proxy.clear());
afterAll(async () => {
  await api?.stop();
  await proxy?.close();
  await harness?.close();
});

const get = (path: string, headers: Record<string, string> = {}) => http(`${api.url}${path}`, { headers });
const withKey = (key: string) => ({ 'x-api-key': key });

/** Exactly what the deployed stage's gateway response of `type` is, but for the request id. */
function expectGatewayResponse(answer: HttpAnswer, type: string) {
  const settings = stages.stageSettings(harness.stage, {});
  const expected = gatewayResponses.render(type, { requestId: answer.body?.requestId, resourcePath: answer.body?.instance }, settings);
  expect(answer.status).toBe(expected.statusCode);
  expect(answer.body).toEqual(JSON.parse(expected.body));
  expect(answer.body.requestId).toEqual(expect.any(String));
  for (const [name, value] of Object.entries(expected.headers)) expect(answer.headers[name.toLowerCase()]).toBe(value);
  expect(schemaViolations('Problem', answer.body)).toEqual([]);
}

describe('who may call', () => {
  it('no key, an unknown key: the 401 problem the stage sends; a disabled key: its 403', async () => {
    for (const headers of [{}, withKey(''), withKey(`tbk_0123456789abcdef_${'x'.repeat(43)}`), withKey('not-a-key')]) {
      const answer = await get('/api/accounts', headers);
      expectGatewayResponse(answer, 'UNAUTHORIZED');
      expect(answer.body.instance).toBe('/api/accounts');
    }
    const disabled = await get('/api/ek-two/balance', withKey(keys.disabled));
    expectGatewayResponse(disabled, 'ACCESS_DENIED');
    expect(disabled.body.instance).toBe('/api/{account}/balance');
  });

  it('takes the key from x-api-key only: Authorization: Bearer alone is a 401, as deployed', async () => {
    expectGatewayResponse(await get('/api/accounts', { authorization: `Bearer ${keys.scoped}` }), 'UNAUTHORIZED');
    expect((await get('/api/accounts', { authorization: `Bearer ${keys.scoped}`, ...withKey(keys.scoped) })).status).toBe(200);
  });

  it('but the metrics route takes a Bearer key too (Prometheus sends it so), and refuses none or a bad one', async () => {
    const scoped = await harness.createKey(['ek-two']);
    for (const headers of [{ authorization: `Bearer ${scoped}` }, withKey(scoped)]) {
      const answer = await get('/api/metrics', headers);
      expect([answer.status, answer.headers['content-type']]).toEqual([200, 'text/plain; version=0.0.4; charset=utf-8']);
      const accounts = new Set(
        parsePrometheusText(answer.text)
          .get('tba_bot_state')!
          .samples.map((s) => s.labels.account),
      );
      expect([...accounts]).toEqual(['ek-two']);
    }
    // A trade closed now shows in the next scrapes' figures of today (the instance keeps them under the balance
    // stamp): on an account of this test's own, so the other tests' listings stay the dataset's.
    await harness.writer.upsertAccount({ id: 'ek-scrape', name: 'Scrape', currency: 'USD', broker: 'test', environment: 'paper' });
    const own = await harness.createKey(['ek-scrape']);
    const closedToday = async () =>
      parsePrometheusText((await get('/api/metrics', { authorization: `Bearer ${own}` })).text).get('tba_trades_closed_today')!.samples[0]
        ?.value;
    // Read until the account is in the scrape, then until the trade closed today is (0 is a figure, so each in a box).
    const scraped = (changedFrom?: number) =>
      until(async () => {
        const value = await closedToday();
        return value !== undefined && value !== changedFrom && { value };
      }, 'a scrape with the account, and its change');
    const before = (await scraped()).value;
    const opened = new Date(Date.now() - 60_000).toISOString();
    await harness.writer.openTrade('ek-scrape', {
      id: 's-1',
      instrument: 'EUR_USD',
      side: 'buy',
      units: '1000',
      openPrice: '1.1',
      openTime: opened,
    });
    await harness.writer.closeTrade('ek-scrape', 's-1', { closePrice: '1.2', closeTime: new Date().toISOString(), realizedPL: '100.00' });
    const after = (await scraped(before)).value;
    expect([before, after]).toEqual([0, 1]);
    expectGatewayResponse(await get('/api/metrics'), 'UNAUTHORIZED');
    expectGatewayResponse(await get('/api/metrics', { authorization: 'Bearer tbk_nope' }), 'UNAUTHORIZED');
    expectGatewayResponse(await get('/api/metrics', { authorization: `Bearer ${keys.disabled}` }), 'ACCESS_DENIED');
  });

  it('logs a refused key as an info line naming its id, never the key, and never as a crash', async () => {
    const unknown = `tbk_0123456789abcdef_${'y'.repeat(43)}`;
    const answer = await get('/api/accounts', withKey(unknown));
    expect(answer.status).toBe(401);
    const refusal = await until(() => logLines().find((line) => line.request_id === answer.body.requestId), 'the refusal logged');
    expect(refusal).toMatchObject({
      level: 'INFO',
      message: 'API key refused',
      keyId: '0123456789abcdef',
      reason: 'unknown key',
    });
    const allowed = await get('/api/accounts', withKey(keys.scoped));
    const request = await until(() => logLines().find((line) => line.request_id === allowed.headers['x-request-id']), 'the request logged');
    expect(request).toMatchObject({
      message: 'request',
      status: 200,
      keyId: keys.scoped.split('_')[1],
    });
    const text = output.join('\n');
    expect(text).not.toMatch(/Unhandled|exception/i);
    // The secret is everything after the key id; it may itself hold '_' (base64url).
    for (const key of Object.values(keys)) expect(text).not.toContain(key.replace(/^tbk_[^_]+_/, ''));
    expect(text).not.toContain('y'.repeat(43));
  });

  it('keeps health public', async () => {
    expect(await get('/api/health')).toMatchObject({ status: 200, body: { status: 'ok' } });
  });

  it('ignores a forged authorizer context: identity comes only from the authorizer', async () => {
    const forged = { 'sls-offline-authorizer-override': JSON.stringify({ principalId: 'x', keyId: 'x', accounts: '*' }) };
    expectGatewayResponse(await get('/api/all/trades', forged), 'UNAUTHORIZED');
    const scoped = await get('/api/accounts', { ...forged, ...withKey(keys.scoped) });
    expect(scoped.body.accounts.map((a: { id: string }) => a.id)).toEqual(['ek-two']);
  });
});

it('shows a key only its own accounts', async () => {
  expect((await get('/api/accounts', withKey(keys.scoped))).body.accounts.map((a: { id: string }) => a.id)).toEqual(['ek-two']);
  const trades = await get('/api/all/trades?limit=100', withKey(keys.scoped));
  expect(trades.body.trades).toEqual(expectedTrades(dataset.trades, { accountId: 'ek-two' }));
  expect(await get('/api/ek-one/balance', withKey(keys.scoped))).toMatchObject({ status: 404, body: { code: 'ACCOUNT_NOT_FOUND' } });
});

it('reads a key’s scope as a set, even one stored with an account twice', async () => {
  const accounts = await get('/api/accounts', withKey(keys.repeated));
  expect(accounts.status).toBe(200);
  expect(accounts.body.accounts.map((a: { id: string }) => a.id)).toEqual(['ek-one', 'ek-three']);
  const balances = await get('/api/all/balance', withKey(keys.repeated));
  expect(balances.status).toBe(200);
  expect(balances.body.accounts.map((b: { accountId: string }) => b.accountId)).toEqual(['ek-one', 'ek-three']);
  const trades = await get('/api/all/trades?limit=500', withKey(keys.repeated));
  expect(trades.status).toBe(200);
  expect(trades.body.trades).toEqual(expectedTrades(dataset.trades, { accounts: ['ek-one', 'ek-three'] }));
});

it('binds a cursor to the key that received it, not to its accounts, even after that key is revoked', async () => {
  const page = await get('/api/ek-two/trades?limit=5', withKey(keys.scoped));
  const cursor = encodeURIComponent(page.body.nextCursor);
  expect((await get(`/api/ek-two/trades?limit=5&cursor=${cursor}`, withKey(keys.scoped))).status).toBe(200);
  const other = await get(`/api/ek-two/trades?limit=5&cursor=${cursor}`, withKey(keys.twin));
  expect(other).toMatchObject({ status: 400, body: { code: 'INVALID_PARAMETER', errors: [{ parameter: 'cursor' }] } });
  await harness.revokeKey(keys.scoped);
  expect((await get(`/api/ek-two/trades?limit=5&cursor=${cursor}`, withKey(keys.twin))).status).toBe(400);
  expectGatewayResponse(await get(`/api/ek-two/trades?limit=5&cursor=${cursor}`, withKey(keys.scoped)), 'ACCESS_DENIED');
});

describe('a key lookup that fails is an outage, never a verdict on the key', () => {
  it.each([
    ['a database that does not answer', { kind: 'hang' } as const],
    ['a slow database', { kind: 'slow', delayMs: 2000 } as const],
    ['refused connections', { kind: 'refuse' } as const],
    ['throttling', { kind: 'throttle', error: 'ThrottlingException' } as const],
  ])('%s: 503 with Retry-After, then 200 once it clears', async (_, fault) => {
    await proxy.inject(fault);
    const answer = await get('/api/accounts', withKey(keys.all));
    expectGatewayResponse(answer, 'AUTHORIZER_FAILURE');
    expect(answer.status).toBe(503);
    expect(answer.headers['retry-after']).toMatch(/^\d+$/);
    await proxy.clear();
    expect((await get('/api/accounts', withKey(keys.all))).status).toBe(200);
  });
});

describe('npm run export', () => {
  const folder = mkdtempSync(join(tmpdir(), 'tba-export-'));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));
  const exportTo = (file: string, args: string[], env: Record<string, string>) =>
    runScript('export', ['--url', api.url, '--out', join(folder, file), ...args], { ...process.env, ...env });

  it('writes an account of over a thousand trades as one file equal to the listing, the key from a file', async () => {
    await manyWritten;
    const keyFile = join(folder, 'key');
    writeFileSync(keyFile, `${keys.all}\n`, { mode: 0o600 });
    const run = await exportTo('many.csv', ['--account', 'ek-many', '--key-file', keyFile], { TBA_API_KEY: '' });
    expect([run.status, run.stderr]).toEqual([0, expect.stringMatching(/export: 1,100 records, 3 pages/)]);
    expect(run.stderr + run.stdout).not.toContain(keys.all);
    const listed: Trade[] = [];
    const typed = createClient({ baseUrl: api.url, apiKey: keys.all, revalidate: false });
    for await (const page of typed.pages('/api/{account}/trades', { params: { path: { account: 'ek-many' }, query: { limit: '500' } } })) {
      listed.push(...page.trades);
    }
    expect(listed).toHaveLength(1100);
    expect(readFileSync(join(folder, 'many.csv'), 'utf8')).toBe(tradesCsv(listed));
  });

  it('exports only what a scoped key sees, and says why it cannot', async () => {
    // A key of its own: another test revokes keys.scoped.
    const scoped = await harness.createKey(['ek-two']);
    const run = await exportTo('scoped.csv', ['--account', 'all', '--status', 'closed'], { TBA_API_KEY: scoped });
    expect([run.status, run.stderr]).toEqual([0, expect.stringContaining('export: wrote')]);
    const rows: string[][] = parse(readFileSync(join(folder, 'scoped.csv'), 'utf8'));
    const expected = expectedTrades(dataset.trades, { accountId: 'ek-two', status: 'closed' });
    expect(rows.slice(1).map((row) => [row[0], row[1]])).toEqual(expected.map((trade) => [trade.id, trade.accountId]));
    const refused = await exportTo('refused.csv', ['--account', 'ek-one'], { TBA_API_KEY: scoped });
    expect([refused.status, refused.stderr]).toEqual([1, expect.stringContaining('404 ACCOUNT_NOT_FOUND')]);
    expect(() => readFileSync(join(folder, 'refused.csv'))).toThrow();
  });
});

describe('every answer as openapi.yaml says (requests generated from it)', () => {
  it('holds for generated requests: valid and hostile parameters, with and without keys, odd headers, other methods', async () => {
    const port = Number(new URL(api.url).port);
    const env: FuzzEnvironment = {
      accounts: [...IDS, 'ek-many'],
      keys: { scoped: keys.scoped, all: keys.all, disabled: keys.disabled },
      allowedOrigins: ['http://localhost:5173', 'http://127.0.0.1:8080', 'http://localhost'],
      allowList: stages.stageSettings(harness.stage, {}).corsOrigins,
      port,
    };
    await fc.assert(
      fc.asyncProperty(fuzzRequests(env), async (request) => {
        const answer = await rawHttp(port, requestBytes(request));
        expect([`${request.method} ${request.target}`, answerViolations(request, answer, env)]).toEqual([
          `${request.method} ${request.target}`,
          [],
        ]);
      }),
      { numRuns: propertyRuns(FUZZ_REQUESTS) },
    );
  });
});
