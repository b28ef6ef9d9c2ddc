/**
 * Every operation through its real handler against DynamoDB Local, with the events in events/, each response checked
 * against openapi.yaml.
 */
import { generateDataset } from '../../scripts/demo/dataset';
import { eventFile, eventFor, type Harness, invoke, ROUTES, startHarness } from '../kit/api-harness';
import { expectContract } from '../kit/contract';
import { expectedTrades } from '../kit/expected';

const IDS = ['acc-alpha', 'acc-bravo', 'acc-charlie', 'acc-delta'];
const dataset = generateDataset({ tradeCounts: [130, 60, 0, 25], accountId: (i) => IDS[i], seed: 7 });
let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({ CORS_ALLOWED_ORIGINS: 'http://localhost:5173' });
  await harness.load(dataset);
});
afterAll(() => harness.close());

function expectCommonHeaders(headers: Record<string, string>) {
  expect(headers['X-Request-Id']).toEqual(expect.any(String));
  expect(headers['Cache-Control']).toBe('no-store');
  expect(headers['X-Content-Type-Options']).toBe('nosniff');
  expect(headers['Strict-Transport-Security']).toMatch(/^max-age=\d+/);
  expect(headers).not.toHaveProperty('X-Powered-By');
}

describe('each operation with its event from events/', () => {
  it('health: 200 with the database check', async () => {
    const response = await invoke('health', eventFile('health'));
    expectContract(ROUTES.health, response);
    expect(response.statusCode).toBe(200);
    expect(response.body).toMatchObject({
      status: 'ok',
      service: 'Trading Bot API',
      version: '1.0',
      checks: { database: { status: 'ok' } },
    });
    expectCommonHeaders(response.headers);
  });

  it('accounts: every account, sorted by id', async () => {
    const response = await invoke('accounts', eventFile('accounts'));
    expectContract(ROUTES.accounts, response);
    expect(response.body.count).toBe(IDS.length);
    expect(response.body.accounts).toEqual(dataset.accounts.map((a) => a.account).sort((a, b) => (a.id < b.id ? -1 : 1)));
  });

  it('all/balance: balances by account and exact totals per currency', async () => {
    const response = await invoke('all-balance', eventFile('all-balance'));
    expectContract(ROUTES['all-balance'], response);
    const balances = dataset.accounts.map((a) => a.balance);
    expect(response.body.accounts).toEqual(balances);
    expect(response.body.totals.map((t: { currency: string }) => t.currency)).toEqual(['EUR', 'GBP', 'USD']);
    const usd = response.body.totals.find((t: { currency: string }) => t.currency === 'USD');
    expect(usd.accountCount).toBe(2);
    expect(usd.openTradeCount).toBe(balances.filter((b) => b.currency === 'USD').reduce((n, b) => n + b.openTradeCount, 0));
    expect(response.body.asOf).toBe(balances.map((b) => b.updatedAt).sort()[0]);
  });

  it('all/trades: the newest trades of every account', async () => {
    const response = await invoke('all-trades', eventFile('all-trades'));
    expectContract(ROUTES['all-trades'], response);
    expect(response.body.trades).toEqual(expectedTrades(dataset.trades, { status: 'open' }).slice(0, 5));
    expect(response.body).toMatchObject({ count: 5, limit: 5 });
  });

  it('account balance, status and trades', async () => {
    const balance = await invoke('account-balance', eventFor('account-balance', { account: 'acc-bravo' }));
    expectContract(ROUTES['account-balance'], balance);
    expect(balance.body).toEqual(dataset.accounts[1].balance);

    const status = await invoke('account-status', eventFor('account-status', { account: 'acc-bravo' }));
    expectContract(ROUTES['account-status'], status);
    expect(status.body).toMatchObject({
      accountId: 'acc-bravo',
      state: dataset.accounts[1].bot.state,
      openTradeCount: dataset.accounts[1].balance.openTradeCount,
    });

    const trades = await invoke(
      'account-trades',
      eventFor('account-trades', { account: 'acc-alpha', query: { instrument: 'eur_usd', limit: '10' } }),
    );
    expectContract(ROUTES['account-trades'], trades);
    expect(trades.body.trades).toEqual(expectedTrades(dataset.trades, { accountId: 'acc-alpha', instrument: 'EUR_USD' }).slice(0, 10));
  });

  it('all/status: every account’s status, sorted, as /api/{account}/status answers it, and the counts', async () => {
    const response = await invoke('all-status', eventFile('all-status'));
    expectContract(ROUTES['all-status'], response);
    const { accounts, summary } = response.body;
    expect(accounts.map((a: { accountId: string }) => a.accountId)).toEqual([...IDS].sort());
    for (const status of accounts) {
      const single = await invoke('account-status', eventFor('account-status', { account: status.accountId }));
      // Ages are computed from the clock, which may have ticked between the two calls.
      const { heartbeatAgeSeconds, ...rest } = single.body;
      expect(status).toMatchObject(rest);
      expect(Math.abs(status.heartbeatAgeSeconds - heartbeatAgeSeconds)).toBeLessThanOrEqual(1);
    }
    const states = dataset.accounts.map((a) => a.bot.state);
    const stale = accounts.filter((a: { stale: boolean }) => a.stale).length;
    expect(summary).toEqual({
      total: IDS.length,
      running: states.filter((s) => s === 'running').length - stale,
      paused: states.filter((s) => s === 'paused').length,
      stopped: states.filter((s) => s === 'stopped').length,
      error: states.filter((s) => s === 'error').length,
      stale,
    });
    // The dataset's bots heartbeated long ago: the running ones are stale, counted as stale and not as running (1.7).
    expect([summary.stale, summary.running]).toEqual([states.filter((s) => s === 'running').length, 0]);
  });

  it('an account without trades lists none, with no next page', async () => {
    const response = await invoke('account-trades', eventFor('account-trades', { account: 'acc-charlie', query: {} }));
    expectContract(ROUTES['account-trades'], response);
    expect(response.body).toEqual({ trades: [], count: 0, limit: 50, nextCursor: null });
  });

  it('sends CORS headers to an allowed origin only', async () => {
    const allowed = await invoke('accounts', eventFor('accounts', { headers: { origin: 'http://localhost:5173' } }));
    expect(allowed.headers['Access-Control-Allow-Origin']).toBe('http://localhost:5173');
    const other = await invoke('accounts', eventFor('accounts', { headers: { origin: 'https://evil.example' } }));
    expect(other.headers).not.toHaveProperty('Access-Control-Allow-Origin');
  });
});

describe('errors', () => {
  async function expectProblem(name: keyof typeof ROUTES, event: ReturnType<typeof eventFile>, status: number, code: string) {
    const response = await invoke(name, event);
    expectContract(ROUTES[name], response);
    expect(response.statusCode).toBe(status);
    expect(response.headers['Content-Type']).toMatch(/^application\/problem\+json/);
    expect(response.body).toMatchObject({ status, code, requestId: response.headers['X-Request-Id'], instance: event.path });
    expectCommonHeaders(response.headers);
    expect(JSON.stringify(response.body)).not.toMatch(/trading-bot-api-test|Exception|at \w+ \(/);
    return response.body;
  }

  it('the error events in events/ give their documented answers', async () => {
    expect((await expectProblem('account-trades', eventFile('account-trades-invalid-limit'), 400, 'INVALID_PARAMETER')).errors).toEqual([
      { parameter: 'limit', message: expect.any(String) },
    ]);
    expect(
      (await expectProblem('account-trades', eventFile('account-trades-repeated-status'), 400, 'INVALID_PARAMETER')).errors[0].parameter,
    ).toBe('status');
    expect(
      (await expectProblem('account-trades', eventFile('account-trades-unknown-parameter'), 400, 'INVALID_PARAMETER')).errors[0].parameter,
    ).toBe('sort');
    expect(
      (await expectProblem('account-trades', eventFile('account-trades-bad-cursor'), 400, 'INVALID_PARAMETER')).errors[0].parameter,
    ).toBe('cursor');
    await expectProblem('account-balance', eventFile('account-balance-not-found'), 404, 'ACCOUNT_NOT_FOUND');
    expect((await expectProblem('account-trades', eventFile('account-trades-reversed-window'), 400, 'INVALID_PARAMETER')).errors).toEqual([
      { parameter: 'from', message: 'must be earlier than to' },
    ]);
  });

  it.each([
    ['limit', '0'],
    ['limit', '1.5'],
    ['limit', '1e3'],
    ['limit', '501'],
    ['limit', ''],
    ['status', 'pending'],
    ['status', ''],
    ['instrument', 'EURUSD'],
    ['cursor', ''],
  ])('%s=%j is a 400 naming it, on both listings', async (parameter, value) => {
    for (const name of ['all-trades', 'account-trades'] as const) {
      const body = await expectProblem(
        name,
        eventFor(name, { account: 'acc-alpha', query: { [parameter]: value } }),
        400,
        'INVALID_PARAMETER',
      );
      expect(body.errors).toEqual([{ parameter, message: expect.any(String) }]);
    }
  });

  it('operations without parameters refuse any', async () => {
    for (const name of ['health', 'accounts', 'all-balance', 'account-balance', 'account-status', 'all-status'] as const) {
      const body = await expectProblem(name, eventFor(name, { account: 'acc-alpha', query: { limit: '5' } }), 400, 'INVALID_PARAMETER');
      expect(body.errors[0].parameter).toBe('limit');
    }
  });

  it('an unknown or impossible account is ACCOUNT_NOT_FOUND on every per-account path', async () => {
    for (const account of ['no-such-account', 'ALL', '..', 'a'.repeat(65), 'acc alpha', '%00']) {
      for (const name of ['account-balance', 'account-trades', 'account-status', 'account-pnl', 'account-equity'] as const) {
        await expectProblem(name, eventFor(name, { account, query: {} }), 404, 'ACCOUNT_NOT_FOUND');
      }
    }
  });
});
