/**
 * Fleet polls whose cost does not follow the fleet's size: /api/accounts, /api/all/status and /api/all/balance tag
 * their answers from the fleet's stamps (packages/core/src/store/fleet-table.ts) before reading anything else.
 * Through the real writer and handlers on DynamoDB Local: an unchanged poll reads at most SHARDS + 1 items and is a
 * 304; a change of anything the answer shows moves the tag, a heartbeat that only moves the time does not, and a bot
 * turning stale does with no write at all; a key scoped to some accounts learns nothing of the others; the answers
 * stay exactly the per-account ones; a stage whose data predates the stamps answers from the tables until the
 * backfill.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { getAccountItem, listAccounts, toBotReport } from '@trading-bot-api/core/store/accounts-table';
import { getBalanceRecord } from '@trading-bot-api/core/store/balances-table';
import {
  botStamp,
  markStamped,
  markUnstamped,
  parseBotStamp,
  readAccountStamps,
  SHARDS,
  shardOf,
  tradesStamp,
} from '@trading-bot-api/core/store/fleet-table';
import { backfillAccount } from '@trading-bot-api/writer';
import { eventFor, type FunctionName, type Harness, invoke, startHarness } from '../kit/api-harness';
import { expectContract } from '../kit/contract';
import { printedWhile } from '../kit/printed';

const STALE_AFTER_SECONDS = 3;
let harness: Harness;

/** Twelve accounts, and two that share a shard (`mate-a`, `mate-b`), for the scoping test. */
const IDS = [...Array(12).keys()].map((i) => `fleet-${String(i).padStart(2, '0')}`);
const MATES = (() => {
  const a = 'mate-a';
  for (let i = 0; ; i++) if (shardOf(`mate-b${i}`) === shardOf(a)) return [a, `mate-b${i}`];
})();

beforeAll(async () => {
  harness = await startHarness({ LOG_LEVEL: 'INFO', STALE_AFTER_SECONDS: String(STALE_AFTER_SECONDS) });
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

it('an unchanged poll of each fleet answer is a 304 that reads at most SHARDS + 1 items', async () => {
  for (const name of FLEET) {
    const first = await poll(name);
    expect([name, first.statusCode]).toEqual([name, 200]);
    const again = await poll(name, { tag: first.headers.ETag });
    expect([name, again.statusCode, again.body, again.headers.ETag]).toEqual([name, 304, '', first.headers.ETag]);
    expect([name, again.itemsRead]).toEqual([name, expect.any(Number)]);
    expect(again.itemsRead).toBeLessThanOrEqual(SHARDS + 1);
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
  let tag = (await poll('all-status')).headers.ETag;
  await harness.writer.heartbeat(id, { state: 'paused', strategy: 'grid' });
  expect((await poll('all-status', { tag })).statusCode).toBe(304);
  // Within the stamp's window the next one touches the account item alone: the stamp stays, the heartbeat moves.
  const stampOf = async () => (await readAccountStamps(harness.store, id)).stamps.bot;
  const stamped = await stampOf();
  await harness.writer.heartbeat(id, { state: 'paused', strategy: 'grid' });
  expect(await stampOf()).toBe(stamped);
  expect(Date.parse(toBotReport((await getAccountItem(harness.store, id, true))!).lastHeartbeatAt!)).toBeGreaterThan(
    parseBotStamp(stamped!).heartbeatAt!,
  );
  expect((await poll('all-status', { tag })).statusCode).toBe(304);
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

it("a bot's heartbeats and trades racing each other both stay in its status stamp (they share one attribute)", async () => {
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
  // Neither half lost the race: the stamp is exactly what the account's items say (every heartbeat here was stamped).
  const { stamps: stored } = await readAccountStamps(harness.store, id);
  const item = await getAccountItem(harness.store, id, true);
  const balance = await getBalanceRecord(harness.store, id);
  expect([stored.bot, stored.trades]).toEqual([botStamp(toBotReport(item!), harness.writer.stampSeconds), tradesStamp(balance!)]);
  expect((await poll('all-status', { tag: stamped.headers.ETag })).statusCode).toBe(304);
});

it('a bot turning stale changes the status answer with no write; inside the stamp window the account item decides', async () => {
  const id = IDS[5];
  // The first heartbeat is stamped; the second, 9 s later, only touches the account item (the stamp is recent).
  const beat = (secondsAgo: number) =>
    harness.writer.heartbeat(id, { state: 'running', time: new Date(Date.now() - secondsAgo * 1000).toISOString() });
  expect([await beat(10), await beat(1)]).toEqual(['recorded', 'recorded']);
  const fresh = await poll('all-status');
  const entry = (body: any) => body.accounts.find((s: { accountId: string }) => s.accountId === id);
  // The stamp says 10 s old (over the threshold of 3 s), the account item 1 s: the item wins.
  expect(entry(fresh.body).stale).toBe(false);
  expect(fresh.body.summary.stale).toBe(0);
  await new Promise((resolve) => setTimeout(resolve, (STALE_AFTER_SECONDS + 1.5) * 1000));
  const stale = await poll('all-status', { tag: fresh.headers.ETag });
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

it('a stage whose data predates the stamps answers from the tables until the backfill stamps it; a second backfill writes none', async () => {
  const { store } = harness;
  const tagged = Object.fromEntries(await Promise.all(FLEET.map(async (name) => [name, await poll(name)])));
  // As an older stage: complete in format 1 only (no `format`), one account's balance stamp gone, another's status
  // stamp wrong, a third with its format-1 stamps still beside the current ones.
  await markUnstamped(store);
  // Edits a fleet item behind the writer's back, as a stage of another format holds it.
  const edit = (shard: string, update: string, names: Record<string, string>, values?: Record<string, unknown>) =>
    store.client.send(
      new UpdateCommand({
        TableName: store.tables.fleet,
        Key: { shard },
        UpdateExpression: update,
        ...(Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
        ...(values ? { ExpressionAttributeValues: values } : {}),
      }),
    );
  await edit('meta', 'SET complete = :t', {}, { ':t': true });
  await edit(
    `status#${shardOf(IDS[10])}`,
    'SET #b = :b, #t = :t',
    { '#b': `b@${IDS[10]}`, '#t': `t@${IDS[10]}` },
    { ':b': 'pAAAAAAAA1', ':t': '0|' },
  );
  await edit(`balance#${shardOf(IDS[7])}`, 'REMOVE #a', { '#a': `v@${IDS[7]}` });
  await edit(`status#${shardOf(IDS[8])}`, 'SET #a = :wrong', { '#a': `s@${IDS[8]}` }, { ':wrong': 'stopped|x|' });
  for (const name of FLEET) {
    const legacy = await poll(name);
    expect([name, legacy.headers.ETag.startsWith('W/')]).toEqual([name, false]);
    if (name !== 'all-status') expect([name, legacy.body]).toEqual([name, tagged[name].body]);
  }
  const ids = (await harness.writer.listAccounts()).map(({ account }) => account.id);
  const first = await Promise.all(ids.map((id) => backfillAccount(harness.writer, id)));
  expect(first.filter((result) => result.stamped).map((result) => result.accountId)).toEqual([IDS[7], IDS[8], IDS[10]]);
  expect((await readAccountStamps(store, IDS[10])).format1).toBe(false);
  await markStamped(store, new Date().toISOString());
  for (const name of FLEET) {
    const stamped = await poll(name);
    expect([name, stamped.headers.ETag]).toEqual([name, tagged[name].headers.ETag]);
  }
  const second = await Promise.all(ids.map((id) => backfillAccount(harness.writer, id)));
  expect(second.filter((result) => result.stamped)).toEqual([]);
});
