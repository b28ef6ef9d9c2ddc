/**
 * The writer's history path and its failures, on DynamoDB Local behind a fault proxy: a position that changes while
 * open (units and open price, as when a bot adds to it or exits part of it), a history given again that costs reads
 * and no writes, and a database that stops answering, which is always WriterError UNAVAILABLE (never the store's or
 * the HTTP layer's error) and never takes the results of a batch with it; and a balance history written as a batch,
 * which ends exactly as its snapshots given one by one, in far fewer transactions, even when it fails part way.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { type Snapshot, type Writer, WriterError } from '@trading-bot-api/writer';
import { localWriter } from '../../scripts/support/load-data';
import { eventFor, type Harness, invoke, startHarness } from '../kit/api-harness';
import { outcomes } from '../kit/expected';
import { FaultProxy, impatientWriter } from '../kit/fault-proxy';

jest.setTimeout(60_000);

let harness: Harness;
let proxy: FaultProxy;
let writer: Writer;

beforeAll(async () => {
  harness = await startHarness();
  proxy = await new FaultProxy(harness.db.endpoint).start();
  writer = impatientWriter(proxy.endpoint, harness.stage);
});
afterEach(() => proxy.clear());
afterAll(async () => {
  writer.close();
  await proxy.close();
  await harness.close();
});

let counter = 0;
async function newAccount(): Promise<string> {
  const id = `h-${++counter}`;
  await harness.writer.upsertAccount({
    id,
    name: id,
    currency: 'USDT',
    broker: 'binance',
    environment: 'paper',
    createdAt: '2026-11-01T00:00:00.000Z',
  });
  return id;
}

const trade = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  instrument: 'BTC_USDT',
  side: 'buy',
  units: '0.015',
  openPrice: '91234.5',
  openTime: '2026-11-20T09:00:00.000Z',
  status: 'open',
  ...extra,
});

async function tradesOf(account: string) {
  const response = await invoke('account-trades', eventFor('account-trades', { account, query: { limit: '500' } }));
  expect(response.statusCode).toBe(200);
  return response.body.trades as Record<string, unknown>[];
}

async function balanceOf(account: string) {
  return (await invoke('account-balance', eventFor('account-balance', { account, query: {} }))).body;
}

describe('a position that changes while open', () => {
  it('updateTradeMarks changes units and the average open price of an open trade, and nothing else', async () => {
    const account = await newAccount();
    await writer.openTrade(account, trade('p-1') as never);
    // An added entry: more units at a new average price.
    expect(await writer.updateTradeMarks(account, 'p-1', { units: '0.03', openPrice: '90617.25', unrealizedPL: '12.5' })).toBe('updated');
    expect(await writer.updateTradeMarks(account, 'p-1', { units: '0.03', openPrice: '90617.25' })).toBe('unchanged');
    expect((await tradesOf(account))[0]).toMatchObject({ units: '0.03', openPrice: '90617.25', unrealizedPL: '12.5', status: 'open' });
    expect(await balanceOf(account)).toMatchObject({ openTradeCount: 1, realizedPL: '0' });
    await expect(writer.updateTradeMarks(account, 'p-1', { units: '0' })).rejects.toMatchObject({ code: 'INVALID_INPUT', field: 'units' });
    await writer.closeTrade(account, 'p-1', { closePrice: '91000', closeTime: '2026-11-20T10:00:00.000Z', realizedPL: '11.4825' });
    await expect(writer.updateTradeMarks(account, 'p-1', { units: '0.01' })).rejects.toMatchObject({ code: 'TRADE_CLOSED' });
  });

  it('recordTrades updates a stored open trade whose position changed, and closes it with its final units', async () => {
    const account = await newAccount();
    expect(await writer.recordTrades(account, [trade('p-2')])).toEqual([{ id: 'p-2', index: 0, outcome: 'created' }]);
    // A partial exit: fewer units, same average price.
    expect(await writer.recordTrades(account, [trade('p-2', { units: '0.005' })])).toEqual([{ id: 'p-2', index: 0, outcome: 'updated' }]);
    const closed = trade('p-2', {
      units: '0.004',
      status: 'closed',
      closePrice: '92000',
      closeTime: '2026-11-20T12:00:00.000Z',
      realizedPL: '9.1',
    });
    expect(await writer.recordTrades(account, [closed])).toEqual([{ id: 'p-2', index: 0, outcome: 'closed' }]);
    expect((await tradesOf(account))[0]).toMatchObject({ units: '0.004', status: 'closed', realizedPL: '9.1' });
    expect(await balanceOf(account)).toMatchObject({ openTradeCount: 0, realizedPL: '9.1' });
    // Another side or open time is another trade; a closed one given with other units is refused.
    const results = await writer.recordTrades(account, [trade('p-2', { side: 'sell' }), { ...closed, units: '0.003' }]);
    expect(results.map((result) => ('error' in result ? result.error.code : result.outcome))).toEqual(['TRADE_CONFLICT', 'TRADE_CLOSED']);
  });
});

it('a history given again is read in batches and writes nothing', async () => {
  const account = await newAccount();
  const history = Array.from({ length: 120 }, (_, i) =>
    trade(`g-${i}`, i % 3 ? { status: 'closed', closePrice: '91500', closeTime: '2026-11-21T00:00:00.000Z', realizedPL: String(i) } : {}),
  );
  const first = await writer.recordTrades(account, history);
  expect(outcomes(first)).toEqual(first.map(() => 'created'));
  proxy.seen.length = 0;
  const again = await writer.recordTrades(account, history);
  expect(again.filter((result) => !('outcome' in result && result.outcome === 'unchanged'))).toEqual([]);
  // Two batches of registers and two of trades (100 keys each at most); no write, no transaction attempted.
  expect(proxy.seen).toEqual(['BatchGetItem', 'BatchGetItem', 'BatchGetItem', 'BatchGetItem']);
});

describe('a database that does not answer', () => {
  it('is UNAVAILABLE when it fails while the stored trade is read, for every call that reads one', async () => {
    const account = await newAccount();
    await writer.openTrade(account, trade('u-1') as never);
    // The register read is the first GetItem of these calls (openTrade's repeat reads it after its cancelled write).
    await proxy.inject({ kind: 'throttle', error: 'ThrottlingException' }, Infinity, { only: 'GetItem', after: 0 });
    for (const call of [
      () => writer.closeTrade(account, 'u-1', { closePrice: '1', closeTime: '2026-11-20T10:00:00.000Z', realizedPL: '0' }),
      () => writer.updateTradeMarks(account, 'u-1', { unrealizedPL: '1' }),
    ]) {
      const error = await call().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(WriterError);
      expect(error).toMatchObject({ code: 'UNAVAILABLE' });
    }
    // openTrade of a stored trade: its write is cancelled, then the stored trade is read (the balance read passes).
    await proxy.inject({ kind: 'throttle', error: 'ThrottlingException' }, Infinity, { only: 'GetItem', after: 1 });
    await expect(writer.openTrade(account, trade('u-1') as never)).rejects.toMatchObject({ name: 'WriterError', code: 'UNAVAILABLE' });
  });

  it('gives the trades of a batch it could not write UNAVAILABLE results, keeping the results of those it wrote', async () => {
    const account = await newAccount();
    // 60 open trades are two transactions; the second one's write is refused.
    const history = Array.from({ length: 60 }, (_, i) => trade(`b-${String(i).padStart(2, '0')}`));
    await proxy.inject({ kind: 'throttle', error: 'ThrottlingException' }, Infinity, { only: 'TransactWriteItems', after: 1 });
    const results = await writer.recordTrades(account, history);
    const outcomes = results.map((result) => ('error' in result ? result.error.code : result.outcome));
    const created = outcomes.filter((outcome) => outcome === 'created').length;
    expect(created).toBeGreaterThan(0);
    expect(outcomes).toEqual([...Array(created).fill('created'), ...Array(60 - created).fill('UNAVAILABLE')]);
    await proxy.clear();
    expect(await tradesOf(account)).toHaveLength(created);
    // Given again, the rest is written and what was written is unchanged.
    const again = await writer.recordTrades(account, history);
    expect(again.map((result) => ('outcome' in result ? result.outcome : result.error.code))).toEqual([
      ...Array(created).fill('unchanged'),
      ...Array(60 - created).fill('created'),
    ]);
    expect(await balanceOf(account)).toMatchObject({ openTradeCount: 60 });
  });
});

describe('a database that refuses the writer for its configuration', () => {
  it('is MISCONFIGURED naming the table when the stage has no tables, never UNAVAILABLE (a bot would retry forever)', async () => {
    // DynamoDB Local itself answers ResourceNotFoundException: a wrong stage or table name.
    const wrong = localWriter(harness.db.endpoint, { stage: 'no-such-stage' });
    try {
      for (const call of [
        () => wrong.upsertAccount({ id: 'm-1', name: 'M', currency: 'USD', broker: 'B', environment: 'paper' } as never),
        () => wrong.heartbeat('m-1', { state: 'running', time: new Date().toISOString() } as never),
        () => wrong.recordTrades('m-1', [trade('m-t')]),
      ]) {
        const error = await call().catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(WriterError);
        expect(error).toMatchObject({ code: 'MISCONFIGURED', message: expect.stringContaining('trading-bot-api-no-such-stage-') });
        expect((error as Error).message).toMatch(/does not exist.*retrying will not help/);
      }
    } finally {
      wrong.close();
    }
  });

  it('is MISCONFIGURED naming the action and the table when the role lacks a permission, for a single call and a batch', async () => {
    const account = await newAccount();
    await proxy.inject({ kind: 'refusal', error: 'AccessDeniedException' }, Infinity, { only: 'TransactWriteItems' });
    const error = await writer.openTrade(account, trade('p-1') as never).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ name: 'WriterError', code: 'MISCONFIGURED' });
    expect((error as Error).message).toMatch(/lacks a permission.*dynamodb:TransactWriteItems/);
    // A batch is not turned into per-trade results: the whole call is refused, nothing is written; neither for new
    // trades (written together) nor for a stored one that changed (written one by one).
    await expect(writer.recordTrades(account, [trade('p-2'), trade('p-3')])).rejects.toMatchObject({ code: 'MISCONFIGURED' });
    await proxy.clear();
    expect(await tradesOf(account)).toEqual([]);
    await writer.recordTrades(account, [trade('p-4')]);
    await proxy.inject({ kind: 'refusal', error: 'AccessDeniedException' }, Infinity, { only: 'TransactWriteItems' });
    const closing = trade('p-4', { status: 'closed', closePrice: '91500', closeTime: '2026-11-21T00:00:00.000Z', realizedPL: '5' });
    await expect(writer.recordTrades(account, [closing])).rejects.toMatchObject({ code: 'MISCONFIGURED' });
    await proxy.clear();
    expect(await tradesOf(account)).toEqual([expect.objectContaining({ id: 'p-4', status: 'open' })]);
  });
});

/** An account's stored items in `table`, every one, without the version counter (which counts transactions). */
async function itemsOf(table: 'ledger' | 'balances', account: string) {
  const { Items = [] } = await harness.store.client.send(
    new QueryCommand({
      TableName: harness.store.tables[table],
      KeyConditionExpression: 'accountId = :a',
      ExpressionAttributeValues: { ':a': account },
      ConsistentRead: true,
    }),
  );
  return Items.map(({ accountId: _account, version: _version, ...item }) => item);
}

/**
 * A bot's balance history as it really arrives: snapshots 7 to 50 minutes apart (several in an hour, hours and days
 * without one), a repeat of a time with other figures, one that arrived late (older than the one before it).
 */
function balanceHistory(count: number): Snapshot[] {
  const history: Snapshot[] = [];
  let at = Date.parse('2026-10-01T00:00:00.000Z');
  for (let i = 0; i < count; i++) {
    at += (7 + ((i * 37) % 44)) * 60_000 + (i % 17 === 0 ? 86_400_000 : 0);
    const time = new Date(i % 23 === 5 ? at - 3 * 3_600_000 : at).toISOString();
    const nav = `${10_000 + ((i * 7919) % 1000)}.${String(i % 100).padStart(2, '0')}`;
    history.push({ balance: nav, unrealizedPL: `${(i % 9) - 4}.5`, nav, marginUsed: '0', marginAvailable: nav, time });
    if (i % 31 === 3) history.push({ ...history[history.length - 1], nav: '1', balance: '1', marginAvailable: '1' });
  }
  return history;
}

describe('a balance history', () => {
  const history = balanceHistory(300);
  /** The account the history went to one snapshot at a time, and each call's outcome. */
  let one: string;
  const singly: string[] = [];
  beforeAll(async () => {
    one = await newAccount();
    for (const snapshot of history) singly.push(await harness.writer.recordBalance(one, snapshot));
  });

  it('recordBalances ends exactly as recordBalance one by one, each snapshot with the same outcome, in a few transactions', async () => {
    const batch = await newAccount();
    expect(singly.filter((outcome) => outcome === 'stale').length).toBeGreaterThan(10);
    proxy.seen.length = 0;
    expect(await writer.recordBalances(batch, history)).toEqual(singly);
    const transactions = proxy.seen.filter((operation) => operation === 'TransactWriteItems').length;
    expect(transactions).toBeGreaterThanOrEqual(2);
    expect(transactions).toBeLessThan(history.length / 40);
    expect(await itemsOf('ledger', batch)).toEqual(await itemsOf('ledger', one));
    expect(await itemsOf('balances', batch)).toEqual(await itemsOf('balances', one));
    // Given again, every snapshot is a repeat.
    expect(new Set(await writer.recordBalances(batch, history))).toEqual(new Set(['stale']));
  });

  it('failing part way, keeps whole transactions only; given again, ends as the calls one by one', async () => {
    const batch = await newAccount();
    await proxy.inject({ kind: 'throttle', error: 'ThrottlingException' }, Infinity, { only: 'TransactWriteItems', after: 1 });
    await expect(writer.recordBalances(batch, history)).rejects.toMatchObject({ name: 'WriterError', code: 'UNAVAILABLE' });
    await proxy.clear();
    // What the first transaction wrote is what the calls up to its last snapshot write.
    const written = await itemsOf('ledger', batch);
    const last = (await itemsOf('balances', batch))[0].snapshotAt as string;
    const upTo = history.findIndex((snapshot) => snapshot.time === last);
    expect(written.length).toBeGreaterThan(0);
    const partial = await newAccount();
    for (const snapshot of history.slice(0, upTo + 1)) await harness.writer.recordBalance(partial, snapshot);
    expect(written).toEqual(await itemsOf('ledger', partial));
    const again = await writer.recordBalances(batch, history);
    expect(again.slice(0, upTo + 1)).toEqual(Array(upTo + 1).fill('stale'));
    expect(await itemsOf('ledger', batch)).toEqual(await itemsOf('ledger', one));
    expect(await itemsOf('balances', batch)).toEqual(await itemsOf('balances', one));
  });

  it('checks every snapshot before writing any, and names the one refused by its index', async () => {
    const account = await newAccount();
    const bad = [...history.slice(0, 5), { ...history[5], nav: 10_000.5 as unknown as string }];
    await expect(writer.recordBalances(account, bad)).rejects.toMatchObject({ code: 'INVALID_INPUT', field: 'snapshots[5].nav' });
    expect(await itemsOf('ledger', account)).toEqual([]);
  });
});
