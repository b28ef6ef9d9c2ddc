/**
 * DynamoDB faults injected on the wire by a proxy between the real SDK and DynamoDB Local: every fault ends in the
 * complete answer or a bounded 503, never a hang, a 5xx of another kind, or a silently shorter list.
 */
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import tables from '../../resources/tables.js';
import { generateDataset } from '../../scripts/demo/dataset';
import { adminClient } from '../../scripts/local-stack/local-db';
import { eventFor, type Harness, invoke, ROUTES, startHarness } from '../kit/api-harness';
import { expectContract } from '../kit/contract';
import { expectedTrades } from '../kit/expected';
import { FaultProxy } from '../kit/fault-proxy';
import { printedWhile } from '../kit/printed';

jest.setTimeout(30_000);

const IDS = ['f-1', 'f-2', 'f-3', 'f-4', 'f-5', 'f-6', 'f-7'];
// f-1's 60 trades: more than a page of 50 (its first listing below has a cursor, its closed ones none) and, with
// pages cut to one item, some sixty queries a listing: every page edge the short pages make is still there.
const dataset = generateDataset({ tradeCounts: [60, 30, 20, 10, 5, 0, 3], accountId: (i) => IDS[i], seed: 5 });
// Tight timeouts keep this file fast; the defaults' worst case is checked in the unit tests of readConfig.
const BUDGET_MS = 3 * 400 + 2500;
/**
 * What a test allows a request: the budget above (three attempts of 400 ms and the SDK's back-off) three times over,
 * since a loaded machine delays the timers and not the logic (6.3 s once, for a 3.7 s budget). A request the timeouts
 * did not bound would wait on the hanging proxy for the test's whole minute.
 */
const ALLOWED_MS = 3 * BUDGET_MS;
let harness: Harness;
let proxy: FaultProxy;

beforeAll(async () => {
  harness = await startHarness();
  proxy = await new FaultProxy(harness.db.endpoint).start();
  Object.assign(process.env, {
    DYNAMODB_ENDPOINT: proxy.endpoint,
    DYNAMODB_CONNECT_TIMEOUT_MS: '200',
    DYNAMODB_REQUEST_TIMEOUT_MS: '400',
    DYNAMODB_MAX_ATTEMPTS: '3',
  });
  await harness.load(dataset);
});
afterEach(() => proxy.clear());
afterAll(async () => {
  await proxy.close();
  await harness.close();
});

async function timed<T>(run: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const started = performance.now();
  const result = await run();
  return { result, ms: performance.now() - started };
}

const tradesOf = (account: string, query: Record<string, string> = {}) =>
  invoke('account-trades', eventFor('account-trades', { account, query }));

describe.each([
  ['refused connections', { kind: 'refuse' } as const],
  ['a database that never answers', { kind: 'hang' } as const],
  ['ProvisionedThroughputExceededException', { kind: 'throttle', error: 'ProvisionedThroughputExceededException' } as const],
  ['ThrottlingException', { kind: 'throttle', error: 'ThrottlingException' } as const],
])('%s', (_, fault) => {
  it('data operations answer 503 SERVICE_UNAVAILABLE with Retry-After, within the budget', async () => {
    await proxy.inject(fault);
    // At once, as concurrent requests would come: each waits out the SDK's retries on its own.
    const answers = await Promise.all(
      (
        [
          ['account-trades', 'f-1'],
          ['all-balance', undefined],
          ['account-status', 'f-2'],
          ['accounts', undefined],
        ] as const
      ).map(([name, account]) => timed(() => invoke(name, eventFor(name, { account, query: {} })))),
    );
    for (const { result, ms } of answers) {
      expect(result.statusCode).toBe(503);
      expect(result.body).toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503 });
      expect(result.headers['Retry-After']).toMatch(/^\d+$/);
      expect(JSON.stringify(result.body)).not.toMatch(/Exception|ECONN|Timeout|trading-bot-api/);
      expect(ms).toBeLessThan(ALLOWED_MS);
    }
  });

  it('health answers 503 "unavailable", and the first request after the fault clears succeeds', async () => {
    await proxy.inject(fault);
    const { result, ms } = await timed(() => invoke('health', eventFor('health', { query: {} })));
    expectContract('/api/health', result);
    expect(result.statusCode).toBe(503);
    expect(result.body).toMatchObject({ status: 'unavailable', checks: { database: { status: 'error' } } });
    expect(ms).toBeLessThan(ALLOWED_MS);
    await proxy.clear();
    expect((await invoke('health', eventFor('health', { query: {} }))).statusCode).toBe(200);
    expect((await tradesOf('f-1')).statusCode).toBe(200);
  });
});

describe.each([
  ['a permission the role lacks (AccessDeniedException)', 'AccessDeniedException'],
  ['a table that does not exist (ResourceNotFoundException)', 'ResourceNotFoundException'],
  ['credentials DynamoDB does not know (UnrecognizedClientException)', 'UnrecognizedClientException'],
] as const)('%s', (_, error) => {
  it('is not an outage: data operations and health answer 500 without Retry-After, at once, saying it is a misconfiguration', async () => {
    await proxy.inject({ kind: 'refusal', error });
    for (const [name, account] of [
      ['account-trades', 'f-1'],
      ['all-balance', undefined],
      ['account-status', 'f-2'],
      ['accounts', undefined],
      ['health', undefined],
    ] as const) {
      const { result, ms } = await timed(() => invoke(name, eventFor(name, { account, query: {} })));
      expectContract(ROUTES[name], result);
      expect(result.statusCode).toBe(500);
      expect(result.body).toMatchObject({ code: 'INTERNAL_ERROR', status: 500, detail: expect.stringContaining('misconfigured') });
      expect(result.headers['Retry-After']).toBeUndefined();
      // Neither the table, the role nor DynamoDB's words reach the client; the log has them.
      expect(JSON.stringify(result.body)).not.toMatch(/Exception|arn:|trading-bot-api-/);
      expect(ms).toBeLessThan(ALLOWED_MS / 2);
    }
    // Not retried by the SDK as an outage would be: health's one read is one request (three attempts are allowed),
    // then one read per table to name the one refused.
    proxy.seen.length = 0;
    await invoke('health', eventFor('health', { query: {} }));
    expect(proxy.seen).toEqual(['BatchGetItem', ...tables.DATA_TABLES.map(() => 'GetItem')]);
  });
});

it('a slow answer within the request timeout is still an answer', async () => {
  await proxy.inject({ kind: 'slow', delayMs: 150 });
  const response = await tradesOf('f-2', { limit: '5' });
  expect(response.statusCode).toBe(200);
  expect(response.body.trades).toEqual(expectedTrades(dataset.trades, { accountId: 'f-2' }).slice(0, 5));
});

it('a slow answer beyond the request timeout is a 503 within the budget', async () => {
  await proxy.inject({ kind: 'slow', delayMs: 2000 });
  const { result, ms } = await timed(() => tradesOf('f-2'));
  expect(result.statusCode).toBe(503);
  expect(ms).toBeLessThan(ALLOWED_MS);
});

it('one throttled call is retried by the SDK and the answer is complete', async () => {
  await proxy.inject({ kind: 'throttle', error: 'ThrottlingException' }, 1);
  const response = await tradesOf('f-1', { limit: '20' });
  expect(response.statusCode).toBe(200);
  expect(response.body.trades).toEqual(expectedTrades(dataset.trades, { accountId: 'f-1' }).slice(0, 20));
});

describe('Query pages cut short (as by the 1 MB limit)', () => {
  it.each([1, 3, 7])('keeping %i item(s) a page, every listing is still complete and full', async (keep) => {
    await proxy.inject({ kind: 'short-pages', keep });
    for (const [account, query] of [
      ['f-1', { limit: '50' }],
      ['f-1', { limit: '500', status: 'closed' }],
      [undefined, { limit: '60', instrument: 'EUR_USD' }],
    ] as const) {
      const name = account ? 'account-trades' : 'all-trades';
      const response = await invoke(name, eventFor(name, { account, query }));
      expect(response.statusCode).toBe(200);
      const expected = expectedTrades(dataset.trades, {
        accountId: account,
        status: 'status' in query ? query.status : undefined,
        instrument: 'instrument' in query ? query.instrument : undefined,
      });
      expect(response.body.trades).toEqual(expected.slice(0, Number(query.limit)));
      expect(response.body.nextCursor === null).toBe(expected.length <= Number(query.limit));
    }
  });

  it('short scan pages still list every account and balance', async () => {
    await proxy.inject({ kind: 'short-pages', keep: 2 });
    const accounts = await invoke('accounts', eventFor('accounts', { query: {} }));
    expect(accounts.body.accounts.map((a: { id: string }) => a.id)).toEqual(IDS);
    const balances = await invoke('all-balance', eventFor('all-balance', { query: {} }));
    expect(balances.body.accounts).toHaveLength(IDS.length);
  });
});

describe('BatchGetItem UnprocessedKeys', () => {
  it('are asked for again: status gets both its items', async () => {
    await proxy.inject({ kind: 'unprocessed-keys' }, 2);
    const response = await invoke('account-status', eventFor('account-status', { account: 'f-1', query: {} }));
    expect(response.statusCode).toBe(200);
    expect(response.body.openTradeCount).toBe(dataset.accounts[0].balance.openTradeCount);
  });

  const scoped = () => {
    const event = eventFor('all-balance', { query: {} });
    event.requestContext.authorizer = { keyId: 'k-faults', accounts: IDS.join(',') };
    return event;
  };

  it('are asked for again until none remain: a scoped key gets every balance', async () => {
    await proxy.inject({ kind: 'unprocessed-keys' }, 3);
    const response = await invoke('all-balance', scoped());
    expect(response.statusCode).toBe(200);
    expect(response.body.accounts.map((b: { accountId: string }) => b.accountId)).toEqual(IDS);
  });

  it('that never clear end in a 503, not in a partial answer', async () => {
    await proxy.inject({ kind: 'unprocessed-keys' });
    const response = await invoke('all-balance', scoped());
    expect(response.statusCode).toBe(503);
    expect(response.body.code).toBe('SERVICE_UNAVAILABLE');
  });
});

// Last: it deletes a table of this file's stage.
it('health checks every table the API reads: with the trades table gone, a 500 that says misconfigured, the table in the log', async () => {
  expect((await invoke('health', eventFor('health', { query: {} }))).statusCode).toBe(200);
  const admin = adminClient(harness.db.endpoint);
  await admin.send(new DeleteTableCommand({ TableName: harness.store.tables.trades }));
  admin.destroy();
  const { result, lines } = await printedWhile(() => invoke('health', eventFor('health', { query: {} })));
  expectContract('/api/health', result);
  expect(result.statusCode).toBe(500);
  expect(result.body).toMatchObject({ code: 'INTERNAL_ERROR', detail: expect.stringContaining('misconfigured') });
  expect(lines).toContainEqual(
    expect.objectContaining({ level: 'ERROR', misconfigured: 'table', cause: expect.stringContaining(`(${harness.store.tables.trades})`) }),
  );
});
