/**
 * End to end over HTTP, through the stack `npm start` runs: the local gateway, serverless offline (API Gateway and
 * Lambda emulation, esbuild bundles, the handlers) and DynamoDB Local. Every operation (through the typed client in
 * client/) and its errors, cheap polling with ETags, and
 * everything the local stack must answer exactly as the deployed stage does: CORS, Host, unknown routes, the Lambda
 * port, error sizes, concurrency.
 */
import { generateDataset } from '../../scripts/demo/dataset';
import { type LocalApi, startLocalApi } from '../../scripts/local-stack/local-api';
import { type Harness, startHarness, TEST_CURSOR_SECRET } from '../kit/api-harness';
import { expectContract, schemaViolations } from '../kit/contract';
import { expectedPerformance, expectedStartBalance, expectedTrades } from '../kit/expected';
import { http, type HttpAnswer, rawHttp } from '../kit/http';
import { createClient } from '../../client';
import { connect } from 'node:net';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runScript } from '../kit/scripts';
import type { Trade } from '@trading-bot-api/core/types';
import { tradesCsv } from '../../api/http/trade-csv';
import { parsePrometheusText, sampleOf } from '../kit/prometheus-text';

jest.setTimeout(120_000);

const IDS = ['e2e-usd', 'e2e-eur', 'e2e-gbp'];
const dataset = generateDataset({ tradeCounts: [120, 30, 0], accountId: (i) => IDS[i], seed: 3, history: { everyMinutes: 240, days: 10 } });
const DASHBOARD = 'http://localhost:5173';
let harness: Harness;
let api: LocalApi;
/** Every answer of this file, to check that none ever allows credentials. */
const seen: HttpAnswer[] = [];
/** What serverless offline printed: the functions' log lines among it. */
const output: string[] = [];

beforeAll(async () => {
  harness = await startHarness({ LOG_LEVEL: 'INFO' });
  await harness.load(dataset);
  api = await startLocalApi({
    stage: harness.stage,
    dbEndpoint: harness.db.endpoint,
    cursorSecret: TEST_CURSOR_SECRET,
    port: 0,
    lambdaPort: 0,
    auth: false,
    onLine: (line) => output.push(line),
  });
});
afterAll(async () => {
  await api?.stop();
  await harness?.close();
});

async function call(path: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<HttpAnswer> {
  const answer = await http(`${api.url}${path}`, options);
  seen.push(answer);
  return answer;
}

/** A GET that must match the contract of `template` and carry the headers every response carries. */
async function get(path: string, template: string, headers: Record<string, string> = {}) {
  const answer = await call(path, { headers });
  const result = { statusCode: answer.status, headers: answer.headers, body: answer.body };
  expectContract(template, result);
  expectCommonHeaders(answer);
  expect(answer.headers['x-request-id']).toEqual(expect.any(String));
  return result;
}

function expectCommonHeaders(answer: HttpAnswer) {
  expect(answer.headers['cache-control']).toBe('no-store');
  expect(answer.headers['x-content-type-options']).toBe('nosniff');
  expect(answer.headers['strict-transport-security']).toMatch(/^max-age=\d+/);
  expect(answer.headers).not.toHaveProperty('x-powered-by');
}

function expectProblem(answer: HttpAnswer, status: number, code: string) {
  expect(answer.status).toBe(status);
  expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(answer.body).toMatchObject({ status, code });
  expect(schemaViolations('Problem', answer.body)).toEqual([]);
  expectCommonHeaders(answer);
}

/** The typed client (client/), as a dashboard uses it; its answers are held to the contract too. */
function client() {
  return createClient({ baseUrl: api.url, revalidate: false });
}

function checked<T>(template: string, result: { data?: T; error?: unknown; response: Response }): T {
  const headers = Object.fromEntries(result.response.headers.entries());
  expectContract(template, { statusCode: result.response.status, headers, body: result.data ?? result.error });
  expect(result.response.status).toBe(200);
  return result.data!;
}

// First: serverless offline's start-up lines are read from the end of its output, which later requests' lines push out.
it('keeps the schedule off: the probe runs in AWS, and locally only when npm start runs it', () => {
  expect(api.offline.process.output()).toMatch(/Scheduling \[probe\] cron: disabled/);
});

it('serves every operation, through the typed client', async () => {
  const typed = client();
  expect(checked('/api/health', await typed.GET('/api/health')).status).toBe('ok');
  expect(checked('/api/accounts', await typed.GET('/api/accounts')).accounts.map((a) => a.id)).toEqual([...IDS].sort());
  expect(checked('/api/all/balance', await typed.GET('/api/all/balance')).accounts).toHaveLength(3);
  const all = checked('/api/all/trades', await typed.GET('/api/all/trades', { params: { query: { status: 'closed', limit: '20' } } }));
  expect(all.trades).toEqual(expectedTrades(dataset.trades, { status: 'closed' }).slice(0, 20));
  const fleet = checked('/api/all/status', await typed.GET('/api/all/status'));
  expect([fleet.accounts.map((a) => a.accountId), fleet.summary.total]).toEqual([[...IDS].sort(), 3]);
  const pnl = checked(
    '/api/all/pnl',
    await typed.GET('/api/all/pnl', { params: { query: { period: 'month', from: '2026-06-01T00:00:00Z', to: '2026-12-01T00:00:00Z' } } }),
  );
  expect(pnl.series.map((s) => s.currency)).toEqual(['EUR', 'GBP', 'USD']);
  const path = (account: string) => ({ params: { path: { account } } });
  expect(checked('/api/{account}/balance', await typed.GET('/api/{account}/balance', path('e2e-eur')))).toEqual(
    dataset.accounts[1].balance,
  );
  expect(checked('/api/{account}/status', await typed.GET('/api/{account}/status', path('e2e-eur'))).state).toBe(
    dataset.accounts[1].bot.state,
  );
  const one = checked(
    '/api/{account}/trades',
    await typed.GET('/api/{account}/trades', { params: { path: { account: 'e2e-usd' }, query: { instrument: 'usd/jpy', limit: '3' } } }),
  );
  expect(one.trades).toEqual(expectedTrades(dataset.trades, { accountId: 'e2e-usd', instrument: 'USD_JPY' }).slice(0, 3));
  const weekly = checked(
    '/api/{account}/pnl',
    await typed.GET('/api/{account}/pnl', {
      params: { path: { account: 'e2e-usd' }, query: { period: 'week', from: '2026-10-01T00:00:00Z', to: '2026-11-02T00:00:00Z' } },
    }),
  );
  const closed = expectedTrades(dataset.trades, { accountId: 'e2e-usd', status: 'closed' }).filter(
    (t) => t.closeTime! >= '2026-09-28' && t.closeTime! < '2026-11-02',
  );
  expect(weekly.points.reduce((n, p) => n + p.tradesClosed, 0)).toBe(closed.length);
  const equity = checked(
    '/api/{account}/equity',
    await typed.GET('/api/{account}/equity', {
      params: { path: { account: 'e2e-usd' }, query: { interval: 'day', from: '2026-10-01T00:00:00Z', to: '2026-11-02T00:00:00Z' } },
    }),
  );
  expect(equity.points.at(-1)).toMatchObject({ balance: dataset.accounts[0].balance.balance, nav: dataset.accounts[0].balance.nav });
  // API 1.2: each figure as recomputed from the trades closed in the window (whole UTC days).
  const window = { from: '2026-10-01T00:00:00Z', to: '2026-11-02T00:00:00Z' };
  const closedIn = (accountId?: string) =>
    expectedTrades(dataset.trades, { accountId, status: 'closed' }).filter(
      (t) => t.closeTime! >= '2026-10-01T00:00:00.000Z' && t.closeTime! < '2026-11-02T00:00:00.000Z',
    );
  const performance = checked(
    '/api/{account}/performance',
    await typed.GET('/api/{account}/performance', { params: { path: { account: 'e2e-usd' }, query: window } }),
  );
  expect(closedIn('e2e-usd').length).toBeGreaterThan(5);
  // The drawdown's ratio is measured against the balance at the window's start, from the account's daily equity.
  const daily = checked(
    '/api/{account}/equity',
    await typed.GET('/api/{account}/equity', {
      params: { path: { account: 'e2e-usd' }, query: { interval: 'day', from: '2025-06-01T00:00:00Z', to: window.to } },
    }),
  );
  const start = expectedStartBalance(daily.points, '2026-10-01T00:00:00.000Z', '2026-11-02T00:00:00.000Z');
  expect(performance.currencies).toEqual([
    { currency: 'USD', ...expectedPerformance('2026-10-01T00:00:00.000Z', closedIn('e2e-usd'), start) },
  ]);
  const fleetPerformance = checked('/api/all/performance', await typed.GET('/api/all/performance', { params: { query: window } }));
  expect([fleetPerformance.accounts, fleetPerformance.currencies.map((c) => c.currency)]).toEqual([[...IDS].sort(), ['EUR', 'GBP', 'USD']]);
});

it('answers an unchanged performance summary with a 304 over HTTP, as every GET', async () => {
  const path = '/api/all/performance?from=2026-10-01T00:00:00Z';
  const first = await get(path, '/api/all/performance');
  expect(first.headers.etag).toMatch(/^"/);
  const again = await call(path, { headers: { 'If-None-Match': first.headers.etag } });
  expect([again.status, again.headers.etag]).toEqual([304, first.headers.etag]);
});

it('routes /api/all/status to the fleet, not to an account called "all"', async () => {
  const answer = await get('/api/all/status', '/api/all/status');
  expect(answer.body.summary).toEqual(expect.objectContaining({ total: 3 }));
});

it('logs each request as one structured line carrying the X-Request-Id the client got', async () => {
  const answer = await call('/api/e2e-usd/trades?limit=5');
  const id = answer.headers['x-request-id'];
  const deadline = Date.now() + 5000;
  let line: Record<string, unknown> | undefined;
  while (!line && Date.now() < deadline) {
    line = output
      .filter((text) => text.startsWith('{'))
      .map((text) => JSON.parse(text))
      .find((entry) => entry.request_id === id);
    if (!line) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  expect(line).toMatchObject({
    level: 'INFO',
    message: 'request',
    method: 'GET',
    route: '/api/{account}/trades',
    status: 200,
    itemsRead: 6,
    stage: harness.stage,
    function_name: `trading-bot-api-${harness.stage}-account-trades`,
  });
});

it('walks every page of an account over HTTP, in a time window too', async () => {
  const typed = client();
  const pages = async (query: Record<string, string>) => {
    const trades: unknown[] = [];
    for await (const page of typed.pages('/api/{account}/trades', { params: { path: { account: 'e2e-usd' }, query } }))
      trades.push(...page.trades);
    return trades;
  };
  expect(await pages({ limit: '50' })).toEqual(expectedTrades(dataset.trades, { accountId: 'e2e-usd' }));
  const window = { from: '2026-10-25T00:00:00Z', to: '2026-10-30T00:00:00+02:00' };
  expect(await pages({ ...window, limit: '7' })).toEqual(
    expectedTrades(dataset.trades, { accountId: 'e2e-usd' }).filter(
      (t) => t.openTime >= '2026-10-25T00:00:00.000Z' && t.openTime < '2026-10-29T22:00:00.000Z',
    ),
  );
});

/** The exact bytes of an HTTP/1.1 answer (status line, headers, body), read off the socket. */
function answerBytes(path: string, headers: Record<string, string>): Promise<{ bytes: number; text: string }> {
  const { port } = new URL(api.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => {
      const lines = [
        `GET ${path} HTTP/1.1`,
        `Host: localhost:${port}`,
        'Connection: close',
        ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
      ];
      socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    });
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('end', () => resolve({ bytes: Buffer.concat(chunks).length, text: Buffer.concat(chunks).toString() }));
    socket.on('error', reject);
  });
}

it('exports trades as CSV and scrapes the fleet over HTTP (1.4): pages followed by their Link', async () => {
  const typed = client();
  const json: Trade[] = [];
  for await (const page of typed.pages('/api/all/trades', { params: { query: { limit: '40' } } })) json.push(...page.trades);
  const chunks: string[] = [];
  for await (const chunk of typed.csvPages('/api/all/trades', { params: { query: { limit: '40' } } })) chunks.push(chunk);
  expect(chunks).toHaveLength(Math.ceil(json.length / 40));
  expect(chunks.join('')).toBe(tradesCsv(json));
  const first = await call('/api/all/trades?limit=40', { headers: { Accept: 'text/csv' } });
  expectContract('/api/all/trades', { statusCode: first.status, headers: first.headers, body: first.text });
  expect(first.headers['content-type']).toBe('text/csv; charset=utf-8; header=present');
  expect(first.headers.link).toMatch(/^<\?limit=40&cursor=[^>]+>; rel="next"$/);
  const scrape = await call('/api/metrics');
  expectContract('/api/metrics', { statusCode: scrape.status, headers: scrape.headers, body: scrape.text });
  expect(sampleOf(parsePrometheusText(scrape.text), 'tba_fleet_bots_visible', {}).value).toBe(IDS.length);
  expectProblem(await call('/api/all/trades', { headers: { Accept: 'image/png' } }), 406, 'NOT_ACCEPTABLE');
  expectProblem(await call('/api/all/trades?format=pdf'), 400, 'INVALID_PARAMETER');
});

describe('the dashboard, from the API’s own origin', () => {
  it('serves the page with a strict CSP, its hashed files for a year, 304s, gzip, and a 404 problem for anything else', async () => {
    const page = await call('/');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.headers['cache-control']).toBe('no-cache');
    const [script] = /\.\/assets\/index-[\w-]+\.js/.exec(page.text)!;
    const asset = await call(`/${script.slice(2)}`, { headers: { 'accept-encoding': 'gzip' } });
    expect([asset.status, asset.headers['content-type'], asset.headers['content-encoding'], asset.headers['cache-control']]).toEqual([
      200,
      'text/javascript; charset=utf-8',
      'gzip',
      'public, max-age=31536000, immutable',
    ]);
    expect(Number(asset.headers['content-length'])).toBeLessThan(100 * 1024);
    expect((await call('/', { headers: { 'if-none-match': page.headers.etag } })).status).toBe(304);
    const missing = await call('/assets/nothing.js');
    expectProblem(missing, 404, 'NOT_FOUND');
  });
});

describe('cheap polling', () => {
  it('an unchanged poll of /api/all/balance is a 304 of under 1 KB, CORS headers and all', async () => {
    const first = await call('/api/all/balance', { headers: { origin: DASHBOARD } });
    const etag = first.headers.etag;
    // The fleet's weak tag, from its stamps (docs/api.md).
    expect(etag).toMatch(/^W\/"balance-[A-Za-z0-9_-]{32}"$/);
    expect(first.headers['access-control-expose-headers'].split(/,\s*/)).toEqual(expect.arrayContaining(['ETag']));
    const full = await answerBytes('/api/all/balance', { Origin: DASHBOARD });
    const unchanged = await answerBytes('/api/all/balance', { Origin: DASHBOARD, 'If-None-Match': etag });
    expect(unchanged.text).toMatch(/^HTTP\/1\.1 304 /);
    expect(unchanged.text).toMatch(new RegExp(`\r\netag: ${etag}\r\n`, 'i'));
    expect(unchanged.text).toMatch(new RegExp(`\r\naccess-control-allow-origin: ${DASHBOARD}\r\n`, 'i'));
    expect(unchanged.text.endsWith('\r\n\r\n')).toBe(true);
    expect(unchanged.bytes).toBeLessThan(1024);
    expect(full.bytes).toBeGreaterThan(unchanged.bytes + 1000);
  });

  it('the typed client sends If-None-Match by itself and hands back the body it already had', async () => {
    const typed = createClient({ baseUrl: api.url });
    const first = await typed.GET('/api/all/balance');
    const second = await typed.GET('/api/all/balance');
    expect(second.data).toEqual(first.data);
    expect(second.response.headers.get('x-served-from')).toBe('not-modified');
    expect(typed.stats).toEqual({ notModified: 1, transferred: 1 });
  });
});

it('answers the main errors as problem+json', async () => {
  const badLimit = await get('/api/e2e-usd/trades?limit=1e3', '/api/{account}/trades');
  expect(badLimit).toMatchObject({ statusCode: 400, body: { code: 'INVALID_PARAMETER', errors: [{ parameter: 'limit' }] } });
  const twice = await get('/api/all/trades?status=open&status=closed', '/api/all/trades');
  expect(twice).toMatchObject({ statusCode: 400, body: { errors: [{ parameter: 'status' }] } });
  expect((await get('/api/nobody/balance', '/api/{account}/balance')).body.code).toBe('ACCOUNT_NOT_FOUND');
  expect((await get('/api/e2e-usd/trades?cursor=forged', '/api/{account}/trades')).statusCode).toBe(400);
});

it('refuses a cursor whose text differs from the one issued, even by unused bits', async () => {
  const { body } = await get('/api/e2e-usd/trades?limit=5', '/api/{account}/trades');
  const [payload, signature] = body.nextCursor.split('.');
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const last = alphabet.indexOf(signature[42]);
  const twin = `${payload}.${signature.slice(0, 42)}${alphabet[(last & ~3) | ((last + 1) & 3)]}`;
  expect(Buffer.from(twin.split('.')[1], 'base64url').equals(Buffer.from(signature, 'base64url'))).toBe(true);
  const replay = await get(`/api/e2e-usd/trades?limit=5&cursor=${twin}`, '/api/{account}/trades');
  expect(replay).toMatchObject({ statusCode: 400, body: { errors: [{ parameter: 'cursor' }] } });
});

it('keeps an error body small whatever the request holds', async () => {
  const query = Array.from({ length: 1000 }, (_, i) => `p${i}=1`).join('&');
  const answer = await call(`/api/all/trades?${query}`);
  expectProblem(answer, 400, 'INVALID_PARAMETER');
  expect(answer.text.length).toBeLessThan(4096);
  expect(answer.body.errors).toHaveLength(10);
});

describe('CORS: the stage’s allow-list, never credentials', () => {
  it('echoes an allowed origin (a local dev server on any port), with Vary and the headers page code may read', async () => {
    for (const origin of [DASHBOARD, 'http://127.0.0.1:8080', 'http://localhost']) {
      const answer = await call('/api/all/balance', { headers: { origin } });
      expect(answer.status).toBe(200);
      expect(answer.headers['access-control-allow-origin']).toBe(origin);
      expect(answer.headers.vary).toBe('Origin');
      expect(answer.headers['access-control-expose-headers'].split(/,\s*/)).toEqual(
        expect.arrayContaining(['X-Request-Id', 'Retry-After']),
      );
    }
  });

  it('gives any other site nothing to read, on answers and errors alike', async () => {
    for (const origin of ['https://evil.example', 'http://localhost.evil.example', 'null', 'http://192.168.1.10:3000']) {
      for (const path of ['/api/all/trades?limit=1', '/api/nobody/balance', '/nowhere']) {
        const answer = await call(path, { headers: { origin } });
        expect(answer.headers).not.toHaveProperty('access-control-allow-origin');
        expect(answer.headers.vary).toBe('Origin');
      }
    }
  });

  it('answers the preflight as the deployed stage does: serverless.yml’s cors block, an origin only to an allowed Origin', async () => {
    const allowed = await call('/api/all/trades', {
      method: 'OPTIONS',
      headers: { origin: DASHBOARD, 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-api-key' },
    });
    expect(allowed.status).toBe(200);
    expect(allowed.headers['access-control-allow-origin']).toBe(DASHBOARD);
    expect(allowed.headers['access-control-allow-headers'].toLowerCase().split(',')).toEqual(
      expect.arrayContaining(['x-api-key', 'if-none-match']),
    );
    expect(allowed.headers['access-control-allow-methods'].split(',')).toEqual(expect.arrayContaining(['GET', 'OPTIONS']));
    // Like every other answer (and the deployed preflight, whose mock integration resources/stage-options.js extends).
    expectCommonHeaders(allowed);
    expect(allowed.headers.vary).toBe('Origin');
    // A foreign or missing Origin is named no origin at all (not the allow-list's first entry).
    for (const headers of [{ origin: 'https://evil.example' }, {}] as Record<string, string>[]) {
      const refused = await call('/api/all/trades', { method: 'OPTIONS', headers: { ...headers, 'access-control-request-method': 'GET' } });
      expect([refused.status, refused.headers['access-control-allow-origin'], refused.headers.vary]).toEqual([200, undefined, 'Origin']);
    }
    expect((await call('/nowhere', { method: 'OPTIONS', headers: { origin: DASHBOARD } })).status).toBe(404);
  });
});

it('serves only requests addressed to a loopback name (no DNS rebinding)', async () => {
  const port = new URL(api.url).port;
  for (const host of [`attacker.example:${port}`, 'attacker.example', `192.168.1.10:${port}`, `localhost.attacker.example:${port}`]) {
    const answer = await call('/api/all/trades?limit=5', { headers: { host, origin: DASHBOARD } });
    expect(answer.status).toBe(421);
    // A refusal of the local gateway's own carries the stage's fixed CORS headers, as API Gateway's own answers do.
    expect([answer.headers.vary, answer.headers['access-control-allow-origin']]).toEqual(['Origin', undefined]);
    expect(answer.body).toMatchObject({ code: 'MISDIRECTED_REQUEST', status: 421 });
    expect(schemaViolations('Problem', answer.body)).toEqual([]);
    expect(answer.text).not.toContain('e2e-usd');
  }
  for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`]) {
    expect((await call('/api/health', { headers: { host } })).status).toBe(200);
  }
});

it('answers unknown routes and methods with a 404 problem, never a route listing', async () => {
  // (GET / is the dashboard's page.)
  for (const [method, path] of [
    ['POST', '/'],
    ['GET', '/assets/'],
    ['GET', '/index.html'],
    ['GET', '/api'],
    ['GET', '/api/'],
    ['GET', '/API/accounts'],
    ['GET', '/api/accounts/extra'],
    ['GET', '/api//balance'],
    ['POST', '/api/health'],
    ['DELETE', '/api/accounts'],
    ['PUT', '/api/e2e-usd/trades'],
  ]) {
    const answer = await call(path, { method, body: method === 'GET' ? undefined : '{}' });
    expectProblem(answer, 404, 'NOT_FOUND');
    expect(answer.text).not.toMatch(/existingRoutes|currentRoute/);
    // No route matched, so no route is named (never an empty `instance`); the dashboard's 404 names its file.
    if (path.startsWith('/api')) expect(answer.body).not.toHaveProperty('instance');
  }
});

it('routes paths as openapi.yaml says: a trailing slash and encoded letters are the same path; dots, HEAD, // are none', async () => {
  expect((await get('/api/health/', '/api/health')).statusCode).toBe(200);
  expect((await get('/api/%61ll/balance', '/api/all/balance')).body.accounts).toHaveLength(3);
  expect((await get('/api/e2e-usd/tr%61des/?limit=1', '/api/{account}/trades')).body.trades).toHaveLength(1);
  expect((await get('/api/e2e%2Dusd/balance', '/api/{account}/balance')).body.accountId).toBe('e2e-usd');
  expect((await get('/api/e2e-usd%2Fx/balance', '/api/{account}/balance')).body.code).toBe('ACCOUNT_NOT_FOUND');
  for (const path of ['/api/e2e-usd/../health', '/api/./accounts', '/api/%2e%2E/balance', '/api/health//', '/api//accounts']) {
    const answer = await raw(`GET ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`);
    expect([path, answer.status, (answer.body as { code?: string }).code]).toEqual([path, 404, 'NOT_FOUND']);
  }
  const head = await raw('HEAD /api/health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
  expect([head.status, head.body]).toEqual([404, '']);
});

/** Sends `request` as raw bytes (what no HTTP client would send) and parses the answer. */
async function raw(request: Buffer | string): Promise<{ status: number; headers: Record<string, string>; body: unknown }> {
  const { status, headers, text } = await rawHttp(Number(new URL(api.url).port), request);
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Left as text: the expectation below then says what came instead.
  }
  return { status, headers, body };
}

it('answers malformed requests with a problem, as every other refusal: bad encoding, raw bytes, folded headers, oversize', async () => {
  const request = (target: Buffer | string, extra = '') =>
    Buffer.concat([
      Buffer.from('GET '),
      Buffer.from(target),
      Buffer.from(` HTTP/1.1\r\nHost: localhost\r\n${extra}Connection: close\r\n\r\n`),
    ]);
  const cases: [string, Buffer, number][] = [
    ['bad percent-encoding', request('/api/%zz/balance'), 400],
    ['a truncated UTF-8 sequence', request('/api/%C3/balance'), 400],
    ['raw non-ASCII bytes', request(Buffer.concat([Buffer.from('/api/caf'), Buffer.from([0xc3, 0xa9]), Buffer.from('/balance')])), 400],
    ['a raw NUL', request('/api/e2e\u0000usd/balance'), 400],
    ['a raw space', request('/api/e2e usd/balance'), 400],
    ['an obs-fold header', request('/api/health', 'X-Note: one\r\n  two\r\n'), 400],
    ['a header block over 10,240 bytes', request('/api/health', `X-Big: ${'a'.repeat(11_000)}\r\n`), 431],
    ['a query over 10,240 bytes', request(`/api/e2e-usd/trades?instrument=${'a'.repeat(11_000)}`), 431],
  ];
  const answers = [];
  for (const [name, bytes, status] of cases) {
    const answer = await raw(bytes);
    answers.push({
      name,
      status: answer.status,
      type: answer.headers['content-type'],
      code: (answer.body as { code?: string }).code,
      violations: schemaViolations('Problem', answer.body),
      nosniff: answer.headers['x-content-type-options'],
      vary: answer.headers.vary,
    });
    expect(answers.at(-1)).toEqual({
      name,
      status,
      type: 'application/problem+json',
      code: 'INVALID_PARAMETER',
      violations: [],
      nosniff: 'nosniff',
      vary: 'Origin',
    });
  }
  // Just under the limit is served.
  expect((await raw(request('/api/health', `X-Big: ${'a'.repeat(9_000)}\r\n`))).status).toBe(200);
});

it('serves no account data on the Lambda port: not to a web page, not to a forged identity', async () => {
  const forged = JSON.stringify({
    httpMethod: 'GET',
    path: '/api/all/trades',
    resource: '/api/all/trades',
    requestContext: { authorizer: { accounts: '*' } },
  });
  const trades = `${harness.stage}-all-trades`;
  // A page's cross-origin "simple" request: text/plain needs no preflight.
  const fromPage = await http(`${api.lambdaUrl}/2015-03-31/functions/trading-bot-api-${trades}/invocations`, {
    method: 'POST',
    headers: { origin: 'https://evil.example', 'content-type': 'text/plain' },
    body: forged,
  });
  expect(fromPage.status).toBe(403);
  expect(fromPage.headers).not.toHaveProperty('access-control-allow-origin');
  expect(fromPage.text).not.toContain('e2e-usd');
  // Not from a page, but the function is one the gateway guards: its caller's identity comes only from there.
  const direct = await http(`${api.lambdaUrl}/2015-03-31/functions/trading-bot-api-${trades}/invocations`, {
    method: 'POST',
    body: forged,
  });
  expect(direct.status).toBe(403);
  expect(direct.text).not.toContain('e2e-usd');
  const authorizer = await http(`${api.lambdaUrl}/2015-03-31/functions/trading-bot-api-${harness.stage}-authorizer/invocations`, {
    method: 'POST',
    body: '{}',
  });
  expect(authorizer.status).toBe(403);
  expect(
    (
      await http(`${api.lambdaUrl}/2015-03-31/functions/trading-bot-api-${trades}/invocations`, {
        method: 'POST',
        headers: { host: 'attacker.example' },
        body: forged,
      })
    ).status,
  ).toBe(421);
  // What it is for: invoking the functions no route serves, such as the probe, as the AWS CLI would.
  const probe = await http(`${api.lambdaUrl}/2015-03-31/functions/trading-bot-api-${harness.stage}-probe/invocations`, {
    method: 'POST',
    body: '{}',
  });
  expect(probe.status).toBe(200);
  expect(probe.body).toMatchObject({ databaseHealthy: true, bots: { total: 3 } });
});

it('stays within its bounds under 50 concurrent clients: every answer complete, none an empty 5xx', async () => {
  const answers = await Promise.all(
    Array.from({ length: 50 }, async () => {
      const mine: HttpAnswer[] = [];
      for (let i = 0; i < 4; i++) mine.push(await call('/api/e2e-usd/trades?limit=50'));
      return mine;
    }),
  );
  for (const answer of answers.flat()) {
    if (answer.status === 200) expect(answer.body.trades).toHaveLength(50);
    else expectProblem(answer, 429, 'TOO_MANY_REQUESTS');
  }
  // Throttled, not shut: the stage's burst is served whole (a gateway answering every request 429 fails here).
  expect(answers.flat().filter((answer) => answer.status === 200).length).toBeGreaterThan(0);
});

it('npm run export and npm run import: a round trip keeps every field; the CoinTracking file says what it left out', async () => {
  // Last in the file: an account of its own, which the fleet's answers above do not count.
  const account = 'e2e-ft';
  await harness.writer.upsertAccount({ id: account, name: 'FT', currency: 'USDT', broker: 'binance', environment: 'paper' });
  const at = (hours: number) => new Date(Date.parse('2026-10-20T00:00:00.000Z') + hours * 3_600_000).toISOString();
  const base = { side: 'buy', units: '0.015', openPrice: '61250.50', stopLoss: null, takeProfit: null, unrealizedPL: '0' };
  const written = await harness.writer.recordTrades(account, [
    {
      ...base,
      id: 'spot-1',
      instrument: 'BTC_USDT',
      status: 'closed',
      openTime: at(0),
      closePrice: '61500.5',
      closeTime: at(6),
      realizedPL: '2.8',
      closeReason: 'roi',
      market: 'spot',
      fees: [
        { amount: '0.000015', currency: 'BTC', leg: 'open' },
        { amount: '0.9225075', currency: 'USDT', leg: 'close' },
        { amount: '0.0021', currency: 'BNB', leg: 'close' },
      ],
      orderIds: ['8389765504', '8389771920'],
    },
    {
      ...base,
      id: 'perp-1',
      instrument: 'SOL_USDT_PERP',
      side: 'sell',
      units: '10.00',
      openPrice: '150.25',
      status: 'closed',
      openTime: at(1),
      closePrice: '140.50',
      closeTime: at(7),
      realizedPL: '95.19375',
      closeReason: 'stop_loss',
      leverage: '5',
      fees: [
        { amount: '0.75125', currency: 'USDT', leg: 'open' },
        { amount: '0.7025', currency: 'USDT', leg: 'close' },
      ],
      fundingFees: '0.8525',
      liquidationPrice: '178.42',
      orderIds: ['9001', '9002'],
    },
    { ...base, id: 'gone-1', instrument: 'ETH_USDT', status: 'gone', openTime: at(2), closeTime: at(3), closeReason: 'gone from the bot' },
    { ...base, id: 'open-1', instrument: 'ETH_USDT', status: 'open', openTime: at(4), market: 'spot', fees: [] },
  ]);
  expect(written.filter((result) => !('outcome' in result))).toEqual([]);
  const dir = mkdtempSync(join(tmpdir(), 'round-trip-'));
  try {
    const file = join(dir, 'trades.csv');
    const exported = await runScript('export', ['--account', account, '--out', file, '--url', api.url]);
    expect(exported.status).toBe(0);
    // Into a fresh account: the file's accountId cells name the copy.
    const copy = `${account}-copy`;
    writeFileSync(file, readFileSync(file, 'utf8').replaceAll(`,${account},`, `,${copy},`));
    const imported = await runScript('import', [
      ...['--account', copy, '--create', '--currency', 'USDT', '--stage', harness.stage, '--endpoint', harness.db.endpoint],
      file,
    ]);
    expect(imported.stdout).toContain('4 rows read, 4 written, 0 unchanged, 0 rejected');
    const listing = async (id: string) => (await get(`/api/${id}/trades`, '/api/{account}/trades')).body.trades as Trade[];
    const original = await listing(account);
    expect((await listing(copy)).map((trade) => ({ ...trade, accountId: account }))).toEqual(original);
    expect(original.find((trade) => trade.id === 'perp-1')).toMatchObject({
      feeTotal: '1.45375',
      fundingFees: '0.8525',
      market: 'futures',
    });

    const tax = await runScript('export', [
      '--account',
      account,
      '--format',
      'cointracking',
      '--out',
      join(dir, 'ct.csv'),
      '--url',
      api.url,
    ]);
    expect(tax.status).toBe(0);
    expect(tax.stderr).toContain('export: left out 1 gone trade (the bot no longer has them: their outcome is unknown) and 1 open trade');
    const records = readFileSync(join(dir, 'ct.csv'), 'utf8').trim().split('\r\n');
    expect(records.filter((record) => record.includes('perp-1')).map((record) => record.split(',')[0])).toEqual([
      'Derivatives / Futures Profit',
      'Derivatives / Futures Loss',
    ]);
    expect(records.some((record) => record.includes('gone-1') || record.includes('open-1'))).toBe(false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

afterAll(() => {
  // Checked over every answer above, errors and preflights included.
  expect(seen.length).toBeGreaterThan(100);
  for (const answer of seen) expect(answer.headers).not.toHaveProperty('access-control-allow-credentials');
});
