/**
 * Every operation through its real handler against DynamoDB Local, with the events in events/, each response checked
 * against openapi.yaml.
 */
import { generateDataset } from '../../scripts/demo/dataset';
import { eventFile, eventFor, type Harness, invoke, ROUTES, startHarness } from '../kit/api-harness';
import { expectContract } from '../kit/contract';
import { expectedTrades } from '../kit/expected';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { sumDecimals } from '@trading-bot-api/core/decimal';
import { backfillAccount } from '@trading-bot-api/writer';

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

  it('all/comparison: each bot side by side, each figure what its own operations answer for the window (1.8)', async () => {
    const response = await invoke('all-comparison', eventFile('all-comparison'));
    expectContract(ROUTES['all-comparison'], response);
    const { from, to, accounts } = response.body;
    expect(Date.parse(to) - Date.parse(from)).toBe(30 * 86_400_000);
    expect(accounts.map((row: { accountId: string }) => row.accountId)).toEqual([...IDS].sort());
    for (const row of accounts) {
      const account = row.accountId;
      const get = async (name: 'account-performance' | 'account-balance' | 'account-status' | 'account-pnl', query = {}) =>
        (await invoke(name, eventFor(name, { account, query }))).body;
      const [performance, balance, status, pnl] = await Promise.all([
        get('account-performance', { from, to }),
        get('account-balance'),
        get('account-status'),
        get('account-pnl', { from, to }),
      ]);
      const figures = performance.currencies[0];
      expect(row).toMatchObject({
        currency: balance.currency,
        state: status.state,
        nav: balance.nav,
        openTradeCount: balance.openTradeCount,
        closedTrades: figures.closedTrades,
        winRate: figures.winRate,
        profitFactor: figures.profitFactor,
        maxDrawdown: figures.maxDrawdown,
      });
      const days = pnl.points.map((point: { realizedPL: string }) => point.realizedPL);
      const sum = (values: string[]) => (values.some((value) => value !== '0') ? sumDecimals(values) : '0');
      expect(row.realizedPL).toEqual({ today: sum(days.slice(-1)), last7Days: sum(days.slice(-7)), last30Days: sum(days) });
    }
    const again = await invoke('all-comparison', eventFor('all-comparison', { headers: { 'If-None-Match': response.headers.ETag } }));
    expect([again.statusCode, again.headers.ETag]).toEqual([304, response.headers.ETag]);
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
    for (const name of [
      'health',
      'accounts',
      'all-balance',
      'account-balance',
      'account-status',
      'all-status',
      'all-comparison',
    ] as const) {
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

describe('the comparison after a bot moved', () => {
  it('a changed poll shows the bot that traded and recorded a balance, as its own operations do; the others as before', async () => {
    const first = await invoke('all-comparison', eventFile('all-comparison'));
    const account = 'acc-charlie';
    const now = Date.now();
    await harness.writer.openTrade(account, {
      id: 'cmp-1',
      instrument: 'EUR_USD',
      side: 'buy',
      units: '1000',
      openPrice: '1.08000',
      openTime: new Date(now - 60_000).toISOString(),
    });
    await harness.writer.closeTrade(account, 'cmp-1', {
      closePrice: '1.09250',
      closeTime: new Date(now - 1000).toISOString(),
      realizedPL: '12.50',
    });
    const balance = { balance: '5012.50', unrealizedPL: '0', nav: '5012.50', marginUsed: '0', marginAvailable: '5012.50' };
    await harness.writer.recordBalance(account, { ...balance, time: new Date(now).toISOString() });
    const changed = await invoke('all-comparison', eventFor('all-comparison', { headers: { 'If-None-Match': first.headers.ETag } }));
    expectContract(ROUTES['all-comparison'], changed);
    expect(changed.statusCode).toBe(200);
    const rowOf = (body: { accounts: { accountId: string; closedTrades: number }[] }, id: string) =>
      body.accounts.find((row) => row.accountId === id);
    const { from, to } = changed.body;
    const performance = (await invoke('account-performance', eventFor('account-performance', { account, query: { from, to } }))).body;
    const [figures] = performance.currencies;
    expect(rowOf(changed.body, account)).toMatchObject({
      nav: '5012.50',
      openTradeCount: 0,
      closedTrades: figures.closedTrades,
      winRate: figures.winRate,
      realizedPL: { today: '12.50' },
    });
    expect(figures.closedTrades).toBe(rowOf(first.body, account)!.closedTrades + 1);
    for (const id of IDS.filter((other) => other !== account)) expect(rowOf(changed.body, id)).toEqual(rowOf(first.body, id));
  });
});

describe('the comparison and a bot’s deposits', () => {
  it('a deposit moves the NAV, not the return; one kept before the writer marked accounts counts once npm run backfill marks them', async () => {
    const account = 'acc-echo';
    const compared = async () => {
      const response = await invoke('all-comparison', eventFile('all-comparison'));
      expectContract(ROUTES['all-comparison'], response);
      return (response.body.accounts as { accountId: string; nav: string; returnRatio: string | null }[]).find(
        (row) => row.accountId === account,
      );
    };
    const balance = (nav: string, daysAgo: number) =>
      harness.writer.recordBalance(account, {
        balance: nav,
        unrealizedPL: '0',
        nav,
        marginUsed: '0',
        marginAvailable: nav,
        time: new Date(Date.now() - daysAgo * 86_400_000).toISOString(),
      });
    // A bot with 1,000 at the window's start that earned 100 since: a return of 10 %.
    await harness.writer.upsertAccount({ id: account, name: 'Echo', currency: 'USD', broker: 'paper', environment: 'paper' });
    await balance('1000', 10);
    await balance('1100', 2);
    expect(await compared()).toMatchObject({ nav: '1100', returnRatio: '0.1000' });
    // What an exchange feed keeps: a deposit (the writer marks the account in the same transaction), then the balance.
    let version = 0;
    const deposit = async (id: string, amount: string) => {
      const time = new Date(Date.now() - 1000).toISOString();
      const transfer = { id, kind: 'deposit', asset: 'USD', amount, fee: '0', time, value: amount, rate: '1', reference: null };
      ({ version } = await harness.writer.recordTransfers(account, [transfer], { name: 'test:transfers', state: { id }, version }));
    };

    await deposit('dep-1', '1000');
    await balance('2100', 0);
    expect(await compared()).toMatchObject({ nav: '2100', returnRatio: '0.1000' });

    // A stage from before the mark: the account's transfers kept, its item unmarked. Its deposits read as earnings.
    await deposit('dep-2', '500');
    await harness.store.client.send(
      new UpdateCommand({ TableName: harness.store.tables.accounts, Key: { accountId: account }, UpdateExpression: 'REMOVE hasTransfers' }),
    );
    await balance('2600', 0);
    expect(await compared()).toMatchObject({ nav: '2600', returnRatio: '1.6000' });

    expect(await backfillAccount(harness.writer, account)).toMatchObject({ markedTransfers: true });
    expect(await compared()).toMatchObject({ nav: '2600', returnRatio: '0.1000' });
    expect(await backfillAccount(harness.writer, account)).toMatchObject({ markedTransfers: false });
  });
});
