/**
 * Fleet polls whose cost does not follow the fleet's size: /api/accounts, /api/all/status and /api/all/balance tag
 * their answers from the fleet's stamps (packages/core/src/store/fleet-table.ts), which the fleet projector keeps
 * from the tables' streams, before reading anything else. Through the real writer, projector and handlers on
 * DynamoDB Local: a stage created with its streams is on that path with no backfill; an unchanged poll reads at most
 * SHARDS + 1 items and is a 304; a change of anything the answer shows moves the tag, whoever wrote it (this writer,
 * an older one, a hand edit), a heartbeat that only moves the time does not, and a bot turning stale does with no
 * write at all; a key scoped to some accounts learns nothing of the others; the answers stay exactly the
 * per-account ones; a stage whose data predates the projector answers from the tables until the backfill. And the
 * local projector's feed (scripts/local-stack/stream-pump.ts) reads on with the shard iterators it stopped at.
 */
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { getAccountItem, listAccounts, toBotReport } from '@trading-bot-api/core/store/accounts-table';
import { getBalanceRecord } from '@trading-bot-api/core/store/balances-table';
import {
  botStamp,
  markIncomplete,
  parseBotStamp,
  readAccountStamps,
  SHARDS,
  shardOf,
  stampSecondsFor,
  tradesStamp,
} from '@trading-bot-api/core/store/fleet-table';
import { rebuildFleet } from '../../api/projector/rebuild';
import { startStreamPump } from '../../scripts/local-stack/stream-pump';
import { eventFor, type FunctionName, type Harness, invoke, startHarness } from '../kit/api-harness';
import { expectContract } from '../kit/contract';
import { FaultProxy } from '../kit/fault-proxy';
import { printedWhile } from '../kit/printed';
import { until } from '../kit/until';

const STALE_AFTER_SECONDS = 3;
let harness: Harness;

/** Twelve accounts, and two that share a shard (`mate-a`, `mate-b`), for the scoping test. */
const IDS = [...Array(12).keys()].map((i) => `fleet-${String(i).padStart(2, '0')}`);
const MATES = (() => {
  const a = 'mate-a';
  for (let i = 0; ; i++) if (shardOf(`mate-b${i}`) === shardOf(a)) return [a, `mate-b${i}`];
})();

beforeAll(async () => {
  harness = await startHarness({ LOG_LEVEL: 'INFO', STALE_AFTER_SECONDS: String(STALE_AFTER_SECONDS) }, { projector: true });
  for (const [i, id] of [...IDS, ...MATES].entries()) {
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

/** A poll as `accounts` sees it (every account without), with what it read (its access line's itemsRead). */
async function poll(name: FunctionName, options: { tag?: string; accounts?: string[]; account?: string } = {}) {
  const event = eventFor(name, { account: options.account, headers: options.tag ? { 'If-None-Match': options.tag } : {} });
  if (options.accounts)
    event.requestContext = { ...event.requestContext, authorizer: { accounts: options.accounts.join(','), keyId: 'k' } };
  const { result, lines } = await printedWhile(() => invoke(name, event));
  expectContract(event.resource, result);
  const access = lines.find((line) => line.message === 'request');
  return { ...result, itemsRead: access?.itemsRead as number };
}

/** The bot stamps' window the projector uses for this file's stale threshold. */
const WINDOW = stampSecondsFor(STALE_AFTER_SECONDS);

it('a stage created with its streams is complete for every source without a backfill (the projector saw it all)', async () => {
  await harness.projector.drain();
  const { Item } = await harness.store.client.send(
    new GetCommand({ TableName: harness.store.tables.fleet, Key: { part: 'meta', key: 'meta' }, ConsistentRead: true }),
  );
  expect(Object.keys(Item?.complete ?? {}).sort()).toEqual(['accounts', 'balances', 'rollups']);
});

it('an unchanged poll of each fleet answer is a 304 that reads at most SHARDS + 1 items', async () => {
  for (const name of FLEET) {
    const first = await poll(name);
    expect([name, first.statusCode]).toEqual([name, 200]);
    const again = await poll(name, { tag: first.headers.ETag });
    expect([name, again.statusCode, again.body, again.headers.ETag]).toEqual([name, 304, '', first.headers.ETag]);
    expect([name, again.itemsRead]).toEqual([name, expect.any(Number)]);
    expect(again.itemsRead).toBeLessThanOrEqual(SHARDS + 1);
    // A client without a tag on an instance that holds the stamps: the status reads what it shows and no stamp (two
    // items per account), tagged as the stamps tag it, so its next poll is still a 304 of the counts alone.
    const fresh = await poll(name);
    expect([name, fresh.statusCode, fresh.headers.ETag]).toEqual([name, 200, first.headers.ETag]);
    if (name === 'all-status') expect(fresh.itemsRead).toBe(2 * (IDS.length + MATES.length));
    const next = await poll(name, { tag: fresh.headers.ETag });
    expect([name, next.statusCode]).toEqual([name, 304]);
    expect(next.itemsRead).toBeLessThanOrEqual(SHARDS + 1);
  }
});

it('a changed balance poll reads the stamps and the changed account only, and answers exactly what each account does', async () => {
  const before = await poll('all-balance');
  await poll('all-balance'); // this instance now holds every balance
  await harness.writer.recordBalance(IDS[3], snapshot('7777.777', new Date()));
  const after = await poll('all-balance', { tag: before.headers.ETag });
  expect(after.statusCode).toBe(200);
  expect(after.headers.ETag).not.toBe(before.headers.ETag);
  // The counts, the shard whose count moved, and the balance.
  expect(after.itemsRead).toBeLessThanOrEqual(SHARDS + 1 + 1 + 1);
  for (const account of after.body.accounts) {
    const own = await poll('account-balance', { account: account.accountId });
    expect(account).toEqual(own.body);
  }
  expect(after.body.accounts.find((a: { accountId: string }) => a.accountId === IDS[3]).balance).toBe('7777.777');
});

it('a changed accounts poll reads the stamps and the renamed account only, and answers what the table holds', async () => {
  const before = await poll('accounts');
  await poll('accounts'); // this instance now holds every profile
  await harness.writer.upsertAccount({ id: IDS[4], name: 'Renamed bot', currency: 'USD', broker: 'paper', environment: 'live' });
  const after = await poll('accounts', { tag: before.headers.ETag });
  expect(after.statusCode).toBe(200);
  expect(after.itemsRead).toBeLessThanOrEqual(SHARDS + 1 + 1 + 1);
  expect(after.body.accounts).toEqual(await listAccounts(harness.store, '*'));
  expect(after.body.accounts.find((a: { id: string }) => a.id === IDS[4])).toMatchObject({ name: 'Renamed bot', environment: 'live' });
  expect((await poll('accounts', { tag: after.headers.ETag })).statusCode).toBe(304);
});

it('a heartbeat that only moves the time keeps the status tag; a message, a state or a trade moves it', async () => {
  const id = IDS[1];
  // Two heartbeats in one stamp window (the previous one, whole: both in the past).
  const windowStart = Math.floor(Date.now() / (WINDOW * 1000)) * WINDOW * 1000 - WINDOW * 1000;
  const beat = (ms: number) =>
    harness.writer.heartbeat(id, { state: 'paused', strategy: 'grid', time: new Date(windowStart + ms).toISOString() });
  await beat(1000);
  let tag = (await poll('all-status')).headers.ETag;
  const stampOf = async () => (await readAccountStamps(harness.store, id)).bot;
  const stamped = await stampOf();
  await beat(WINDOW * 1000 - 1000);
  expect((await poll('all-status', { tag })).statusCode).toBe(304);
  // The stamp stayed; the heartbeat moved.
  expect(await stampOf()).toBe(stamped);
  expect(Date.parse(toBotReport((await getAccountItem(harness.store, id, true))!).lastHeartbeatAt!)).toBeGreaterThan(
    parseBotStamp(stamped!).heartbeatAt!,
  );
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

it("a bot's heartbeats and trades racing each other both show in its status stamps", async () => {
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
  // Each a new message: every one is a stamped heartbeat, not the cheap path.
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
  const stamped = await poll('all-status', { tag });
  expect(stamped.statusCode).toBe(200);
  const own = (await poll('account-status', { account: id })).body;
  expect(own.openTradeCount).toBe(6);
  // The age counts whole seconds since the heartbeat: the two polls may straddle a second.
  const { heartbeatAgeSeconds, ...fleetEntry } = stamped.body.accounts.find((s: { accountId: string }) => s.accountId === id);
  expect({ ...fleetEntry, heartbeatAgeSeconds: own.heartbeatAgeSeconds }).toEqual(own);
  expect(own.heartbeatAgeSeconds - heartbeatAgeSeconds).toBeLessThanOrEqual(1);
  // Neither lost the race: the stamps are exactly what the account's items say.
  const stored = await readAccountStamps(harness.store, id);
  const item = await getAccountItem(harness.store, id, true);
  const balance = await getBalanceRecord(harness.store, id);
  expect([stored.bot, stored.trades]).toEqual([botStamp(toBotReport(item!), WINDOW), tradesStamp(balance!)]);
  expect((await poll('all-status', { tag: stamped.headers.ETag })).statusCode).toBe(304);
});

it('a bot turning stale changes the status answer with no write; inside the stamp window the account item decides', async () => {
  const id = IDS[5];
  // The stamp holds the last heartbeat rounded down to its window, up to 10 s back; the account item holds it exactly.
  const beat = (secondsAgo: number) =>
    harness.writer.heartbeat(id, { state: 'running', time: new Date(Date.now() - secondsAgo * 1000).toISOString() });
  expect([await beat(10), await beat(1)]).toEqual(['recorded', 'recorded']);
  const fresh = await poll('all-status');
  const entry = (body: any) => body.accounts.find((s: { accountId: string }) => s.accountId === id);
  // The stamp may say up to 11 s old (over the threshold of 3 s), the account item 1 s: the item wins.
  expect(entry(fresh.body).stale).toBe(false);
  expect(fresh.body.summary.stale).toBe(0);
  // Polled as a dashboard polls: 304s until the heartbeat's age passes the threshold, then the answer that says so.
  const stale = await until(
    async () => {
      const answer = await poll('all-status', { tag: fresh.headers.ETag });
      return answer.statusCode !== 304 && answer;
    },
    `the all-status answer changed by ${id} turning stale`,
    { everyMs: 200 },
  );
  expect(stale.statusCode).toBe(200);
  expect(entry(stale.body).stale).toBe(true);
  expect((await poll('account-status', { account: id })).body.stale).toBe(true);
  // Nothing changes any more (the one running bot stays stale): the next poll is a 304 again.
  expect((await poll('all-status', { tag: stale.headers.ETag })).statusCode).toBe(304);
});

it("a key scoped to some accounts learns nothing of the others' changes, not even of a shard-mate's", async () => {
  const [mine, mate] = MATES;
  const tags = Object.fromEntries(
    await Promise.all(FLEET.map(async (name) => [name, (await poll(name, { accounts: [mine] })).headers.ETag])),
  );
  await harness.writer.recordBalance(mate, snapshot('1.5', new Date()));
  await harness.writer.heartbeat(mate, { state: 'error', message: 'down' });
  await harness.writer.upsertAccount({ id: mate, name: 'Renamed', currency: 'USD', broker: 'paper', environment: 'paper' });
  for (const name of FLEET) {
    const answer = await poll(name, { accounts: [mine], tag: tags[name] });
    expect([name, answer.statusCode]).toEqual([name, 304]);
    // The meta item and the shard's count, and the shard again as its count moved: read server-side, unseen.
    expect(answer.itemsRead).toBeLessThanOrEqual(3);
  }
  await harness.writer.recordBalance(mine, snapshot('2.5', new Date()));
  const mineChanged = await poll('all-balance', { accounts: [mine], tag: tags['all-balance'] });
  expect(mineChanged.statusCode).toBe(200);
  expect(mineChanged.body.accounts.map((a: { accountId: string }) => a.accountId)).toEqual([mine]);
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
  // What an older writer's heartbeat did within its stamp's window: the account item alone, no stamp moved.
  await edit(harness.store.tables.accounts, 'SET bot.#s = :s, bot.message = :m', { ':s': 'error', ':m': 'crashed' }, { '#s': 'state' });
  await edit(harness.store.tables.accounts, 'SET #n = :n', { ':n': 'Renamed by hand' }, { '#n': 'name' });
  await edit(harness.store.tables.balances, 'SET balance = :b, version = version + :one', { ':b': '42.42', ':one': 1 });
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
  const pump = startStreamPump({ store: harness.store, endpoint: proxy.endpoint, windowSeconds: WINDOW });
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

    await harness.writer.heartbeat(id, { state: 'error', strategy: 'grid', message: 'kept iterator refused' });
    await proxy.inject({ kind: 'expired-iterator' }, 1, { only: 'GetRecords' });
    before = asked();
    await pump.drain();
    // The refused iterator replaced by one from the last record projected, and the change projected by this pump.
    expect(asked().iterators - before.iterators).toBe(1);
    expect(parseBotStamp((await readAccountStamps(harness.store, id)).bot!).state).toBe('error');
  } finally {
    await pump.stop();
    await proxy.close();
  }
  const status = await invoke('account-status', eventFor('account-status', { account: id }));
  expect(status.body).toMatchObject({ state: 'error', message: 'kept iterator refused' });
});

it('a stage whose data predates the projector answers from the tables until the backfill rebuilds it; a second rebuild writes none', async () => {
  const { store } = harness;
  const tagged = Object.fromEntries(await Promise.all(FLEET.map(async (name) => [name, await poll(name)])));
  // As an older stage: not complete, one account's balance stamp gone, another's bot stamp wrong.
  await markIncomplete(store);
  const edit = (part: string, update: string, names: Record<string, string>, values?: Record<string, unknown>) =>
    store.client.send(
      new UpdateCommand({
        TableName: store.tables.fleet,
        Key: { part, key: 'stamps' },
        UpdateExpression: update,
        ExpressionAttributeNames: names,
        ...(values ? { ExpressionAttributeValues: values } : {}),
      }),
    );
  await edit(`balance#${shardOf(IDS[7])}`, 'REMOVE #a', { '#a': `v@${IDS[7]}` });
  await edit(`status#${shardOf(IDS[8])}`, 'SET #a = :wrong', { '#a': `r@${IDS[8]}` }, { ':wrong': 's00000000' });
  for (const name of FLEET) {
    const legacy = await poll(name);
    // The status is tagged from the tables' items as the stamps tag it (the same tag as before, however wrong the
    // stamps now are); the others from their bodies.
    if (name === 'all-status') expect(legacy.headers.ETag).toBe(tagged[name].headers.ETag);
    else {
      expect([name, legacy.headers.ETag.startsWith('W/')]).toEqual([name, false]);
      expect([name, legacy.body]).toEqual([name, tagged[name].body]);
    }
  }
  const first = await rebuildFleet(store, WINDOW);
  expect(first.stamped).toBe(2);
  for (const name of FLEET) {
    const stamped = await poll(name);
    expect([name, stamped.headers.ETag]).toEqual([name, tagged[name].headers.ETag]);
  }
  expect(await rebuildFleet(store, WINDOW)).toMatchObject({ stamped: 0, sumsWritten: 0 });
});
