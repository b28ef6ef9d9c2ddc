/**
 * Fleet polls whose cost does not follow the fleet's size: /api/accounts, /api/all/status and /api/all/balance tag
 * their answers, for a key that sees every account, from their versions in the fleet table
 * (packages/core/src/store/fleet-table.ts), which the fleet projector moves from the tables' streams. Through the real
 * writer, projector and handlers on DynamoDB Local: a stage is on that path from its first write; an unchanged poll
 * reads one item and is a 304; a change of anything an answer shows moves its tag, whoever wrote it (this writer, an
 * older one, a hand edit), a heartbeat that only moves the time does not, and a bot turning stale does with no write
 * at all; a key scoped to some accounts learns nothing of the others; the answers stay exactly the per-account ones.
 * The projector fails safe: a record it cannot project fails alone, reaches the on-failure queue after the mapping's
 * retries, and the rebuild makes the summary right again. And the local projector's feed reads on with the shard
 * iterators it stopped at.
 */
import { existsSync, readFileSync } from 'node:fs';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { listAccounts } from '@trading-bot-api/core/store/accounts-table';
import { entryKeyOf } from '@trading-bot-api/core/store/ledger-table';
import { readVersion } from '@trading-bot-api/core/store/fleet-table';
import { periodStart, timestamp } from '@trading-bot-api/core/time';
import { MAPPING } from '../../resources/projector.js';
import { rebuildFleet } from '../../api/projector/rebuild';
import { startStreamPump } from '../../scripts/local-stack/stream-pump';
import { eventFor, type FunctionName, type Harness, invoke, startHarness } from '../kit/api-harness';
import { expectContract } from '../kit/contract';
import { FaultProxy } from '../kit/fault-proxy';
import { printedWhile } from '../kit/printed';
import { until } from '../kit/until';

const STALE_AFTER_SECONDS = 3;
let harness: Harness;

const IDS = [...Array(12).keys()].map((i) => `fleet-${String(i).padStart(2, '0')}`);
const [MINE, OTHER] = ['mate-a', 'mate-b'];

beforeAll(async () => {
  harness = await startHarness({ LOG_LEVEL: 'INFO', STALE_AFTER_SECONDS: String(STALE_AFTER_SECONDS) });
  for (const [i, id] of [...IDS, MINE, OTHER].entries()) {
    await harness.writer.upsertAccount({ id, name: `Bot ${id}`, currency: i % 3 ? 'USD' : 'EUR', broker: 'paper', environment: 'paper' });
    await harness.writer.recordBalance(id, snapshot(`${1000 + i}.25`, new Date(Date.now() - 60_000)));
    // Paused: no bot turns stale while a test compares two polls, but the one that means to. A minute ago: a later
    // test's heartbeats dated a few seconds back are newer, so none is refused as arriving out of order.
    await harness.writer.heartbeat(id, { state: 'paused', strategy: 'grid', time: new Date(Date.now() - 60_000).toISOString() });
  }
});
afterAll(() => harness.close());

function snapshot(balance: string, time: Date) {
  return { balance, unrealizedPL: '0', nav: balance, marginUsed: '0', marginAvailable: balance, time: time.toISOString() };
}

const FLEET = ['accounts', 'all-status', 'all-balance'] as const;
const ASPECT = { accounts: 'profile', 'all-status': 'status', 'all-balance': 'balance' } as const;
const ALL = IDS.length + 2;

/** A poll as `accounts` sees it (every account without), with what it read (its access line's itemsRead). */
async function poll(
  name: FunctionName,
  options: { tag?: string; accounts?: string[]; account?: string; query?: Record<string, string> } = {},
) {
  const event = eventFor(name, {
    account: options.account,
    query: options.query,
    headers: options.tag ? { 'If-None-Match': options.tag } : {},
  });
  if (options.accounts)
    event.requestContext = { ...event.requestContext, authorizer: { accounts: options.accounts.join(','), keyId: 'k' } };
  const { result, lines } = await printedWhile(() => invoke(name, event));
  expectContract(event.resource, result);
  const access = lines.find((line) => line.message === 'request');
  return { ...result, itemsRead: access?.itemsRead as number };
}

it('a stage is on the summary from its first write: an unchanged poll of each fleet answer is a 304 that reads one item', async () => {
  for (const name of FLEET) {
    const first = await poll(name);
    expect([name, first.statusCode, first.headers.ETag]).toEqual([name, 200, expect.stringMatching(`^W/"${ASPECT[name]}-`)]);
    // The version, then each table read whole: the status's two items per account.
    expect([name, first.itemsRead]).toEqual([name, 1 + (name === 'all-status' ? 2 : 1) * ALL]);
    const again = await poll(name, { tag: first.headers.ETag });
    expect([name, again.statusCode, again.body, again.headers.ETag, again.itemsRead]).toEqual([name, 304, '', first.headers.ETag, 1]);
    // A client without a tag gets the same tag, with the body.
    const fresh = await poll(name);
    expect([name, fresh.statusCode, fresh.headers.ETag]).toEqual([name, 200, first.headers.ETag]);
  }
});

it('a changed balance poll answers exactly what each account does', async () => {
  const before = await poll('all-balance');
  await harness.writer.recordBalance(IDS[3], snapshot('7777.777', new Date()));
  const after = await poll('all-balance', { tag: before.headers.ETag });
  expect(after.statusCode).toBe(200);
  expect(after.headers.ETag).not.toBe(before.headers.ETag);
  expect(after.itemsRead).toBe(1 + ALL);
  for (const account of after.body.accounts) {
    const own = await poll('account-balance', { account: account.accountId });
    expect(account).toEqual(own.body);
  }
  expect(after.body.accounts.find((a: { accountId: string }) => a.accountId === IDS[3]).balance).toBe('7777.777');
});

it('a changed accounts poll answers what the table holds', async () => {
  const before = await poll('accounts');
  await harness.writer.upsertAccount({ id: IDS[4], name: 'Renamed bot', currency: 'USD', broker: 'paper', environment: 'live' });
  const after = await poll('accounts', { tag: before.headers.ETag });
  expect(after.statusCode).toBe(200);
  expect(after.body.accounts).toEqual(await listAccounts(harness.store, '*'));
  expect(after.body.accounts.find((a: { id: string }) => a.id === IDS[4])).toMatchObject({ name: 'Renamed bot', environment: 'live' });
  expect((await poll('accounts', { tag: after.headers.ETag })).statusCode).toBe(304);
});

it('a heartbeat that only moves the time keeps the status tag and moves no version; a message, a state or a trade does', async () => {
  const id = IDS[1];
  const beat = (state: 'paused' | 'running', secondsAgo: number) =>
    harness.writer.heartbeat(id, { state, strategy: 'grid', time: new Date(Date.now() - secondsAgo * 1000).toISOString() });
  await beat('paused', 30);
  let tag = (await poll('all-status')).headers.ETag;
  const version = await readVersion(harness.store, 'status');
  await beat('paused', 20);
  expect((await poll('all-status', { tag })).statusCode).toBe(304);
  expect(await readVersion(harness.store, 'status')).toEqual(version);
  const changes: [string, () => Promise<unknown>, (status: Record<string, any>) => unknown][] = [
    ['message', () => harness.writer.heartbeat(id, { state: 'paused', strategy: 'grid', message: 'hello' }), (s) => s.message],
    ['state', () => harness.writer.heartbeat(id, { state: 'error', strategy: 'grid', message: 'hello' }), (s) => s.state],
    [
      'trade',
      () =>
        harness.writer.openTrade(id, {
          id: 't-1',
          instrument: 'EUR_USD',
          side: 'buy',
          units: '1000',
          openPrice: '1.08000',
          openTime: new Date().toISOString(),
        }),
      (s) => s.openTradeCount,
    ],
  ];
  for (const [what, change, shown] of changes) {
    await change();
    const changed = await poll('all-status', { tag });
    expect([what, changed.statusCode]).toEqual([what, 200]);
    const status = changed.body.accounts.find((s: { accountId: string }) => s.accountId === id);
    const own = await poll('account-status', { account: id });
    expect([what, shown(status)]).toEqual([what, shown(own.body)]);
    tag = changed.headers.ETag;
  }
});

it("a bot's heartbeats and trades racing each other both show in the fleet's status", async () => {
  const id = IDS[9];
  const tag = (await poll('all-status')).headers.ETag;
  const opens = [...Array(6).keys()].map((i) =>
    harness.writer.openTrade(id, {
      id: `race-${i}`,
      instrument: 'EUR_USD',
      side: 'buy',
      units: '100',
      openPrice: '1.08000',
      openTime: new Date(Date.now() - 30_000 + i).toISOString(),
    }),
  );
  const beats = [...Array(6).keys()].map((i) =>
    harness.writer.heartbeat(id, {
      state: 'paused',
      strategy: 'grid',
      message: `race ${i}`,
      time: new Date(Date.now() - 20_000 + i * 1000).toISOString(),
    }),
  );
  expect(await Promise.all(opens)).toEqual(Array(6).fill('opened'));
  expect(await Promise.all(beats)).toEqual(expect.arrayContaining(['recorded']));
  const changed = await poll('all-status', { tag });
  expect(changed.statusCode).toBe(200);
  const own = (await poll('account-status', { account: id })).body;
  expect(own.openTradeCount).toBe(6);
  // The age counts whole seconds since the heartbeat: the two polls may straddle a second.
  const { heartbeatAgeSeconds, ...fleetEntry } = changed.body.accounts.find((s: { accountId: string }) => s.accountId === id);
  expect({ ...fleetEntry, heartbeatAgeSeconds: own.heartbeatAgeSeconds }).toEqual(own);
  expect(own.heartbeatAgeSeconds - heartbeatAgeSeconds).toBeLessThanOrEqual(1);
  expect((await poll('all-status', { tag: changed.headers.ETag })).statusCode).toBe(304);
});

it('a bot turning stale changes the status answer with no write; a fresh running bot heartbeating does not', async () => {
  const [id, steady] = [IDS[5], IDS[10]];
  const beat = (bot: string, secondsAgo: number) =>
    harness.writer.heartbeat(bot, { state: 'running', time: new Date(Date.now() - secondsAgo * 1000).toISOString() });
  expect([await beat(id, 1), await beat(steady, 1)]).toEqual(['recorded', 'recorded']);
  const fresh = await poll('all-status');
  const entry = (body: any, bot: string) => body.accounts.find((s: { accountId: string }) => s.accountId === bot);
  expect([entry(fresh.body, id).stale, fresh.body.summary.stale]).toEqual([false, 0]);
  // Polled as a dashboard polls, `steady` heartbeating as it goes: 304s until `id`'s age passes the threshold, then
  // the answer that says so.
  const stale = await until(
    async () => {
      await beat(steady, 0);
      const answer = await poll('all-status', { tag: fresh.headers.ETag });
      return answer.statusCode !== 304 && answer;
    },
    `the all-status answer changed by ${id} turning stale`,
    { everyMs: 200 },
  );
  expect([entry(stale.body, id).stale, entry(stale.body, steady).stale]).toEqual([true, false]);
  expect((await poll('account-status', { account: id })).body.stale).toBe(true);
  // `steady` stops, and turns stale in its turn: no answer held past it.
  const next = await until(
    async () => {
      const answer = await poll('all-status', { tag: stale.headers.ETag });
      return answer.statusCode !== 304 && answer;
    },
    `the all-status answer changed by ${steady} turning stale`,
    { everyMs: 200 },
  );
  expect(entry(next.body, steady).stale).toBe(true);
  // Nothing changes any more: the next poll is a 304 again.
  expect((await poll('all-status', { tag: next.headers.ETag })).statusCode).toBe(304);
});

it("a key scoped to some accounts learns nothing of the others' changes, and reads its own accounts alone", async () => {
  const tags = Object.fromEntries(
    await Promise.all(FLEET.map(async (name) => [name, (await poll(name, { accounts: [MINE] })).headers.ETag])),
  );
  await harness.writer.recordBalance(OTHER, snapshot('1.5', new Date()));
  await harness.writer.heartbeat(OTHER, { state: 'error', message: 'down' });
  await harness.writer.upsertAccount({ id: OTHER, name: 'Renamed', currency: 'USD', broker: 'paper', environment: 'paper' });
  for (const name of FLEET) {
    const answer = await poll(name, { accounts: [MINE], tag: tags[name] });
    expect([name, answer.statusCode, answer.itemsRead]).toEqual([name, 304, name === 'all-status' ? 2 : 1]);
  }
  await harness.writer.recordBalance(MINE, snapshot('2.5', new Date()));
  const mineChanged = await poll('all-balance', { accounts: [MINE], tag: tags['all-balance'] });
  expect(mineChanged.statusCode).toBe(200);
  expect(mineChanged.body.accounts.map((a: { accountId: string }) => a.accountId)).toEqual([MINE]);
});

it('a write by anything but this writer (an older writer touching the account item alone, a hand edit) shows in the next poll', async () => {
  const id = IDS[6];
  const tags = Object.fromEntries(await Promise.all(FLEET.map(async (name) => [name, (await poll(name)).headers.ETag])));
  const edit = (table: string, update: string, values: Record<string, unknown>, names?: Record<string, string>) =>
    harness.store.client.send(
      new UpdateCommand({
        TableName: table,
        Key: { accountId: id },
        UpdateExpression: update,
        ExpressionAttributeValues: values,
        ...(names ? { ExpressionAttributeNames: names } : {}),
      }),
    );
  await edit(harness.store.tables.accounts, 'SET bot.#s = :s, bot.message = :m', { ':s': 'error', ':m': 'crashed' }, { '#s': 'state' });
  await edit(harness.store.tables.accounts, 'SET #n = :n', { ':n': 'Renamed by hand' }, { '#n': 'name' });
  await edit(harness.store.tables.balances, 'SET balance = :b', { ':b': '42.42' });
  const status = await poll('all-status', { tag: tags['all-status'] });
  expect(status.statusCode).toBe(200);
  expect(status.body.accounts.find((s: { accountId: string }) => s.accountId === id)).toMatchObject({ state: 'error', message: 'crashed' });
  const accounts = await poll('accounts', { tag: tags.accounts });
  expect(accounts.body.accounts.find((a: { id: string }) => a.id === id).name).toBe('Renamed by hand');
  const balances = await poll('all-balance', { tag: tags['all-balance'] });
  expect(balances.body.accounts.find((a: { accountId: string }) => a.accountId === id).balance).toBe('42.42');
});

it('the local projector reads on with the shard iterators it stopped at, and replaces one refused from where it stood', async () => {
  // A second pump on these streams, through a proxy that counts its requests. No function is invoked until the end:
  // an invocation drains the harness's own pump, which would project the change in this pump's place.
  const proxy = await new FaultProxy(harness.db.endpoint).start();
  const pump = startStreamPump({
    store: harness.store,
    endpoint: proxy.endpoint,
    stage: harness.stage,
    env: { STALE_AFTER_SECONDS: String(STALE_AFTER_SECONDS) },
    failedQueue: harness.failedQueue,
  });
  const asked = () => ({
    iterators: proxy.seen.filter((operation) => operation === 'GetShardIterator').length,
    reads: proxy.seen.filter((operation) => operation === 'GetRecords').length,
  });
  const id = IDS[9];
  try {
    await pump.drain();
    // Nothing written since: each shard read once more with the iterator kept, no new one asked for.
    let before = asked();
    await pump.drain();
    expect(asked().iterators - before.iterators).toBe(0);
    expect(asked().reads - before.reads).toBeGreaterThanOrEqual(3);

    const version = await readVersion(harness.store, 'status');
    await harness.writer.heartbeat(id, { state: 'error', strategy: 'grid', message: 'kept iterator refused' });
    await proxy.inject({ kind: 'expired-iterator' }, 1, { only: 'GetRecords' });
    before = asked();
    await pump.drain();
    // The refused iterator replaced by one from the last record projected, and the change projected by this pump.
    expect(asked().iterators - before.iterators).toBe(1);
    expect((await readVersion(harness.store, 'status')).n).toBeGreaterThan(version.n);
  } finally {
    await pump.stop();
    await proxy.close();
  }
  const status = await invoke('account-status', eventFor('account-status', { account: id }));
  expect(status.body).toMatchObject({ state: 'error', message: 'kept iterator refused' });
});

it('a record the projector cannot project fails alone: the rest is applied, it reaches the on-failure queue, the rebuild mends the summary', async () => {
  const [poisoned, other] = [IDS[7], IDS[8]];
  const today = timestamp(periodStart(Date.now(), 'day'));
  const close = async (id: string, trade: string, daysAgo: number, realizedPL: string) => {
    const at = (minutes: number) => new Date(Date.now() - daysAgo * 86_400_000 - minutes * 60_000).toISOString();
    await harness.writer.openTrade(id, {
      id: trade,
      instrument: 'EUR_USD',
      side: 'buy',
      units: '100',
      openPrice: '1.08',
      openTime: at(10),
    });
    await harness.writer.closeTrade(id, trade, { closePrice: '1.09', closeTime: at(5), realizedPL });
  };
  // A close today, projected: the fleet's P&L of today exists. Then someone (a hand edit, a bug) breaks it.
  await close(poisoned, 'p-1', 0, '1.5');
  await poll('all-pnl');
  const sumKey = { part: 'pnl', key: entryKeyOf('pnl', 'day', today) };
  await harness.store.client.send(
    new UpdateCommand({
      TableName: harness.store.tables.fleet,
      Key: sumKey,
      UpdateExpression: 'SET currencies = :x',
      ExpressionAttributeValues: { ':x': 'broken' },
    }),
  );
  // One batch for the projector: a close today (its P&L of today cannot be folded into the broken sum), a close of
  // another account three days ago, a balance.
  const tag = (await poll('all-balance')).headers.ETag;
  await close(poisoned, 'p-2', 0, '2.25');
  await close(other, 'o-1', 3, '-4');
  await harness.writer.recordBalance(other, snapshot('999.5', new Date()));
  await harness.projector.drain();

  // The rest applied: the balance, the other close's P&L.
  const balances = await poll('all-balance', { tag });
  expect(balances.body.accounts.find((a: { accountId: string }) => a.accountId === other).balance).toBe('999.5');
  const query = { period: 'day', from: new Date(Date.now() - 5 * 86_400_000).toISOString() };
  const pointsOf = (answer: { body: any }) =>
    answer.body.series.flatMap((series: any) => series.points.map((p: any) => ({ currency: series.currency, ...p })));
  const perAccount = pointsOf(await poll('all-pnl', { query, accounts: [...IDS, MINE, OTHER] }));
  const threeDaysAgo = timestamp(periodStart(Date.now() - 3 * 86_400_000, 'day'));
  const { lines } = await printedWhile(() => invoke('all-pnl', eventFor('all-pnl', { query })));
  expect(lines.find((line) => line.message === 'request')).toMatchObject({ status: 500 });
  // The failed record, after the mapping's retries, in the on-failure queue: the deployed message's shape.
  // Drained until it is there: a full run under load once read the queue before the record had reached it (ENOENT),
  // though the balance of the same batch was applied. Why one drain did not suffice there is not known.
  const queued = await until(async () => {
    await harness.projector.drain();
    return existsSync(harness.failedQueue) && readFileSync(harness.failedQueue, 'utf8');
  }, 'the failed record in the on-failure queue');
  const messages = queued
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  expect(messages).toEqual([
    {
      requestContext: { condition: 'RetryAttemptsExhausted', approximateInvokeCount: MAPPING.maximumRetryAttempts + 1 },
      timestamp: expect.any(String),
      DDBStreamBatchInfo: {
        shardId: expect.any(String),
        startSequenceNumber: expect.any(String),
        endSequenceNumber: expect.any(String),
        batchSize: expect.any(Number),
        streamArn: expect.stringContaining(`/${harness.store.tables.ledger}/stream/`),
      },
    },
  ]);

  // The rebuild recounts the broken sum from the accounts' own; the fleet's answer is theirs again, and a tag held
  // across a change the projector could not carry is answered again (every version moved).
  const rebuilt = await rebuildFleet(harness.store);
  expect(rebuilt.sumsWritten).toBeGreaterThanOrEqual(1);
  const fleet = await poll('all-pnl', { query });
  expect(fleet.statusCode).toBe(200);
  expect(pointsOf(fleet)).toEqual(perAccount);
  expect(pointsOf(fleet).find((p: any) => p.currency === 'USD' && p.start === today)).toMatchObject({
    realizedPL: expect.any(String),
    tradesClosed: 2,
  });
  expect(pointsOf(fleet).find((p: any) => p.start === threeDaysAgo && p.tradesClosed === 1)).toBeDefined();
  expect((await poll('all-balance', { tag: balances.headers.ETag })).statusCode).toBe(200);
  expect(await rebuildFleet(harness.store)).toMatchObject({ listed: 0, sumsWritten: 0 });
});

it('the rebuild mends a list and a sum gone wrong, and a second rebuild writes none', async () => {
  const { store } = harness;
  const edit = (key: Record<string, string>, update: string, values: Record<string, unknown>) =>
    store.client.send(
      new UpdateCommand({ TableName: store.tables.fleet, Key: key, UpdateExpression: update, ExpressionAttributeValues: values }),
    );
  const query = { period: 'month', from: new Date(Date.now() - 40 * 86_400_000).toISOString() };
  const before = await poll('all-pnl', { query });
  await edit({ part: 'members', key: 'USD' }, 'DELETE accounts :ids', { ':ids': new Set([IDS[1]]) });
  await edit({ part: 'members', key: 'EUR' }, 'ADD accounts :ids', { ':ids': new Set(['nobody']) });
  const month = entryKeyOf('pnl', 'month', timestamp(periodStart(Date.now(), 'month')));
  await edit({ part: 'pnl', key: month }, 'SET currencies.USD.tradesClosed = :n', { ':n': 99 });
  expect((await poll('all-pnl', { query })).body).not.toEqual(before.body);
  expect(await rebuildFleet(store)).toMatchObject({ listed: 2, sumsWritten: 1 });
  expect((await poll('all-pnl', { query })).body).toEqual(before.body);
  expect(await rebuildFleet(store)).toMatchObject({ listed: 0, sumsWritten: 0 });
});
