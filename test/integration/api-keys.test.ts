/**
 * Account-scoped API keys, through the real authorizer and handlers as API Gateway chains them: a key sees only
 * its accounts, cannot tell other accounts from missing ones, and cannot reuse another key's cursors.
 */
import { generateDataset } from '../../scripts/demo/dataset';
import { eventFor, type FunctionName, type Harness, invoke, startHarness } from '../kit/api-harness';
import { expectedTrades } from '../kit/expected';
import { call as callApi, throughGateway, runAuthorizer } from '../kit/gateway';

const IDS = ['k-alpha', 'k-bravo', 'k-charlie', 'k-delta'];
const MINE = ['k-bravo', 'k-delta'];
const dataset = generateDataset({ tradeCounts: [90, 70, 40, 55], accountId: (i) => IDS[i], seed: 21 });
let harness: Harness;
const keys: Record<'mine' | 'all' | 'disabled' | 'alpha', string> = { mine: '', all: '', disabled: '', alpha: '' };

beforeAll(async () => {
  harness = await startHarness({ AUTH_MODE: 'required' });
  await harness.load(dataset);
  keys.mine = await harness.createKey(MINE);
  keys.all = await harness.createKey('*');
  keys.alpha = await harness.createKey(['k-alpha']);
  keys.disabled = await harness.createKey(MINE, { disabled: true });
});
afterAll(() => harness.close());

const call = (name: FunctionName, key: string | undefined, options: { account?: string; query?: Record<string, string> } = {}) =>
  callApi(name, { key, ...options });

describe('who may call', () => {
  it('no key or an unknown key: 401 problem+json; a disabled key: 403', async () => {
    for (const key of [undefined, '', `tbk_0000000000000000_${'A'.repeat(43)}`, 'not-a-key', `${keys.mine.slice(0, -1)}x`]) {
      const response = await call('accounts', key);
      expect(response.statusCode).toBe(401);
      expect(response.body).toMatchObject({ code: 'UNAUTHORIZED', status: 401 });
      expect(response.headers['Content-Type']).toBe('application/problem+json');
      expect(response.headers['Cache-Control']).toBe('no-store');
    }
    const disabled = await call('account-trades', keys.disabled, { account: 'k-bravo' });
    expect(disabled).toMatchObject({ statusCode: 403, body: { code: 'FORBIDDEN' } });
  });

  it('health needs no key and says nothing about accounts', async () => {
    const response = await call('health', undefined);
    expect(response.statusCode).toBe(200);
    expect(JSON.stringify(response.body)).not.toMatch(/k-(alpha|bravo|charlie|delta)/);
  });

  it('takes the key from x-api-key on data routes: Authorization: Bearer alone is refused there, as API Gateway refuses it', async () => {
    const bearer = eventFor('accounts', { headers: { Authorization: `Bearer ${keys.mine}` } });
    // x-api-key is the route's identity source: without it the gateway answers before the authorizer runs. The
    // authorizer itself reads a Bearer key (1.4), for the metrics route, whose authorizer has no identity source.
    expect((await throughGateway('accounts', bearer)).statusCode).toBe(401);
    expect((await runAuthorizer(bearer)).context).toEqual({ keyId: expect.any(String), accounts: 'k-bravo,k-delta' });
    expect((await throughGateway('metrics', eventFor('metrics', { headers: { Authorization: `Bearer ${keys.mine}` } }))).statusCode).toBe(
      200,
    );
    await expect(runAuthorizer(eventFor('metrics', { headers: { Authorization: 'Bearer x' } }))).rejects.toThrow('Unauthorized');
    const result = await runAuthorizer(eventFor('accounts', { headers: { 'x-api-key': keys.mine } }));
    expect(result.policyDocument.Statement[0]).toMatchObject({ Effect: 'Allow' });
    expect(result.context).toEqual({ keyId: expect.any(String), accounts: 'k-bravo,k-delta' });
  });

  it('a function reached without the authorizer fails closed', async () => {
    const response = await invoke('accounts', eventFor('accounts', {}));
    expect(response.statusCode).toBe(401);
  });
});

describe('a key limited to some accounts', () => {
  it('lists only its accounts and balances, totals included', async () => {
    const accounts = await call('accounts', keys.mine);
    expect(accounts.body.accounts.map((a: { id: string }) => a.id)).toEqual(MINE);
    const balances = await call('all-balance', keys.mine);
    expect(balances.body.accounts.map((b: { accountId: string }) => b.accountId)).toEqual(MINE);
    expect(balances.body.totals.reduce((n: number, t: { accountCount: number }) => n + t.accountCount, 0)).toBe(2);
    const fleet = await call('all-status', keys.mine);
    expect(fleet.body.accounts.map((s: { accountId: string }) => s.accountId)).toEqual(MINE);
    expect(fleet.body.summary.total).toBe(2);
    const pnl = await call('all-pnl', keys.mine, { query: { period: 'month', from: '2026-01-01T00:00:00Z', to: '2026-12-01T00:00:00Z' } });
    expect(pnl.body.series.reduce((n: number, s: { accountCount: number }) => n + s.accountCount, 0)).toBe(2);
  });

  it('walks all/trades over its accounts only, in the global order', async () => {
    for (const query of [{ limit: '13' }, { limit: '7', status: 'closed', instrument: 'EUR_USD' }] as Record<string, string>[]) {
      const seen: unknown[] = [];
      let cursor: string | undefined;
      do {
        const response = await call('all-trades', keys.mine, { query: cursor ? { ...query, cursor } : query });
        expect(response.statusCode).toBe(200);
        seen.push(...response.body.trades);
        cursor = response.body.nextCursor ?? undefined;
      } while (cursor);
      expect(seen).toEqual(expectedTrades(dataset.trades, { accounts: MINE, status: query.status, instrument: query.instrument }));
    }
  });

  it('gets the same 404 for another owner’s account as for one that does not exist', async () => {
    for (const name of ['account-balance', 'account-trades', 'account-status', 'account-pnl', 'account-equity'] as const) {
      const other = await call(name, keys.mine, { account: 'k-alpha' });
      const missing = await call(name, keys.mine, { account: 'k-echo' });
      expect(other.statusCode).toBe(404);
      expect(other.body.code).toBe('ACCOUNT_NOT_FOUND');
      const strip = (body: Record<string, unknown>) => ({ ...body, requestId: undefined, instance: undefined, detail: undefined });
      expect(strip(other.body)).toEqual(strip(missing.body));
      expect(Object.keys(other.headers).sort()).toEqual(Object.keys(missing.headers).sort());
    }
    expect((await call('account-balance', keys.mine, { account: 'k-delta' })).statusCode).toBe(200);
  });

  it('is told the nearest ids it may see on a 404, never another owner’s (1.8)', async () => {
    const suggested = async (key: string, account: string) => {
      const response = await call('account-trades', key, { account });
      expect([response.statusCode, response.body.code]).toEqual([404, 'ACCOUNT_NOT_FOUND']);
      return response.body.suggestions;
    };
    expect(await suggested(keys.mine, 'k-bravp')).toEqual(['k-bravo']);
    expect(await suggested(keys.mine, 'K-Delta')).toEqual(['k-delta']);
    // k-alpha and k-charlie exist, one letter away, but this key may not see them.
    expect(await suggested(keys.mine, 'k-alpah')).toEqual([]);
    expect(await suggested(keys.mine, 'k-charlei')).toEqual([]);
    expect(await suggested(keys.mine, 'k-alpha')).toEqual([]);
    expect(await suggested(keys.alpha, 'k-alpah')).toEqual(['k-alpha']);
    expect(await suggested(keys.all, 'k-charlei')).toEqual(['k-charlie']);
  });

  it('compares only its own bots', async () => {
    const mine = await call('all-comparison', keys.mine);
    expect(mine.body.accounts.map((row: { accountId: string }) => row.accountId)).toEqual(MINE);
    const all = await call('all-comparison', keys.all);
    expect(all.body.accounts.filter((row: { accountId: string }) => MINE.includes(row.accountId))).toEqual(mine.body.accounts);
  });

  it('cannot use a cursor issued to another key, even for an account both see', async () => {
    const page = await call('all-trades', keys.all, { query: { limit: '5' } });
    const replay = await call('all-trades', keys.mine, { query: { limit: '5', cursor: page.body.nextCursor } });
    expect(replay.statusCode).toBe(400);
    expect(replay.body.errors).toEqual([{ parameter: 'cursor', message: expect.any(String) }]);
  });

  it('cannot reach another account by tampering with a cursor', async () => {
    const page = await call('account-trades', keys.alpha, { account: 'k-alpha', query: { limit: '5' } });
    const [payload, signature] = page.body.nextCursor.split('.');
    const forged = Buffer.from(
      Buffer.from(payload, 'base64url')
        .toString()
        .replace(/k-alpha$/, 'k-bravo'),
    ).toString('base64url');
    const response = await call('all-trades', keys.alpha, { query: { limit: '5', cursor: `${forged}.${signature}` } });
    expect(response.statusCode).toBe(400);
  });
});

it('a key for every account sees every account', async () => {
  const accounts = await call('accounts', keys.all);
  expect(accounts.body.count).toBe(IDS.length);
  const trades = await call('all-trades', keys.all, { query: { limit: '25' } });
  expect(trades.body.trades).toEqual(expectedTrades(dataset.trades, {}).slice(0, 25));
});
