/**
 * The freqtrade bridge against a fake freqtrade (test/kit/fake-freqtrade.ts, answering as freqtrade's REST API
 * does) and DynamoDB Local: what an operator then reads from the API (every trade whole: fees in two currencies, a
 * leveraged short future with its funding, exit reasons, orders), what each poll costs in writes, and what the
 * command says when the bot cannot be reached or refuses the password.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freqtradeClient } from '@trading-bot-api/feeds/bridges/freqtrade/api';
import { FreqtradeBridge } from '@trading-bot-api/feeds/bridges/freqtrade/bridge';
import { runBridges } from '@trading-bot-api/feeds/bridges/run';
import type { Writer } from '@trading-bot-api/writer';
import { compareDecimals, isDecimal, sumDecimals } from '@trading-bot-api/core/decimal';
import { localWriter } from '../../scripts/support/load-data';
import { eventFor, type Harness, invoke, startHarness } from '../kit/api-harness';
import { FakeFreqtrade } from '../kit/fake-freqtrade';
import { FaultProxy } from '../kit/fault-proxy';
import { startScript, scriptArgs } from '../kit/scripts';
import { until } from '../kit/until';

jest.setTimeout(120_000);

const ROOT = join(__dirname, '..', '..');
const STALE_AFTER_SECONDS = 2;
let harness: Harness;
let proxy: FaultProxy;
let writer: Writer;
let dir: string;

beforeAll(async () => {
  harness = await startHarness({ STALE_AFTER_SECONDS: String(STALE_AFTER_SECONDS) });
  proxy = await new FaultProxy(harness.db.endpoint).start();
  writer = localWriter(proxy.endpoint, { stage: harness.stage });
  dir = mkdtempSync(join(tmpdir(), 'bridge-test-'));
});
afterAll(async () => {
  writer?.close();
  await proxy?.close();
  await harness?.close();
  rmSync(dir, { recursive: true, force: true });
});

const api = async (name: Parameters<typeof eventFor>[0], account: string, query: Record<string, string> = {}) =>
  (await invoke(name, eventFor(name, { account, query }))).body;
const trades = async (account: string) => (await api('account-trades', account, { limit: '500' })).trades as Record<string, unknown>[];
const accountOf = async (id: string) =>
  ((await invoke('accounts', eventFor('accounts', {}))).body.accounts as { id: string }[]).find((account) => account.id === id);
const tradeOf = async (account: string, id: string) => (await trades(account)).find((trade) => trade.id === id);
/**
 * The mirror equals the bot: the account's open trades are freqtrade's (those whose entry filled), its open count is
 * theirs, and the balance's unrealized P&L is the sum of theirs.
 */
async function expectMirrorEqualsBot(bot: FakeFreqtrade, account: string): Promise<void> {
  const botOpen = (
    bot as unknown as { trades: { trade_id: number; open_timestamp: number; is_open: boolean; open_fill_timestamp: number | null }[] }
  ).trades
    .filter((trade) => trade.is_open && trade.open_fill_timestamp !== null)
    .map((trade) => `ft-${trade.trade_id}-${trade.open_timestamp}`)
    .sort();
  const open = (await api('account-trades', account, { status: 'open', limit: '500' })).trades as { id: string; unrealizedPL: string }[];
  expect(open.map((trade) => trade.id).sort()).toEqual(botOpen);
  expect((await api('account-status', account)).openTradeCount).toBe(botOpen.length);
  const balance = await api('account-balance', account);
  expect(balance.openTradeCount).toBe(botOpen.length);
  expect(compareDecimals(balance.unrealizedPL, sumDecimals(['0', ...open.map((trade) => trade.unrealizedPL)]))).toBe(0);
}

/** Float noise: among a decimal's significant digits, a run of six 0s or 9s and then another digit. */
const ARTEFACT = /[1-9]\d*(0{6,}|9{6,})\d/;

/** Every decimal string in `value` (an API answer) that carries float noise or more than 8 places. */
function noisy(value: unknown, path = ''): string[] {
  if (typeof value === 'string')
    return isDecimal(value) &&
      (ARTEFACT.test(value.replace(/^-/, '').replace('.', '').replace(/^0+/, '')) || (value.split('.')[1] ?? '').length > 8)
      ? [`${path}: ${value}`]
      : [];
  if (Array.isArray(value)) return value.flatMap((item, i) => noisy(item, `${path}[${i}]`));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([key, item]) => noisy(item, `${path}.${key}`));
  return [];
}

const HOUR = 3_600_000;
const NOW = Math.floor(Date.now() / 1000) * 1000;
const at = (hoursAgo: number) => NOW - Math.round(hoursAgo * HOUR);

/** The alerts a probe run now records of `account` (the probe function's path: its fleet, then the alerts table). */
async function alertsOf(account: string) {
  const { probeFleet } = await import('../../api/operations/probe');
  const { alertOnFleet } = await import('../../api/alerts/probe-alerts');
  const { store } = await import('../../api/database');
  const now = new Date();
  const { fleet } = await probeFleet(now);
  const statuses = fleet!.accounts.filter((status) => status.accountId === account);
  const options = {
    store,
    table: process.env.ALERTS_TABLE!,
    stage: harness.stage,
    staleAfterSeconds: STALE_AFTER_SECONDS,
    probeIntervalSeconds: 60,
  };
  return alertOnFleet(statuses, now, options);
}

/** The tables a poll wrote, item by item (the proxy sees every request the writer makes). */
async function writesOf(work: () => Promise<unknown>): Promise<string[]> {
  proxy.writes.length = 0;
  await work();
  return proxy.writes.flatMap((write) => write.tables.map((table) => table.replace(`trading-bot-api-${harness.stage}-`, ''))).sort();
}

describe('a bot mirrored poll by poll', () => {
  const bot = new FakeFreqtrade();
  const account = 'ft-main';
  let bridge: FreqtradeBridge;
  const ids: Record<string, number> = {};
  const ours = (id: number) => {
    const trade = (bot as unknown as { trades: { trade_id: number; open_timestamp: number }[] }).trades.find(
      (candidate) => candidate.trade_id === id,
    )!;
    return `ft-${id}-${trade.open_timestamp}`;
  };

  beforeAll(async () => {
    await bot.start();
    bridge = new FreqtradeBridge({ client: freqtradeClient(bot), writer, account });
    // A history before the bridge ever ran: two closed trades, and three open ones (long spot, short futures, and
    // an entry order that has not filled). The first paid its fees in two currencies, as Binance charges them: the
    // entry's in the base bought, the exit's in BNB.
    ids.closedWin = bot.open({ pair: 'BTC/USDT', amount: 0.01, rate: 60000, at: at(50), fee: { cost: 0.00001, currency: 'BTC' } });
    bot.close(ids.closedWin, { rate: 61000, at: at(49), profit: 9.87878, reason: 'exit_signal', fee: { cost: 0.00152, currency: 'BNB' } });
    ids.closedLoss = bot.open({ pair: 'ETH/USDT:USDT', short: true, amount: 0.5, rate: 3000, at: at(48) });
    bot.close(ids.closedLoss, { rate: 3030, at: at(47), profit: -15.0300000000001 });
    ids.long = bot.open({ pair: 'SOL/USDT', amount: 2.5, rate: 0.30000000000000004, stake: 0.75, at: at(5) });
    bot.update(ids.long, { profit_abs: 1e-5 });
    ids.short = bot.open({ pair: 'ETH/USDT:USDT', short: true, amount: 0.2, rate: 3100.5, stake: 620.1, at: at(4) });
    bot.update(ids.short, { profit_abs: -2.25 });
    ids.unfilled = bot.open({ pair: 'XRP/USDT', amount: 100, rate: 0.5, stake: 50, at: at(1), filled: false });
  });
  afterAll(() => bot.stop());

  it('creates the account from the bot configuration and mirrors its trades, balance and state', async () => {
    const summary = await bridge.poll();
    expect(summary).toMatchObject({ openTrades: 3, refused: [], state: 'running' });
    // Read at once: the bot turns stale STALE_AFTER_SECONDS after this poll, and the reads below take time on a busy machine.
    expect(await api('account-status', account)).toMatchObject({ state: 'running', strategy: 'SampleStrategy', stale: false });
    expect(await accountOf(account)).toMatchObject({
      id: account,
      name: 'ft-test',
      currency: 'USDT',
      broker: 'binance',
      environment: 'paper',
    });
    const listed = await trades(account);
    expect(listed.map((trade) => trade.id).sort()).toEqual([ids.closedWin, ids.closedLoss, ids.long, ids.short].map(ours).sort());
    // Amounts and prices at the exchange's precision (a tick of 0.00001 and of 0.01): float noise gone.
    expect(await tradeOf(account, ours(ids.long))).toMatchObject({
      instrument: 'SOL_USDT',
      side: 'buy',
      status: 'open',
      units: '2.50000',
      openPrice: '0.30',
      unrealizedPL: '0.00001',
      stopLoss: '0.27',
    });
    expect(await tradeOf(account, ours(ids.short))).toMatchObject({
      instrument: 'ETH_USDT_PERP',
      market: 'futures',
      side: 'sell',
      units: '0.20000',
      openPrice: '3100.50',
      unrealizedPL: '-2.25',
      stopLoss: '3410.55',
    });
    // Money at freqtrade's 8 places.
    expect(await tradeOf(account, ours(ids.closedLoss))).toMatchObject({
      instrument: 'ETH_USDT_PERP',
      closeReason: 'roi',
      side: 'sell',
      status: 'closed',
      closePrice: '3030.00',
      realizedPL: '-15.03',
    });
    expect(await tradeOf(account, ours(ids.closedWin))).toMatchObject({
      status: 'closed',
      realizedPL: '9.87878',
      closeTime: new Date(at(49)).toISOString(),
      closeReason: 'exit_signal',
      currency: 'USDT',
      market: 'spot',
      leverage: '1',
      // As charged, each in its currency: never converted, so no total in USDT.
      fees: [
        { amount: '0.00001', currency: 'BTC', leg: 'open' },
        { amount: '0.00152', currency: 'BNB', leg: 'close' },
      ],
      feeTotal: null,
      orderIds: [expect.stringMatching(/^\d+$/), expect.stringMatching(/^\d+$/)],
    });
    // An open trade: its entry's fee so far (the dry run's, in USDT); the unfilled entry has no trade yet.
    expect(await tradeOf(account, ours(ids.long))).toMatchObject({ fees: [{ amount: '0.00075', currency: 'USDT', leg: 'open' }] });
    // NAV is what the bot manages; the balance is NAV without the open trades' unrealized P&L; the margin used and
    // available are what freqtrade reports of USDT: its free (1000 + 9.87878 - 15.0300000000001 - 670.85 as Python
    // sums it, 323.9987799999999) and its used (the unfilled entry's stake).
    expect(await api('account-balance', account)).toMatchObject({
      currency: 'USDT',
      nav: '1000',
      unrealizedPL: '-2.24999',
      balance: '1002.24999',
      realizedPL: '-5.15122',
      marginUsed: '50',
      marginAvailable: '323.99878',
    });
  });

  it('an unchanged poll writes the balance and the heartbeat, nothing else', async () => {
    // The snapshot moves the balance and its equity points; the heartbeat touches the account alone; nothing else (the
    // fleet table is the projector's).
    expect(await writesOf(() => bridge.poll())).toEqual(['accounts', 'balances', 'ledger', 'ledger']);
  });

  it('a restarted bridge gives everything to the writer again, which writes no trade twice', async () => {
    const restarted = new FreqtradeBridge({ client: freqtradeClient(bot), writer, account });
    const written = await writesOf(() => restarted.poll());
    expect(written.filter((table) => table === 'trades')).toEqual([]);
    expect(written).toEqual(['accounts', 'balances', 'ledger', 'ledger']);
  });

  it('follows an added entry and a partial exit (units change), and a close between polls', async () => {
    bot.update(ids.long, { amount: 5, open_rate: 0.31, stake_amount: 1.55, profit_abs: 0.05 });
    bot.update(ids.short, { amount: 0.1, realized_profit: 3.1, profit_abs: -1 });
    await bridge.poll();
    expect(await tradeOf(account, ours(ids.long))).toMatchObject({ units: '5.00000', openPrice: '0.31', unrealizedPL: '0.05' });
    expect(await tradeOf(account, ours(ids.short))).toMatchObject({ units: '0.10000', unrealizedPL: '-1' });

    bot.close(ids.short, { rate: 3050.25, at: at(0.5), profit: 8.125 });
    const summary = await bridge.poll();
    expect(summary.written).toEqual({ closed: 1 });
    expect(await tradeOf(account, ours(ids.short))).toMatchObject({ status: 'closed', closePrice: '3050.25', realizedPL: '8.125' });
    expect(await api('account-status', account)).toMatchObject({ openTradeCount: 1 });
  });

  it('a trade opened and closed between two polls still appears; one deleted before it filled never does', async () => {
    const quick = bot.open({ pair: 'BTC/USDT', amount: 0.001, rate: 61000, at: at(0.3) });
    bot.close(quick, { rate: 61100, at: at(0.2), profit: 0.0999 });
    bot.remove(ids.unfilled);
    expect((await bridge.poll()).written).toEqual({ created: 1 });
    expect(await tradeOf(account, ours(quick))).toMatchObject({
      status: 'closed',
      openPrice: '61000.00',
      closePrice: '61100.00',
      realizedPL: '0.0999',
    });
    expect((await trades(account)).some((trade) => String(trade.id).startsWith(`ft-${ids.unfilled}-`))).toBe(false);
  });

  it('reports a stopped bot, a paused one (stopentry) and one whose loop stalled though its API answers', async () => {
    bot.state = 'stopped';
    await bridge.poll();
    expect(await api('account-status', account)).toMatchObject({ state: 'stopped' });
    bot.state = 'running';
    bot.maxOpenTrades = 0;
    await bridge.poll();
    expect(await api('account-status', account)).toMatchObject({
      state: 'paused',
      message: 'max_open_trades is 0 (stopentry): no new entries',
    });
    bot.maxOpenTrades = 3;
    const set = Date.now();
    bot.lastProcessMs = set - 600_000;
    await bridge.poll();
    // 600 s when the poll reads the bot within the second; a busy machine's poll can take a second or more longer.
    const polledWithin = Math.ceil((Date.now() - set) / 1000);
    const stalled = await api('account-status', account);
    expect(stalled.state).toBe('error');
    expect(stalled.message).toMatch(/^freqtrade's loop last ran \d+ s ago \(at .*\): stalled$/);
    const ago = Number(/ran (\d+) s ago/.exec(stalled.message)![1]);
    expect(ago).toBeGreaterThanOrEqual(600);
    expect(ago).toBeLessThanOrEqual(600 + polledWithin);
    bot.lastProcessMs = undefined;
    await bridge.poll();
    expect(await api('account-status', account)).toMatchObject({ state: 'running', message: null });
  });

  it('a bot that cannot be reached: its poll writes nothing; run, the bridge reports it in error with the cause at once, which an alert names', async () => {
    await bot.stop();
    // Refused, or (a kept-alive connection of the last poll) closed as the bot went away.
    const cause = new RegExp(`^cannot reach freqtrade at ${bot.url}: (ECONNREFUSED|the connection was closed)$`);
    const failed = await writesOf(async () => {
      const error = await bridge.poll().catch((caught: Error) => caught);
      expect((error as { kind?: string }).kind).toBe('unreachable');
      expect((error as Error).message).toMatch(cause);
    });
    expect(failed).toEqual([]);
    const stale = await until(
      async () => {
        const status = await api('account-status', account);
        return status.stale && status;
      },
      `${account} turning stale`,
      { everyMs: 200 },
    );
    expect(stale).toMatchObject({ state: 'running', stale: true });

    // As `npm run bridge` runs it (a poll a minute): its first failed poll reports the bot in error, with the cause.
    const stop = new AbortController();
    const running = runBridges([{ bridge, intervalMs: 60_000, source: bot.url }], { report: () => {}, signal: stop.signal });
    const error = await until(
      async () => {
        const status = await api('account-status', account);
        return status.state === 'error' && status;
      },
      `${account} reported in error`,
      { everyMs: 100 },
    );
    stop.abort();
    await running;
    expect(error.message).toMatch(cause);
    expect(error.lastError).toEqual({ message: error.message, at: error.stateSince });
    expect((await alertsOf(account)).map((event) => [event.type, event.message])).toEqual([['bot_error', error.message]]);

    await bot.start();
    await bridge.poll();
    // Back: running, and the last error kept for a later alert to name.
    expect(await api('account-status', account)).toMatchObject({ state: 'running', stale: false, lastError: error.lastError });
  });

  it('a trade deleted in freqtrade is gone here: said once, out of the open count, never open again', async () => {
    const deleted = bot.open({ pair: 'DOT/USDT', amount: 3, rate: 4.1, at: at(0.15) });
    bot.update(deleted, { profit_abs: -0.12 });
    await bridge.poll();
    expect(await tradeOf(account, ours(deleted))).toMatchObject({ status: 'open', unrealizedPL: '-0.12' });
    const id = ours(deleted);
    bot.remove(deleted);
    const summary = await bridge.poll();
    expect(summary.written).toEqual({ gone: 1 });
    expect(summary.refused).toEqual([
      `trade ${id}: gone from the bot: freqtrade no longer has trade ${deleted} (its database was reset, or the trade was deleted)`,
    ]);
    expect(await tradeOf(account, id)).toMatchObject({
      status: 'gone',
      closePrice: null,
      realizedPL: '0',
      unrealizedPL: '0',
      closeReason: `gone from the bot: freqtrade no longer has trade ${deleted} (its database was reset, or the trade was deleted)`,
    });
    expect((await api('account-trades', account, { status: 'gone' })).trades.map((trade: { id: string }) => trade.id)).toEqual([id]);
    // Said once: the next poll has nothing to say of it.
    expect(await bridge.poll()).toMatchObject({ written: {}, refused: [] });
    await expectMirrorEqualsBot(bot, account);
  });

  it('after freqtrade database is reset, its reused ids are new trades beside the old ones, and the old open ones are gone', async () => {
    const before = await trades(account);
    const oldFirst = ours(ids.closedWin);
    const wasOpen = before.filter((trade) => trade.status === 'open').map((trade) => trade.id as string);
    expect(wasOpen.length).toBeGreaterThan(0);
    bot.resetDatabase();
    const reused = bot.open({ pair: 'BTC/USDT', amount: 0.002, rate: 62000, at: at(0.1) });
    expect(reused).toBe(1);
    const summary = await bridge.poll();
    expect(summary.written).toEqual({ created: 1, gone: wasOpen.length });
    const after = await trades(account);
    expect(after.map((trade) => trade.id).sort()).toEqual([...before.map((trade) => trade.id), ours(reused)].sort());
    expect(ours(reused)).not.toBe(oldFirst /* also freqtrade's id 1 */);
    expect(await tradeOf(account, ours(reused))).toMatchObject({ status: 'open', units: '0.00200' });
    for (const id of wasOpen) expect(await tradeOf(account, id)).toMatchObject({ status: 'gone' });
    // The old trade 1 stays as it closed.
    expect((await trades(account)).find((trade) => String(trade.id).startsWith('ft-1-') && trade.status === 'closed')).toMatchObject({
      realizedPL: '9.87878',
    });
    await expectMirrorEqualsBot(bot, account);
  });

  it('a trade whose pair has no instrument here is reported once and the others are still mirrored', async () => {
    const odd = bot.open({ pair: 'VERYLONGBASENAME/USDT', amount: 1, rate: 1, at: at(0.05) });
    const fine = bot.open({ pair: 'ADA/USDT', amount: 10, rate: 0.4, at: at(0.04) });
    const first = await bridge.poll();
    expect(first.refused).toEqual([
      `trade ${ours(odd)}: pair "VERYLONGBASENAME/USDT" is not of the form BASE/QUOTE, BASE/QUOTE:SETTLE or BASE/QUOTE:SETTLE-YYMMDD; not mirrored`,
    ]);
    expect(first.written).toEqual({ created: 1 });
    expect(await tradeOf(account, ours(fine))).toMatchObject({ instrument: 'ADA_USDT', status: 'open' });
    expect((await bridge.poll()).refused).toEqual([]);
  });
});

describe('a futures bot, every trade whole', () => {
  const bot = new FakeFreqtrade();
  const account = 'ft-futures';
  const ours = (id: number) => {
    const trade = (bot as unknown as { trades: { trade_id: number; open_timestamp: number }[] }).trades.find(
      (candidate) => candidate.trade_id === id,
    )!;
    return `ft-${id}-${trade.open_timestamp}`;
  };
  const ordersOf = (id: number) =>
    (bot as unknown as { trades: { trade_id: number; orders: { order_id: string }[] }[] }).trades
      .find((candidate) => candidate.trade_id === id)!
      .orders.map((order) => order.order_id);
  let bridge: FreqtradeBridge;
  const ids: Record<string, number> = {};
  const opened = Math.floor(at(30) / 1000) * 1000;
  const closedAt = opened + 6 * HOUR;
  const ctDate = new Date(closedAt).toISOString().slice(0, 19).replace('T', ' ');

  beforeAll(async () => {
    bot.tradingMode = 'futures';
    await bot.start();
    // A short SOL perpetual at 5x: 10 SOL sold at 150.25 and bought back at 140.50 make 97.5, less the fees of its
    // two orders (0.75125 and 0.7025 USDT) and the funding it paid (freqtrade: -0.8525): 95.19375 (close_profit_abs).
    ids.short = bot.open({
      pair: 'SOL/USDT:USDT',
      short: true,
      amount: 10,
      rate: 150.25,
      stake: 300.5,
      at: opened,
      leverage: 5,
      liquidation: 178.42000000000002,
      fee: { cost: 0.75125, currency: 'USDT' },
    });
    bot.update(ids.short, { funding_fees: -0.8525000000000001 });
    bot.close(ids.short, { rate: 140.5, at: closedAt, profit: 95.19375, reason: 'stop_loss', fee: { cost: 0.7025, currency: 'USDT' } });
    // A leveraged long still open, paying funding as it goes.
    ids.long = bot.open({ pair: 'BTC/USDT:USDT', amount: 0.05, rate: 60000, stake: 1000, at: at(3), leverage: 3, liquidation: 40_500.5 });
    bot.update(ids.long, { funding_fees: -0.12, profit_abs: 4.2 });
    // What the bridge of 1.4 stored of the short: its pair as the instrument, nothing of its market, fees or orders.
    await writer.upsertAccount({ id: account, name: 'ft-test', currency: 'USDT', broker: 'binance', environment: 'paper' });
    const before = await writer.recordTrades(account, [
      {
        id: ours(ids.short),
        instrument: 'SOL_USDT',
        side: 'sell',
        units: '10.00000',
        status: 'closed',
        openPrice: '150.25',
        openTime: new Date(opened).toISOString(),
        closePrice: '140.50',
        closeTime: new Date(closedAt).toISOString(),
        realizedPL: '95.19375',
        stopLoss: '165.275',
      },
    ]);
    expect(before).toMatchObject([{ outcome: 'created' }]);
    bridge = new FreqtradeBridge({ client: freqtradeClient(bot), writer, account });
  });
  afterAll(() => bot.stop());

  it('the next sync fills in what 1.4 did not keep: the future names its contract, with its fees, funding, exit reason and orders', async () => {
    const summary = await bridge.poll();
    expect(summary).toMatchObject({ refused: [], written: { corrected: 1, created: 1 } });
    // The whole trade, every field as the API answers it.
    expect(await tradeOf(account, ours(ids.short))).toEqual({
      id: ours(ids.short),
      accountId: account,
      instrument: 'SOL_USDT_PERP',
      side: 'sell',
      units: '10.00000',
      status: 'closed',
      openPrice: '150.25',
      openTime: new Date(opened).toISOString(),
      closePrice: '140.50',
      closeTime: new Date(closedAt).toISOString(),
      realizedPL: '95.19375',
      unrealizedPL: '0',
      stopLoss: '165.275',
      takeProfit: null,
      closeReason: 'stop_loss',
      currency: 'USDT',
      market: 'futures',
      leverage: '5',
      fees: [
        { amount: '0.75125', currency: 'USDT', leg: 'open' },
        { amount: '0.7025', currency: 'USDT', leg: 'close' },
      ],
      feeTotal: '1.45375',
      fundingFees: '0.8525',
      liquidationPrice: '178.42',
      orderIds: ordersOf(ids.short),
    });
    expect(ordersOf(ids.short)).toHaveLength(2);
    expect(await tradeOf(account, ours(ids.long))).toMatchObject({
      instrument: 'BTC_USDT_PERP',
      status: 'open',
      market: 'futures',
      leverage: '3',
      fundingFees: '0.12',
      liquidationPrice: '40500.50',
      fees: [{ amount: '1', currency: 'USDT', leg: 'open' }],
    });
    // The funding goes on: the next poll writes it.
    bot.update(ids.long, { funding_fees: -0.31 });
    expect((await bridge.poll()).written).toEqual({ updated: 1 });
    expect(await tradeOf(account, ours(ids.long))).toMatchObject({ fundingFees: '0.31' });
    // Per instrument, the future is its own: nothing of SOL_USDT is left, and its fees are counted.
    const performance = await api('account-performance', account, { from: new Date(at(40)).toISOString() });
    expect(performance.currencies[0]).toMatchObject({
      feesPaid: '1.45375',
      tradesWithUnknownFees: 0,
      tradesWithOtherCurrencyFees: 0,
      instruments: [{ instrument: 'SOL_USDT_PERP', closedTrades: 1, feesPaid: '1.45375' }],
    });
    expect(await api('account-trades', account, { instrument: 'SOL_USDT' })).toMatchObject({ count: 0 });
  });

  it('exports the short future to CoinTracking as a derivatives profit and its funding, never a sale of SOL', async () => {
    const csv = (await invoke('account-trades', eventFor('account-trades', { account, query: { format: 'cointracking' } }))).body as string;
    const rows = csv.trim().split('\r\n').slice(1);
    const id = ours(ids.short);
    expect(rows.filter((row) => row.includes(id))).toEqual([
      `Derivatives / Futures Profit,97.5,USDT,,,1.45375,USDT,binance,${account},${id} short 10.00000 SOL_USDT_PERP leverage 5 (stop_loss); realized P&L 95.19375 USDT,${ctDate}`,
      `Derivatives / Futures Loss,,,0.8525,USDT,,,binance,${account},${id} funding paid,${ctDate}`,
    ]);
    expect(rows.some((row) => row.startsWith('Trade,') || row.includes(',SOL,'))).toBe(false);
  });
});

describe('numbers and clocks as a real bot sends them', () => {
  const bot = new FakeFreqtrade();
  const account = 'ft-floats';
  const ours = (id: number, openMs: number) => `ft-${id}-${openMs}`;

  beforeAll(() => bot.start());
  afterAll(() => bot.stop());

  it('what an earlier bridge stored with float noise, a restarted bridge corrects, with every figure that counts it', async () => {
    // The bot's history, as freqtrade sends it: profits summed as floats, amounts and prices with noise.
    bot.totalBot = 1014.4662374999999;
    const win = bot.open({ pair: 'BTC/USDT', amount: 0.30000000000000004, rate: 61250.50000000001, at: at(30) });
    bot.close(win, { rate: 61300.1, at: at(29), profit: 9.689999999999998 });
    const loss = bot.open({ pair: 'BTC/USDT', amount: 0.1, rate: 61000, at: at(28.5) });
    bot.close(loss, { rate: 60900, at: at(28.2), profit: -3.8249999999999997 });
    const open = bot.open({
      pair: 'ETH/USDT',
      amount: 1.1,
      rate: 3000.3,
      at: at(2),
      precision: { amount_precision: 4, price_precision: 2, precision_mode: 2 },
    });
    bot.update(open, { profit_abs: 0.30000000000000004 });
    // An earlier bridge wrote them as the shortest form of each float (decimalOfFloat with 17 digits).
    const [winOpen, lossOpen] = [at(30), at(28.5)];
    await writer.upsertAccount({ id: account, name: 'ft-test', currency: 'USDT', broker: 'binance', environment: 'paper' });
    const earlier = (
      id: string,
      openMs: number,
      closeMs: number,
      units: string,
      openPrice: string,
      closePrice: string,
      realizedPL: string,
    ) => ({
      id,
      instrument: 'BTC_USDT',
      side: 'buy',
      units,
      status: 'closed',
      openPrice,
      openTime: new Date(openMs).toISOString(),
      closePrice,
      closeTime: new Date(closeMs).toISOString(),
      realizedPL,
    });
    await writer.recordTrades(account, [
      earlier(ours(win, winOpen), winOpen, at(29), '0.30000000000000004', '61250.50000000001', '61300.1', '9.689999999999998'),
      earlier(ours(loss, lossOpen), lossOpen, at(28.2), '0.1', '61000', '60900', '-3.8249999999999997'),
    ]);
    const window = { from: new Date(at(31)).toISOString() };
    const noise = await api('account-performance', account, window);
    expect(noise.currencies[0].netRealizedPL).toBe('5.8649999999999983');
    expect(noisy(noise).length).toBeGreaterThan(0);

    const bridge = new FreqtradeBridge({ client: freqtradeClient(bot), writer, account });
    const summary = await bridge.poll();
    expect(summary).toMatchObject({ refused: [] });
    expect(summary.written).toEqual({ corrected: 2, created: 1 });
    expect(await tradeOf(account, ours(win, winOpen))).toMatchObject({
      units: '0.30000',
      openPrice: '61250.50',
      closePrice: '61300.10',
      realizedPL: '9.69',
    });
    expect(await tradeOf(account, ours(loss, lossOpen))).toMatchObject({ realizedPL: '-3.825' });
    // DECIMAL_PLACES precision: 4 places of amount, 2 of price.
    expect(await tradeOf(account, ours(open, at(2)))).toMatchObject({ units: '1.1000', openPrice: '3000.30', unrealizedPL: '0.3' });
    expect(await api('account-balance', account)).toMatchObject({ nav: '1014.4662375', unrealizedPL: '0.3', realizedPL: '5.865' });
    const performance = await api('account-performance', account, window);
    expect(performance.currencies[0]).toMatchObject({
      netRealizedPL: '5.865',
      grossProfit: '9.690',
      grossLoss: '-3.825',
      // 5.865 / 2 = 2.9325, half-even to the trades' 3 places.
      expectancy: '2.932',
      bestTrade: { realizedPL: '9.69' },
      worstTrade: { realizedPL: '-3.825' },
    });
    const pnl = await api('account-pnl', account, { ...window, period: 'day' });
    expect(sumDecimals(pnl.points.map((point: { realizedPL: string }) => point.realizedPL))).toBe('5.865');
    // A second restart finds nothing to correct.
    const again = new FreqtradeBridge({ client: freqtradeClient(bot), writer, account });
    expect((await again.poll()).written).toEqual({});
    // Nothing the API says of the account carries float noise or more than 8 places.
    for (const name of [
      'account-balance',
      'account-trades',
      'account-pnl',
      'account-performance',
      'account-equity',
      'account-status',
    ] as const)
      expect(noisy(await api(name, account, name === 'account-pnl' || name === 'account-performance' ? window : {}))).toEqual([]);
    await expectMirrorEqualsBot(bot, account);
  });

  it("a bot clock ahead is said once; its heartbeats carry this machine's time; trades it dates in the future wait", async () => {
    const bridge = new FreqtradeBridge({ client: freqtradeClient(bot), writer, account });
    await bridge.poll();
    bot.clockAheadMs = 10 * 60_000;
    const early = bot.open({ pair: 'ADA/USDT', amount: 10, rate: 0.4, at: Date.now() + bot.clockAheadMs });
    const first = await bridge.poll();
    expect(first.refused).toEqual([
      "freqtrade's clock is 10 min ahead of this machine's (its Date header): heartbeats and balances carry this machine's time; trades it dates more than 5 min ahead wait until they are not",
      expect.stringMatching(new RegExp(`^trade ft-${early}-\\d+: dated .*, ahead of this machine's clock; waiting until it is not$`)),
    ]);
    expect((await trades(account)).some((trade) => String(trade.id).startsWith(`ft-${early}-`))).toBe(false);
    // The heartbeat is this machine's: the bot is fresh, not ten minutes ahead.
    const status = await api('account-status', account);
    expect(Math.abs(Date.parse(status.lastHeartbeatAt) - Date.now())).toBeLessThan(30_000);
    expect((await bridge.poll()).refused).toEqual([]);
    bot.clockAheadMs = 0;
    bot.remove(early);
    expect((await bridge.poll()).refused).toEqual(["freqtrade's clock agrees with this machine's again"]);
  });
});

/** The URL of a port nothing listens on. */
async function closedPort(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}

type Run = { code: number; stdout: string; stderr: string };
function bridgeCommand(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...scriptArgs('bridge'), 'freqtrade', ...args, '--stage', harness.stage, '--endpoint', proxy.endpoint],
      { cwd: ROOT, env: { ...process.env, ...env } },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
  });
}

describe('npm run bridge', () => {
  const bot = new FakeFreqtrade('operator', 'p4ss-from-env');
  beforeAll(async () => {
    await bot.start();
    bot.open({ pair: 'BTC/USDT', amount: 0.01, rate: 60000, at: at(2) });
    const closed = bot.open({ pair: 'ETH/USDT', amount: 0.1, rate: 3000, at: at(3) });
    bot.close(closed, { rate: 3100, at: at(2.5), profit: 9.7 });
  });
  afterAll(() => bot.stop());

  it('--once twice writes the trades once; the password comes from the environment and is never printed', async () => {
    const args = ['--url', bot.url, '--username', 'operator', '--account', 'ft-cli', '--once'];
    const first = await bridgeCommand(args, { FREQTRADE_PASSWORD: bot.password });
    expect(first).toMatchObject({ code: 0, stderr: `bridge: writing to stage ${harness.stage} on DynamoDB Local at ${proxy.endpoint}\n` });
    expect(first.stdout).toBe(
      `bridge ft-cli: mirroring freqtrade at ${bot.url}: 1 open trades, bot running\nbridge polled once: wrote ft-cli\n`,
    );
    expect((await trades('ft-cli')).length).toBe(2);
    const second = await writesOf(() => bridgeCommand(args, { FREQTRADE_PASSWORD: bot.password }));
    expect(second).toEqual(['accounts', 'balances', 'ledger', 'ledger']);
    expect(first.stdout + second).not.toContain(bot.password);
  });

  it('a config file runs several bots, one account each, passwords from a file', async () => {
    const other = await new FakeFreqtrade('second', 'another secret').start();
    try {
      other.botName = 'second-bot';
      other.dryRun = false;
      writeFileSync(join(dir, 'second.password'), 'another secret\n');
      writeFileSync(
        join(dir, 'bots.json'),
        JSON.stringify({
          bots: [
            { url: bot.url, username: 'operator', passwordEnv: 'FT_ONE', account: 'ft-one' },
            {
              url: other.url,
              username: 'second',
              passwordFile: join(dir, 'second.password'),
              account: 'ft-two',
              interval: 30,
              name: 'Second desk',
            },
          ],
        }),
      );
      const run = await bridgeCommand(['--config', join(dir, 'bots.json'), '--once'], { FT_ONE: bot.password });
      expect(run.code).toBe(0);
      expect(await accountOf('ft-two')).toMatchObject({ name: 'Second desk', environment: 'live' });
      expect((await trades('ft-one')).length).toBe(2);
    } finally {
      await other.stop();
    }
  });

  it('wrong credentials, an unreachable URL: one line naming the URL and the cause, and exit 1', async () => {
    const refused = await bridgeCommand(['--url', bot.url, '--username', 'operator', '--account', 'ft-cli', '--once'], {
      FREQTRADE_PASSWORD: 'wrong',
    });
    expect(refused).toMatchObject({
      code: 1,
      stdout: `bridge ft-cli: login refused by freqtrade at ${bot.url}: check the username and password (HTTP 401)\nbridge polled once: wrote no account; could not mirror ft-cli\n`,
    });
    const nowhere = await closedPort();
    const unreachable = await bridgeCommand(['--url', nowhere, '--username', 'operator', '--account', 'ft-cli', '--once'], {
      FREQTRADE_PASSWORD: 'x',
    });
    expect(unreachable).toMatchObject({
      code: 1,
      stdout: `bridge ft-cli: cannot reach freqtrade at ${nowhere}: ECONNREFUSED\nbridge polled once: wrote no account; could not mirror ft-cli\n`,
    });
    const usage = await bridgeCommand(['--url', bot.url, '--account', 'ft-cli', '--once']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/^bridge: --username is required/);
  });

  it("refuses a database without this stage's tables, naming the stages it found, and writes nothing", async () => {
    const run = await new Promise<Run>((resolve) =>
      execFile(
        process.execPath,
        [...scriptArgs('bridge'), 'freqtrade', '--url', bot.url, '--username', 'operator', '--account', 'ft-elsewhere', '--once'],
        // DB_PORT forgotten: the default stage (local) at an endpoint that holds other stages' tables only.
        { cwd: ROOT, env: { ...process.env, FREQTRADE_PASSWORD: bot.password, DB_PORT: new URL(proxy.endpoint).port } },
        (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
      ),
    );
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(
      `bridge: refusing to write: ${proxy.endpoint} has no trading-bot-api-local-* tables; it holds the tables of stage`,
    );
    expect(await accountOf('ft-elsewhere')).toBeUndefined();
  });

  it('running, says when the bot stops answering and when it answers again', async () => {
    const { child, output: printed } = startScript(
      'bridge',
      [
        'freqtrade',
        '--url',
        bot.url,
        '--username',
        'operator',
        '--account',
        'ft-cli',
        '--interval',
        '0.2',
        '--stage',
        harness.stage,
        '--endpoint',
        proxy.endpoint,
      ],
      { ...process.env, FREQTRADE_PASSWORD: bot.password },
    );
    const printedLine = (pattern: RegExp) =>
      until(() => pattern.test(printed()), `${pattern} in what the bridge printed`, { everyMs: 100 });
    await printedLine(/mirroring/);
    await bot.stop();
    // How often a failure is said while it lasts, and the back-off, are runBridges' (test/unit/bridges-run.test.ts).
    await printedLine(/cannot reach/);
    await bot.start();
    await printedLine(/answers again/);
    child.kill('SIGTERM');
    expect(await new Promise((resolve) => child.on('exit', resolve))).toBe(0);
    expect(printed()).toBe(
      [
        `bridge: writing to stage ${harness.stage} on DynamoDB Local at ${proxy.endpoint}`,
        `bridge ft-cli: mirroring freqtrade at ${bot.url}: 1 open trades, bot running`,
        `bridge ft-cli: cannot reach freqtrade at ${bot.url}: ECONNREFUSED; trying again, backing off up to 300 s`,
        `bridge ft-cli: freqtrade at ${bot.url} answers again`,
        'bridge stopped: wrote ft-cli',
        '',
      ].join('\n'),
    );
  });
});

describe('a wrong password at the first start', () => {
  const bot = new FakeFreqtrade();
  beforeAll(() => bot.start());
  afterAll(() => bot.stop());

  it('creates the account in error, saying why, which an alert names; the right password then gives it its profile', async () => {
    const account = 'ft-refused';
    const refused = new FreqtradeBridge({
      client: freqtradeClient({ url: bot.url, username: bot.username, password: 'wrong' }),
      writer,
      account,
    });
    expect(await runBridges([{ bridge: refused, intervalMs: 1000, source: bot.url }], { once: true, report: () => {} })).toBe(false);
    const message = `login refused by freqtrade at ${bot.url}: check the username and password (HTTP 401)`;
    expect(await api('account-status', account)).toMatchObject({ state: 'error', message, lastError: { message } });
    // What the bridge knows: the account it was asked for; the rest waits for the bot (docs/operations.md).
    expect(await accountOf(account)).toMatchObject({ name: account, currency: 'XXX', broker: 'freqtrade', environment: 'live' });
    const [alert] = await alertsOf(account);
    expect(alert).toMatchObject({ type: 'bot_error', accountId: account, message });
    expect(alert.text).toContain(`The bot reports an error: ${message}.`);

    await new FreqtradeBridge({ client: freqtradeClient(bot), writer, account }).poll();
    expect(await accountOf(account)).toMatchObject({ name: bot.botName, currency: 'USDT', environment: 'paper' });
    expect(await api('account-balance', account)).toMatchObject({ currency: 'USDT' });
    expect(await api('account-status', account)).toMatchObject({ state: 'running', lastError: { message } });
  });
});
