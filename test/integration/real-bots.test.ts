/**
 * What real bots do to the data, through the real writer and handlers on DynamoDB Local: a clock ahead (refused now,
 * and a future heartbeat or snapshot stored before no longer hides the truth), trades the bot no longer has (gone),
 * a corrected trade whose figures stay exact in the statistics and the fleet's sums, and retired accounts (out of
 * the fleet's answers and the probe, history kept, back on restore; `npm run accounts`).
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Context } from 'aws-lambda';
import { fleetPeriods } from '@trading-bot-api/core/store/fleet-table';
import { getPeriodOfOwners, readPeriods } from '@trading-bot-api/core/store/ledger-table';
import { mergePeriods, periodsOfClose } from '@trading-bot-api/core/rollups';
import { backfillAccount, type Writer, WriterError } from '@trading-bot-api/writer';
import { rebuildFleet } from '../../api/projector/rebuild';
import { localWriter } from '../../scripts/support/load-data';
import { eventFile, eventFor, type Harness, invoke, startHarness } from '../kit/api-harness';
import { expectContract } from '../kit/contract';
import { scriptArgs } from '../kit/scripts';

jest.setTimeout(60_000);

const ROOT = join(__dirname, '..', '..');
let harness: Harness;
let writer: Writer;
const NOW = Date.now();
const ago = (minutes: number) => new Date(NOW - minutes * 60_000).toISOString();
const ahead = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();

beforeAll(async () => {
  harness = await startHarness({ STALE_AFTER_SECONDS: '300' });
  writer = harness.writer;
});
afterAll(() => harness.close());

const account = (id: string, currency = 'USD') =>
  writer.upsertAccount({ id, name: `Bot ${id}`, currency, broker: 'B', environment: 'paper', createdAt: ago(600) });

async function api(name: Parameters<typeof eventFor>[0], options: Parameters<typeof eventFor>[1] = {}) {
  const response = await invoke(name, eventFor(name, options));
  return response;
}

const refusal = async (work: Promise<unknown>) => {
  const error = await work.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(WriterError);
  return error as WriterError;
};

describe('clocks', () => {
  it('a heartbeat, snapshot or trade dated more than 5 minutes ahead is refused, naming how far ahead', async () => {
    await account('clock-a');
    const beat = await refusal(writer.heartbeat('clock-a', { state: 'running', time: ahead(24 * 60) }));
    expect(beat).toMatchObject({ code: 'INVALID_INPUT', field: 'time' });
    expect(beat.message).toMatch(
      /^time: is .*, (1 d 0 h|23 h 59 min) ahead of the writer's clock \(.*\); more than 5 min ahead is refused/,
    );
    const snapshot = { balance: '1', unrealizedPL: '0', nav: '1', marginUsed: '0', marginAvailable: '1' };
    expect(await refusal(writer.recordBalance('clock-a', { ...snapshot, time: ahead(10) }))).toMatchObject({ field: 'time' });
    const trade = { id: 'early', instrument: 'EUR_USD', side: 'buy' as const, units: '1', openPrice: '1.1', openTime: ahead(10) };
    expect(await refusal(writer.openTrade('clock-a', trade))).toMatchObject({ field: 'openTime' });
    const [result] = await writer.recordTrades('clock-a', [{ ...trade, status: 'open' }]);
    expect(result).toMatchObject({ error: { code: 'INVALID_INPUT', field: 'openTime' } });
    // A few minutes of drift are forgiven.
    expect(await writer.heartbeat('clock-a', { state: 'running', time: ahead(4) })).toBe('recorded');
  });

  it('a heartbeat stored ahead before the writer refused it does not hide a crash: the bot is stale, then in error', async () => {
    await account('clock-b');
    // A writer whose own clock ran a day ahead wrote it (as writers did before they checked the time).
    const skewed = localWriter(harness.db.endpoint, { stage: harness.stage, now: () => new Date(Date.now() + 86_400_000) });
    try {
      await skewed.heartbeat('clock-b', { state: 'running', time: ahead(24 * 60) });
      await skewed.recordBalance('clock-b', {
        balance: '5',
        unrealizedPL: '0',
        nav: '5',
        marginUsed: '0',
        marginAvailable: '5',
        time: ahead(24 * 60),
      });
    } finally {
      skewed.close();
    }
    // Not believed: the bot is stale at once, by id and in the fleet (whose tag comes from the fleet's stamps).
    const byId = await api('account-status', { account: 'clock-b' });
    expect(byId.body).toMatchObject({ state: 'running', stale: true, heartbeatAgeSeconds: 0 });
    const fleet = await api('all-status');
    expect(fleet.body.accounts.find((status: { accountId: string }) => status.accountId === 'clock-b')).toMatchObject({ stale: true });
    // The true heartbeat says it crashed: recorded, not dropped as older.
    expect(await writer.heartbeat('clock-b', { state: 'error', message: 'crashed' })).toBe('recorded');
    expect((await api('account-status', { account: 'clock-b' })).body).toMatchObject({ state: 'error', message: 'crashed', stale: false });
    const after = await api('all-status');
    expect(after.body.accounts.find((status: { accountId: string }) => status.accountId === 'clock-b')).toMatchObject({ state: 'error' });
    // And the true balance replaces the one from the future.
    const snapshot = { balance: '7', unrealizedPL: '0', nav: '7', marginUsed: '0', marginAvailable: '7', time: new Date().toISOString() };
    expect(await writer.recordBalance('clock-b', snapshot)).toBe('recorded');
    expect((await api('account-balance', { account: 'clock-b' })).body).toMatchObject({ balance: '7', updatedAt: snapshot.time });
  });
});

describe('trades the bot no longer has', () => {
  beforeAll(async () => {
    await account('gone-a');
    for (const id of ['g1', 'g2', 'g3'])
      await writer.openTrade('gone-a', {
        id,
        instrument: 'EUR_USD',
        side: 'buy',
        units: '1000',
        openPrice: '1.1',
        openTime: ago(60),
        unrealizedPL: '2.5',
      });
  });

  it('marked gone: out of the open count, no P&L, listed with its reason, final', async () => {
    expect(await writer.markGone('gone-a', 'g1', { reason: 'gone from the bot: reset', time: ago(1) })).toBe('gone');
    expect(await writer.markGone('gone-a', 'g1', { reason: 'again' })).toBe('unchanged');
    const trade = (await api('account-trades', { account: 'gone-a', query: { status: 'gone' } })).body.trades;
    expect(trade).toEqual([
      expect.objectContaining({
        id: 'g1',
        status: 'gone',
        closePrice: null,
        closeTime: ago(1),
        realizedPL: '0',
        unrealizedPL: '0',
        closeReason: 'gone from the bot: reset',
      }),
    ]);
    expectContract('/api/{account}/trades', await api('account-trades', { account: 'gone-a' }));
    expect((await api('account-status', { account: 'gone-a' })).body.openTradeCount).toBe(2);
    expect((await refusal(writer.updateTradeMarks('gone-a', 'g1', { unrealizedPL: '1' }))).code).toBe('TRADE_CLOSED');
    expect(
      (
        await refusal(
          writer
            .recordTrades('gone-a', [])
            .then(() => writer.openTrades('gone-a'))
            .then(() => writer.markGone('gone-a', 'nope', { reason: 'x' })),
        )
      ).code,
    ).toBe('TRADE_NOT_FOUND');
    // Given as open again (the bot's database restored), it stays gone.
    const [again] = await writer.recordTrades('gone-a', [{ ...trade[0], status: 'open', closeTime: null, closeReason: null }]);
    expect(again).toMatchObject({ error: { code: 'TRADE_CLOSED' } });
    expect((await writer.openTrades('gone-a')).map((open) => open.id).sort()).toEqual(['g2', 'g3']);
  });

  it('a gone trade the bot reports closed after all is closed, and its P&L counts', async () => {
    await writer.markGone('gone-a', 'g2', { reason: 'gone for a while' });
    expect(await writer.closeTrade('gone-a', 'g2', { closePrice: '1.2', closeTime: ago(0.5), realizedPL: '100' })).toBe('closed');
    const balance = (await api('account-balance', { account: 'gone-a' })).body;
    expect(balance).toMatchObject({ realizedPL: '100', openTradeCount: 1 });
    const closed = (await api('account-trades', { account: 'gone-a', query: { status: 'closed' } })).body.trades;
    expect(closed).toEqual([expect.objectContaining({ id: 'g2', closeReason: null, closePrice: '1.2' })]);
  });
});

describe('a corrected trade', () => {
  it("leaves the statistics and the fleet's as a backfill computes them from the trades", async () => {
    // Three accounts in one currency: the currency's sums add up all three.
    const ids = ['fix-0', 'fix-1', 'fix-2'];
    // Minutes before NOW: t1 closed yesterday (UTC), t2 today, so a correction moves two days' sums. The fleet's P&L
    // of t1's day once kept the float's places after the correction ("12.790000000000000"), seen only when the test
    // ran in the first minutes after midnight.
    const minutesIntoToday = (NOW - Date.parse(`${new Date(NOW).toISOString().slice(0, 10)}T00:00:00.000Z`)) / 60_000;
    const [yesterday, today] = [minutesIntoToday + 20, Math.min(minutesIntoToday, 1)];
    const trade = (id: string, realizedPL: string, minutesAgo: number) => ({
      id,
      instrument: 'BTC_USDT',
      side: 'buy',
      units: '0.1',
      status: 'closed',
      openPrice: '60000',
      openTime: ago(minutesAgo + 30),
      closePrice: '61000',
      closeTime: ago(minutesAgo),
      realizedPL,
    });
    for (const [i, id] of ids.entries()) {
      await account(id, 'USDT');
      await writer.recordTrades(id, [
        trade('t1', ['9.689999999999998', '5.1', '-2'][i], yesterday),
        trade('t2', '-3.8249999999999997', today),
      ]);
    }
    const [fixed] = ids;
    const results = await writer.recordTrades(fixed, [trade('t1', '9.69', yesterday), trade('t2', '-3.825', today)], { correct: true });
    expect(results.map((result) => ('outcome' in result ? result.outcome : result.error.code))).toEqual(['corrected', 'corrected']);
    expect((await api('account-balance', { account: fixed })).body.realizedPL).toBe('5.865');
    // Exactly what a backfill computes from the trades: nothing left for it to write.
    expect(await backfillAccount(writer, fixed)).toMatchObject({ written: 0 });
    // The projector recomputed the fleet's figures of those periods from the three accounts' own (a correction can
    // make a best trade worse, which no fold undoes): the same as merging them, and nothing left for a rebuild to write.
    await harness.projector.drain();
    const periods = periodsOfClose(ago(yesterday));
    const fleet = await readPeriods(harness.store, fleetPeriods(harness.store, 'USDT'), periods);
    for (const [i, period] of periods.entries()) {
      const own = await getPeriodOfOwners(harness.store, ids, period);
      expect(own).toHaveLength(3);
      expect(fleet[i].figures).toEqual(own.map((entry) => entry.figures).reduce(mergePeriods));
    }
    expect((await rebuildFleet(harness.store)).sumsWritten).toBe(0);
    // Without `correct` a closed trade given otherwise is refused, as before.
    const [refused] = await writer.recordTrades(fixed, [trade('t1', '9.7', yesterday)]);
    expect(refused).toMatchObject({ error: { code: 'TRADE_CLOSED' } });
  });
});

describe('retired accounts', () => {
  const IDS = ['ret-a', 'ret-b'];
  beforeAll(async () => {
    for (const id of IDS) {
      await account(id, 'EUR');
      await writer.openTrade(id, { id: `${id}-1`, instrument: 'EUR_USD', side: 'buy', units: '1', openPrice: '1.1', openTime: ago(30) });
      await writer.recordBalance(id, {
        balance: '100',
        unrealizedPL: '0',
        nav: '100',
        marginUsed: '0',
        marginAvailable: '100',
        time: ago(1),
      });
      await writer.heartbeat(id, { state: 'running', time: ago(30) });
    }
  });

  /** The retired tests' accounts each fleet answer lists, for a key that sees every account or (`scope`) those. */
  const fleetIds = async (scope?: string[]) => {
    const ask = async (name: 'accounts' | 'all-status' | 'all-balance') => {
      const event = eventFor(name);
      if (scope) event.requestContext = { ...event.requestContext, authorizer: { accounts: scope.join(','), keyId: 'k' } };
      const { body } = await invoke(name, event);
      return body.accounts
        .map((entry: { id?: string; accountId?: string }) => entry.id ?? entry.accountId)
        .filter((id: string) => IDS.includes(id));
    };
    return { accounts: await ask('accounts'), status: await ask('all-status'), balance: await ask('all-balance') };
  };

  it('leave every fleet answer and the probe, their history stays readable by id, and come back on restore', async () => {
    const before = await api('all-status');
    expect(await fleetIds()).toEqual({ accounts: IDS, status: IDS, balance: IDS });
    const eur = (await api('all-balance')).body.totals.find((total: { currency: string }) => total.currency === 'EUR');
    expect(eur).toMatchObject({ accountCount: 2, balance: '200' });

    expect(await writer.retireAccount('ret-a')).toBe('retired');
    expect(await writer.retireAccount('ret-a')).toBe('unchanged');
    expect(await fleetIds()).toEqual({ accounts: ['ret-b'], status: ['ret-b'], balance: ['ret-b'] });
    expect((await api('all-balance')).body.totals.find((total: { currency: string }) => total.currency === 'EUR')).toMatchObject({
      accountCount: 1,
      balance: '100',
    });
    // The poll that held the old answer is told it changed.
    const held = await api('all-status', { headers: { 'If-None-Match': before.headers.ETag } });
    expect(held.statusCode).toBe(200);
    // By id, everything still answers; the status says when it was retired.
    const status = await api('account-status', { account: 'ret-a' });
    expect(status.body).toMatchObject({ accountId: 'ret-a', retiredAt: expect.any(String) });
    expectContract('/api/{account}/status', status);
    expect((await api('account-trades', { account: 'ret-a' })).body.trades).toHaveLength(1);
    expect((await api('account-balance', { account: 'ret-a' })).statusCode).toBe(200);
    // Its bot may still write: nothing is lost, and it stays out of the fleet.
    expect(await writer.heartbeat('ret-a', { state: 'error', message: 'still here' })).toBe('recorded');
    await writer.closeTrade('ret-a', 'ret-a-1', { closePrice: '1.2', closeTime: ago(0.1), realizedPL: '10' });
    await writer.recordBalance('ret-a', {
      balance: '110',
      unrealizedPL: '0',
      nav: '110',
      marginUsed: '0',
      marginAvailable: '110',
      time: ago(0.05),
    });
    await writer.upsertAccount({ id: 'ret-a', name: 'Renamed', currency: 'EUR', broker: 'B', environment: 'paper' });
    expect(await fleetIds()).toEqual({ accounts: ['ret-b'], status: ['ret-b'], balance: ['ret-b'] });
    // The same for a key that names every account (read from the tables); a rebuild finds nothing to change.
    expect(await fleetIds(['ret-a', 'ret-b'])).toEqual({ accounts: ['ret-b'], status: ['ret-b'], balance: ['ret-b'] });
    expect(await rebuildFleet(harness.store)).toMatchObject({ listed: 0, sumsWritten: 0 });
    // The probe (which reads the tables) neither counts it nor names it, error and all.
    const { handler } = await import('../../functions/probe');
    const probed = await handler(eventFile('probe') as never, { functionName: 'probe', awsRequestId: 'p' } as Context);
    expect(probed.inError.map((entry: { accountId: string }) => entry.accountId)).not.toContain('ret-a');

    expect(await writer.restoreAccount('ret-a')).toBe('restored');
    expect(await writer.restoreAccount('ret-a')).toBe('unchanged');
    // Nor did it count in the probe's metrics, which the alarms watch (BotsInError, StaleBots are published from
    // these counts): restored, it counts again, in error.
    const restored = await handler(eventFile('probe') as never, { functionName: 'probe', awsRequestId: 'p2' } as Context);
    expect(restored.bots).toMatchObject({ total: probed.bots!.total + 1, error: probed.bots!.error + 1 });
    expect(restored.inError.map((entry: { accountId: string }) => entry.accountId)).toContain('ret-a');
    expect(await fleetIds()).toEqual({ accounts: IDS, status: IDS, balance: IDS });
    expect((await api('account-status', { account: 'ret-a' })).body).toMatchObject({ state: 'error', retiredAt: null });
  });

  it('npm run accounts lists, retires and restores', async () => {
    const run = async (...args: string[]) =>
      (
        await promisify(execFile)(
          process.execPath,
          [...scriptArgs('accounts'), ...args, '--stage', harness.stage, '--endpoint', harness.db.endpoint],
          { cwd: ROOT },
        )
      ).stdout;
    expect(await run('retire', 'ret-b')).toBe(
      'ret-b: retired: out of the fleet, the probe and the alarms; its history stays readable by id (npm run accounts -- restore ret-b brings it back)\n',
    );
    const listed = (await run('list', '--retired')).trim().split('\n');
    expect(listed[0]).toMatch(/^ID\s+NAME\s+CURRENCY\s+ENVIRONMENT\s+BOT\s+LAST HEARTBEAT\s+OPEN$/);
    expect(listed.slice(1)).toEqual([expect.stringMatching(/^ret-b\s+Bot ret-b\s+EUR\s+paper\s+running\s+\S+\s+1\s+retired \S+Z$/)]);
    expect(await run('restore', 'ret-b')).toBe('ret-b: restored: back in the fleet\n');
    expect(await run('list', '--retired')).toBe('No retired accounts.\n');
    const missing = await promisify(execFile)(
      process.execPath,
      [...scriptArgs('accounts'), 'retire', 'nobody', '--stage', harness.stage, '--endpoint', harness.db.endpoint],
      { cwd: ROOT },
    ).catch((error: { code: number; stderr: string }) => error);
    expect(missing).toMatchObject({
      code: 1,
      stderr: `accounts: writing to stage ${harness.stage} on DynamoDB Local at ${harness.db.endpoint}\nnobody: no account "nobody"\n`,
    });
  });
});
