/**
 * What the functions log, through the real handlers: one structured access line per request carrying the request
 * id the client got, the route, status, duration and items read; a 503 as a warning; a 500 once with its stack and
 * nothing of it for the client; never the event or a body.
 */
import { generateDataset } from '../../scripts/demo/dataset';
import { eventFor, type Harness, invoke, startHarness } from '../kit/api-harness';
import { FaultProxy } from '../kit/fault-proxy';
import { printedWhile } from '../kit/printed';

const dataset = generateDataset({ tradeCounts: [30], accountId: () => 'log-acc', seed: 2 });
let harness: Harness;
let proxy: FaultProxy;

beforeAll(async () => {
  harness = await startHarness({
    LOG_LEVEL: 'INFO',
    DYNAMODB_CONNECT_TIMEOUT_MS: '200',
    DYNAMODB_REQUEST_TIMEOUT_MS: '400',
    DYNAMODB_MAX_ATTEMPTS: '1',
  });
  await harness.load(dataset);
  proxy = await new FaultProxy(harness.db.endpoint).start();
  process.env.DYNAMODB_ENDPOINT = proxy.endpoint;
});
afterEach(() => proxy.clear());
afterAll(async () => {
  await proxy.close();
  await harness.close();
});

/** Invokes a function and returns its answer and every line it logged (stdout and stderr). */
async function logged(name: 'account-trades', query: Record<string, string>, headers: Record<string, string> = {}) {
  const { result: response, text, lines } = await printedWhile(() => invoke(name, eventFor(name, { account: 'log-acc', query, headers })));
  return { response, text, lines };
}

it('logs one access line per request, with the id the client got and what the request cost', async () => {
  const { response, lines, text } = await logged('account-trades', { limit: '5' }, { 'x-api-key': 'tbk_secret-looking-value' });
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatchObject({
    level: 'INFO',
    message: 'request',
    service: 'trading-bot-api',
    stage: harness.stage,
    function_name: 'account-trades',
    cold_start: expect.any(Boolean),
    request_id: response.headers['X-Request-Id'],
    method: 'GET',
    route: '/api/{account}/trades',
    status: 200,
    itemsRead: 6,
  });
  expect(lines[0].durationMs).toBeGreaterThan(0);
  // Never the event, the body or a key.
  expect(text).not.toMatch(/multiValueHeaders|tbk_secret|"trades"|realizedPL/);
});

it('logs a 503 as a warning, with its cause under the request id', async () => {
  await proxy.inject({ kind: 'refuse' });
  const { response, lines } = await logged('account-trades', {});
  expect(response.statusCode).toBe(503);
  expect(lines).toEqual([
    expect.objectContaining({
      level: 'WARN',
      message: 'database unavailable',
      fault: 'unavailable',
      // The proxy drops the connections it had: the SDK's socket hangs up.
      reason: expect.stringMatching(/socket hang up|ECONNRESET|ECONNREFUSED/),
      request_id: response.headers['X-Request-Id'],
    }),
    expect.objectContaining({ level: 'WARN', message: 'request', status: 503, request_id: response.headers['X-Request-Id'] }),
  ]);
});

it('logs a 500 once with its stack, and tells the client nothing but the request id', async () => {
  await proxy.inject({ kind: 'validation-error' });
  const { response, lines } = await logged('account-trades', {});
  expect(response.statusCode).toBe(500);
  expect(JSON.stringify(response.body)).not.toMatch(/ValidationException|stack|at /);
  const withStack = lines.filter((line) => JSON.stringify(line).includes('"stack"'));
  expect(withStack).toHaveLength(1);
  expect(withStack[0]).toMatchObject({
    level: 'ERROR',
    message: 'unexpected error',
    request_id: response.body.requestId,
    error: expect.objectContaining({ name: 'ValidationException' }),
  });
  expect(lines.find((line) => line.message === 'request')).toMatchObject({ level: 'ERROR', status: 500 });
});

it('logs a misconfiguration as an error naming the table and the missing permission, and answers a 500 that says only what it is', async () => {
  await proxy.inject({ kind: 'refusal', error: 'AccessDeniedException' });
  const { response, lines, text } = await logged('account-trades', {});
  expect(response.statusCode).toBe(500);
  expect(response.body.detail).toMatch(/misconfigured/);
  expect(JSON.stringify(response.body)).not.toMatch(/AccessDenied|dynamodb:|trading-bot-api-/);
  expect(lines[0]).toMatchObject({
    level: 'ERROR',
    message: 'database misconfigured',
    misconfigured: 'permission',
    reason: 'AccessDeniedException',
    request_id: response.body.requestId,
    cause: expect.stringMatching(new RegExp(`lacks a permission.*dynamodb:\\w+ on resource: .*table/trading-bot-api-${harness.stage}-`)),
  });
  expect(lines.find((line) => line.message === 'request')).toMatchObject({ level: 'ERROR', status: 500 });
  // No stack for a misconfiguration: it is not a bug of the code.
  expect(text).not.toMatch(/"stack"/);
});
