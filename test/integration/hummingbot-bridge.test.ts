/**
 * The hummingbot bridge against a real MQTT broker (aedes, in this process, on loopback), a fake hummingbot that
 * publishes hummingbot's own topics and payloads (test/kit/fake-hummingbot.ts), and DynamoDB Local: what an
 * operator then reads from the API, exactly; that a fill given again, a reconnect or a restart writes nothing twice;
 * the bot's states (running, error, stopped, stale); malformed messages said once and skipped; the database and the
 * broker going away and coming back; the command, its password and its lines; and hummingbot's trades CSV followed
 * across its rotation.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HummingbotBridge } from '@trading-bot-api/feeds/bridges/hummingbot/bridge';
import type { HummingbotConfig } from '@trading-bot-api/feeds/bridges/hummingbot/config';
import { followTradesFile } from '@trading-bot-api/feeds/bridges/hummingbot/csv';
import { listenToBroker } from '@trading-bot-api/feeds/bridges/hummingbot/mqtt';
import { tradeIdOf } from '@trading-bot-api/feeds/bridges/positions';
import { compareDecimals, decimalOfFloat, isDecimal, sumDecimals } from '@trading-bot-api/core/decimal';
import type { Writer } from '../../packages/writer/src';
import { localWriter } from '../../scripts/support/load-data';
import { eventFor, type Harness, invoke, startHarness } from '../kit/api-harness';
import { FakeHummingbot, FakeTradesFile, marketMakerSession, TRADES_CSV_COLUMNS } from '../kit/fake-hummingbot';
import { FaultProxy } from '../kit/fault-proxy';
import { TestBroker } from '../kit/mqtt-broker';
import { startScript } from '../kit/scripts';
import { until } from '../kit/until';

jest.setTimeout(120_000);

const STALE_AFTER_SECONDS = 2;
let harness: Harness;
let proxy: FaultProxy;
let writer: Writer;
let broker: TestBroker;
let dir: string;

beforeAll(async () => {
  harness = await startHarness({ STALE_AFTER_SECONDS: String(STALE_AFTER_SECONDS) });
  proxy = await new FaultProxy(harness.db.endpoint).start();
  writer = localWriter(proxy.endpoint, { stage: harness.stage });
  broker = await new TestBroker().start();
  dir = mkdtempSync(join(tmpdir(), 'hummingbot-bridge-'));
});
afterAll(async () => {
  writer?.close();
  await broker?.stop();
  await proxy?.close();
  await harness?.close();
  rmSync(dir, { recursive: true, force: true });
});

const api = async (name: Parameters<typeof eventFor>[0], account: string, query: Record<string, string> = {}) =>
  (await invoke(name, eventFor(name, { account, query }))).body;
/** The account's trades; none while it does not exist yet (a 404). */
const trades = async (account: string) => ((await api('account-trades', account, { limit: '500' })).trades ?? []) as Record<string, any>[];
const tradeOf = async (account: string, id: string) => (await trades(account)).find((trade) => trade.id === id);

/** The tables the writes of `work` touched (the proxy sees every request the writer makes), once the bridge is idle. */
async function writesOf(bridge: HummingbotBridge, work: () => Promise<unknown>): Promise<string[]> {
  proxy.writes.length = 0;
  await work();
  await bridge.idle();
  return proxy.writes.flatMap((write) => write.tables.map((table) => table.replace(`trading-bot-api-${harness.stage}-`, ''))).sort();
}

const CONFIG: Omit<HummingbotConfig, 'instances'> = { discover: true, feeRates: {}, marksSeconds: 0, errorSeconds: 300 };

interface Running {
  bridge: HummingbotBridge;
  lines: string[];
  stop(): Promise<void>;
}

/** A bridge listening to the test broker, in this process; its lines gathered. */
async function startBridge(config: Partial<HummingbotConfig>, stateFile: string): Promise<Running> {
  const lines: string[] = [];
  const report = (line: string) => lines.push(line);
  const bridge = await HummingbotBridge.open({
    writer,
    namespace: 'hbot',
    config: { ...CONFIG, instances: {}, ...config },
    stateFile,
    report,
    maxBackoffMs: 1000,
  });
  const stop = new AbortController();
  const listening = listenToBroker({
    url: broker.url,
    namespace: 'hbot',
    signal: stop.signal,
    report,
    maxBackoffMs: 1000,
    onMessage: (topic, payload) => bridge.receive(topic, payload),
  });
  await until(() => lines.some((line) => line.includes('listening to')), 'the bridge to subscribe');
  return {
    bridge,
    lines,
    async stop() {
      stop.abort();
      await listening;
      await bridge.close();
    },
  };
}

/** Every decimal string in an API answer that carries float noise (six 0s or 9s among its digits, then another). */
function noisy(value: unknown, path = ''): string[] {
  if (typeof value === 'string')
    return isDecimal(value) && /[1-9]\d*(0{6,}|9{6,})\d/.test(value.replace(/^-/, '').replace('.', '').replace(/^0+/, ''))
      ? [`${path}: ${value}`]
      : [];
  if (Array.isArray(value)) return value.flatMap((item, i) => noisy(item, `${path}[${i}]`));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([key, item]) => noisy(item, `${path}.${key}`));
  return [];
}

const NOW = Math.floor(Date.now() / 1000);
const iso = (seconds: number) => new Date(seconds * 1000).toISOString();
const idOf = (published: { orderId: string; exchangeTradeId: string }, pair: string) => {
  const [base, quote] = pair.split('-');
  return tradeIdOf({ ...published, base, quote });
};

describe('a hummingbot instance mirrored message by message', () => {
  const account = 'hb-main';
  const controllers = { pmm_btc: 'BTC-USDT', pmm_eth: 'ETH-USDT' };
  const instances = {
    'pmm-desk': { account, name: 'PMM desk', currency: 'USDT', broker: 'binance', environment: 'paper' as const, controllers },
  };
  const stateFile = () => join(dir, 'main-state.json');
  let bot: FakeHummingbot;
  let running: Running;
  const t0 = NOW - 3600;
  const fills: Record<string, Awaited<ReturnType<FakeHummingbot['fill']>>> = {};

  beforeAll(async () => {
    bot = await new FakeHummingbot({ url: broker.url, instanceId: 'pmm-desk', controllers, rates: { BNB: '600' } }).connect();
    running = await startBridge({ instances, feeRates: { BNB: '600' }, errorSeconds: 1 }, stateFile());
  });
  afterAll(async () => {
    await running?.stop();
    await bot?.disconnect().catch(() => {});
  });

  it('buys and sells build a position, a partial reduce closes part of it, the last sell closes it: as hummingbot reports it, exactly', async () => {
    await bot.beat();
    await until(async () => (await api('account-status', account)).state === 'running', 'the account to be running');
    expect((await invoke('accounts', eventFor('accounts', {}))).body.accounts).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: account, name: 'PMM desk', currency: 'USDT', broker: 'binance', environment: 'paper' }),
      ]),
    );
    await bot.orderCreated('BTC-USDT', 'BUY', t0);
    // Fees in the quote, as a percent, in the base and in another token (BNB, at the rate hummingbot's oracle and the
    // configuration give it).
    Object.assign(fills, await marketMakerSession(bot, t0));
    const btc = idOf(fills.first, 'BTC-USDT');
    await until(async () => (await tradeOf(account, idOf(fills.eth, 'ETH-USDT')))?.unrealizedPL === '3.24975', 'the ETH position marked');

    // Every trade of the account, by id.
    expect(Object.fromEntries((await trades(account)).map((trade) => [trade.id, trade]))).toEqual({
      [btc]: expect.objectContaining({
        id: btc,
        instrument: 'BTC_USDT',
        side: 'buy',
        status: 'closed',
        units: '0.02',
        openPrice: '61000',
        openTime: iso(t0),
        closePrice: '60500',
        closeTime: iso(t0 + 180),
        // (60500 − 61000) × 0.02, two thirds of the buys' fees (1.22), the BNB fee at 600 (1.2).
        realizedPL: '-12.42',
        unrealizedPL: '0',
        // The fees as charged: the buys' share in USDT, the closing fill's in BNB (never converted: no total).
        market: 'spot',
        fees: [
          { amount: '1.22', currency: 'USDT', leg: 'open' },
          { amount: '0.002', currency: 'BNB', leg: 'close' },
        ],
        feeTotal: null,
        currency: 'USDT',
        orderIds: [fills.first.exchangeTradeId, fills.grow.exchangeTradeId, fills.close.exchangeTradeId],
      }),
      [idOf(fills.eth, 'ETH-USDT')]: expect.objectContaining({
        id: idOf(fills.eth, 'ETH-USDT'),
        instrument: 'ETH_USDT',
        side: 'buy',
        status: 'open',
        units: '0.5',
        openPrice: '3000.5',
        openTime: iso(t0 + 150),
        // hummingbot's unrealized P&L: (3010 − 3000.5) × 0.5 less the fee paid in ETH (0.0005 × 3000.5).
        unrealizedPL: '3.24975',
        fees: [{ amount: '0.0005', currency: 'ETH', leg: 'open' }],
      }),
      [idOf(fills.reduce, 'BTC-USDT')]: expect.objectContaining({
        id: idOf(fills.reduce, 'BTC-USDT'),
        instrument: 'BTC_USDT',
        side: 'buy',
        status: 'closed',
        units: '0.01',
        openPrice: '61000',
        openTime: iso(t0),
        closePrice: '62000',
        closeTime: iso(t0 + 120),
        // (62000 − 61000) × 0.01, a third of the buys' fees (0.6 + 1.23), the sell's fee.
        realizedPL: '8.77',
        fees: [
          { amount: '0.61', currency: 'USDT', leg: 'open' },
          { amount: '0.62', currency: 'USDT', leg: 'close' },
        ],
        feeTotal: '1.23',
      }),
    });
    // Realized P&L per pair is what hummingbot reports for its controllers (computed on their own by the fake).
    expect(bot.realized('pmm_btc')).toBe('-3.65');
    const balance = await api('account-balance', account);
    expect(balance).toMatchObject({
      currency: 'USDT',
      realizedPL: sumDecimals([bot.realized('pmm_btc'), bot.realized('pmm_eth')]),
      openTradeCount: 1,
    });
    expect(decimalOfFloat(Number(bot.realized('pmm_btc')))).toBe('-3.65');
    const window = { from: iso(t0 - 60) };
    const performance = await api('account-performance', account, window);
    expect(performance.currencies[0]).toMatchObject({
      currency: 'USDT',
      netRealizedPL: '-3.65',
      closedTrades: 2,
      wins: 1,
      losses: 1,
      // The USDT fees of both closed trades; the BNB one counted apart, never converted.
      feesPaid: '2.45',
      tradesWithUnknownFees: 0,
      tradesWithOtherCurrencyFees: 1,
    });
    expect(performance.currencies[0].instruments).toEqual(
      expect.arrayContaining([expect.objectContaining({ instrument: 'BTC_USDT', netRealizedPL: '-3.65', closedTrades: 2 })]),
    );
    expect(await api('account-status', account)).toMatchObject({
      state: 'running',
      strategy: 'controllers pmm_btc, pmm_eth',
      message: null,
      stale: false,
      openTradeCount: 1,
    });
    for (const name of ['account-balance', 'account-trades', 'account-pnl', 'account-performance', 'account-status'] as const)
      expect(noisy(await api(name, account, name === 'account-pnl' || name === 'account-performance' ? window : {}))).toEqual([]);
  });

  it('a fill given again, before or after a restart of the bridge, writes nothing; the position goes on where it was', async () => {
    const before = running.bridge.replayedFills;
    const replays = await writesOf(running.bridge, async () => {
      for (const fill of [fills.first, fills.reduce, fills.close]) await bot.republish(fill);
      await bot.beat();
      await until(() => proxy.writes.length > 0, 'the heartbeat');
    });
    expect(running.bridge.replayedFills - before).toBe(3);
    // The heartbeat's touch of the account, and nothing else.
    expect(replays).toContain('accounts');
    expect(replays.filter((table) => table !== 'accounts')).toEqual([]);

    await running.stop();
    running = await startBridge({ instances, feeRates: { BNB: '600' }, errorSeconds: 1 }, stateFile());
    const afterRestart = await writesOf(running.bridge, async () => {
      for (const fill of Object.values(fills)) await bot.republish(fill);
      await bot.beat();
      await until(() => proxy.writes.some((write) => write.tables.some((table) => table.endsWith('-accounts'))), 'the heartbeat');
    });
    expect(running.bridge.replayedFills).toBe(5);
    expect(afterRestart.filter((table) => table !== 'accounts')).toEqual([]);

    // Half the ETH sold: closed by average cost, half the fee paid on it carried into the part closed.
    fills.ethHalf = await bot.fill({ pair: 'ETH-USDT', side: 'SELL', price: 3020, amount: 0.25, at: t0 + 240 });
    await until(() => tradeOf(account, idOf(fills.ethHalf, 'ETH-USDT')), 'the ETH part closed');
    await running.bridge.idle();
    const part = await tradeOf(account, idOf(fills.ethHalf, 'ETH-USDT'));
    expect(part).toMatchObject({ status: 'closed', units: '0.25', openPrice: '3000.5', closePrice: '3020', realizedPL: '4.124875' });
    expect(bot.realized('pmm_eth')).toBe('4.124875');
    expect(await tradeOf(account, idOf(fills.eth, 'ETH-USDT'))).toMatchObject({ status: 'open', units: '0.25', openPrice: '3000.5' });
    expect((await api('account-balance', account)).realizedPL).toBe(sumDecimals([bot.realized('pmm_btc'), bot.realized('pmm_eth')]));
  });

  it('an ERROR log sets error with its message, cleared by heartbeats once no other came for errorSeconds', async () => {
    await bot.log('INFO', 'Order filled');
    // Logged with its exception (exc_info): the traceback follows the message's first line.
    await bot.log(
      'ERROR',
      'Error submitting buy LIMIT order to binance for 0.010 BTC-USDT: insufficient balance\nTraceback (most recent call last):\n  File "/home/hummingbot/hummingbot/connector/exchange_py_base.py", line 595, in _place_order_and_process_update\nOSError: insufficient balance',
    );
    await until(async () => (await api('account-status', account)).state === 'error', 'the error');
    expect(await api('account-status', account)).toMatchObject({
      state: 'error',
      message: 'Error submitting buy LIMIT order to binance for 0.010 BTC-USDT: insufficient balance',
      stale: false,
    });
    await until(async () => {
      await bot.beat();
      await running.bridge.idle();
      return (await api('account-status', account)).state === 'running';
    }, 'the error to clear');
    expect(await api('account-status', account)).toMatchObject({ state: 'running', message: null });
  });

  it("a v2 strategy's stop (its empty reports) sets stopped, its reports set running again, and going offline stops it", async () => {
    await bot.strategyStopped();
    await until(async () => (await api('account-status', account)).state === 'stopped', 'the stop');
    expect(await api('account-status', account)).toMatchObject({
      state: 'stopped',
      message: 'the strategy stopped: its controllers (pmm_btc, pmm_eth) sent their last report',
    });
    await bot.performance({ pmm_btc: '60400', pmm_eth: '3010' });
    await until(async () => (await api('account-status', account)).state === 'running', 'the start');
    await bot.disconnect();
    await until(async () => (await api('account-status', account)).state === 'stopped', 'offline');
    expect((await api('account-status', account)).message).toBe(
      'hummingbot went offline: its MQTT bridge stopped (the app closed, or `mqtt stop`)',
    );
    expect(running.lines.filter((line) => line.startsWith(`bridge ${account}: bot `))).toEqual([
      `bridge ${account}: bot error (Error submitting buy LIMIT order to binance for 0.010 BTC-USDT: insufficient balance)`,
      `bridge ${account}: bot running`,
      `bridge ${account}: bot stopped (the strategy stopped: its controllers (pmm_btc, pmm_eth) sent their last report)`,
      `bridge ${account}: bot running`,
      `bridge ${account}: bot stopped (hummingbot went offline: its MQTT bridge stopped (the app closed, or \`mqtt stop\`))`,
    ]);
  });

  it('a bot that falls silent turns stale', async () => {
    // Started again (`online`): running. Then killed, say: no `offline`, no heartbeat.
    await bot.connect();
    await until(async () => (await api('account-status', account)).state === 'running', 'online again');
    expect((await api('account-status', account)).stale).toBe(false);
    await until(async () => (await api('account-status', account)).stale === true, 'stale', {
      timeoutMs: (STALE_AFTER_SECONDS + 5) * 1000,
    });
    expect(await api('account-status', account)).toMatchObject({ state: 'running', stale: true });
    await bot.beat();
    await until(async () => (await api('account-status', account)).stale === false, 'fresh again');
  });

  it('a malformed or unknown message is said once per kind, with its topic, and skipped; the next fill is mirrored', async () => {
    const before = running.lines.length;
    const missingPrice = fills.first.payload.replace(/"price":[^,]+,/, '');
    const written = await writesOf(running.bridge, async () => {
      for (let i = 0; i < 2; i++) {
        await bot.publish('events', '{"timestamp": 1785000000, "type": "OrderFilled", "data": {');
        await bot.publish('events', missingPrice);
        await bot.publish(
          'events',
          '{"timestamp":1785000000,"type":"FundingPaymentCompleted","data":{"trading_pair":"BTC-USDT","amount":-0.01}}',
        );
        await bot.publish('weird', '{}');
        await bot.publish('status_updates', '{"timestamp":1785000000000,"type":"hbapp","msg":"hello"}');
        await bot.publish('hb', '{"ts":"soon"}');
      }
      await bot.publish('notify', '{"msg":"quiet"}');
      await bot.beat();
      await until(() => proxy.writes.length > 0, 'the heartbeat');
    });
    expect(written.filter((table) => table !== 'accounts')).toEqual([]);
    expect(running.lines.slice(before)).toEqual([
      `bridge ${account}: hbot/pmm-desk/events: not JSON; skipped (said once)`,
      `bridge ${account}: hbot/pmm-desk/events: OrderFilled without "price"; skipped (said once)`,
      `bridge ${account}: hbot/pmm-desk/events: event type "FundingPaymentCompleted" is not one this bridge mirrors (it mirrors OrderFilled); skipped (said once)`,
      'bridge hbot: hbot/pmm-desk/weird: a topic this bridge does not know; skipped (said once)',
      `bridge ${account}: hbot/pmm-desk/status_updates: status update hbapp "hello" not mapped; skipped (said once)`,
      `bridge ${account}: hbot/pmm-desk/hb: hb with "ts" not a number: "soon"; skipped (said once)`,
    ]);
    fills.after = await bot.fill({ pair: 'BTC-USDT', side: 'BUY', price: 60100, amount: 0.001, at: t0 + 300 });
    expect(await until(() => tradeOf(account, idOf(fills.after, 'BTC-USDT')), 'the next fill')).toMatchObject({
      status: 'open',
      units: '0.001',
    });
  });

  it("a perpetual connector's fills are a future of its own instrument, short, with their leverage and fees", async () => {
    const fee = { percent: '0.0005' };
    fills.perpOpen = await bot.fill({
      pair: 'SOL-USDT',
      side: 'SELL',
      price: 150,
      amount: 4,
      at: t0 + 310,
      position: 'OPEN',
      leverage: 10,
      fee,
    });
    await bot.fill({ pair: 'SOL-USDT', side: 'BUY', price: 140, amount: 4, at: t0 + 320, position: 'CLOSE', leverage: 10, fee });
    const id = idOf(fills.perpOpen, 'SOL-USDT');
    expect(
      await until(async () => ((await tradeOf(account, id))?.status === 'closed' ? tradeOf(account, id) : undefined), 'the close'),
    ).toMatchObject({
      instrument: 'SOL_USDT_PERP',
      side: 'sell',
      market: 'futures',
      leverage: '10',
      // (150 − 140) × 4, less 0.05 % of each fill's value (0.3 and 0.28).
      realizedPL: '39.42',
      fees: [
        { amount: '0.3', currency: 'USDT', leg: 'open' },
        { amount: '0.28', currency: 'USDT', leg: 'close' },
      ],
      feeTotal: '0.58',
    });
  });

  it('unrealized P&L is written at most every marksSeconds', async () => {
    await running.stop();
    running = await startBridge({ instances, feeRates: { BNB: '600' }, marksSeconds: 3600 }, stateFile());
    const eth = idOf(fills.eth, 'ETH-USDT');
    await bot.performance({ pmm_btc: '60200', pmm_eth: '3030' });
    const marked = bot.unrealized('pmm_eth', '3030');
    await until(async () => (await tradeOf(account, eth))?.unrealizedPL === marked, 'the first marks');
    const second = await writesOf(running.bridge, async () => {
      await bot.performance({ pmm_btc: '60300', pmm_eth: '3040' });
      await bot.beat();
      await until(() => proxy.writes.length > 0, 'the heartbeat');
    });
    expect(second.filter((table) => table !== 'accounts')).toEqual([]);
    expect((await tradeOf(account, eth))?.unrealizedPL).toBe(marked);
  });
});

describe('instances the configuration does not list', () => {
  it("are mirrored into their own id's account once a fill gives the currency; other quotes and unpriced fees are said once", async () => {
    const running = await startBridge({ instances: { 'listed-only': { account: 'hb-listed' } } }, join(dir, 'discover-state.json'));
    const bot = await new FakeHummingbot({ url: broker.url, instanceId: 'auto-bot' }).connect();
    try {
      // hummingbot's clock ten minutes ahead of this machine's.
      await bot.publish('hb', JSON.stringify({ ts: (Date.now() + 600_000) * 1000 }));
      await until(() => running.lines.some((line) => line.includes('waiting for its first fill')), 'the wait said');
      expect((await api('account-status', 'auto-bot')).state).toBeUndefined();
      const fill = await bot.fill({
        pair: 'ARB-USDC',
        side: 'BUY',
        price: 0.75,
        amount: 100,
        at: NOW - 900,
        fee: { flat: [{ token: 'BNB', amount: '0.0001' }] },
      });
      await bot.fill({ pair: 'ETH-BTC', side: 'BUY', price: 0.05, amount: 1, at: NOW - 890 });
      await bot.fill({
        pair: 'ARB-USDC',
        side: 'BUY',
        price: 0.76,
        amount: 100,
        at: NOW - 880,
        fee: { flat: [{ token: 'BNB', amount: '0.0001' }] },
      });
      await bot.beat();
      await until(async () => (await tradeOf('auto-bot', idOf(fill, 'ARB-USDC')))?.units === '200', 'the position');
      expect((await invoke('accounts', eventFor('accounts', {}))).body.accounts).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            id: 'auto-bot',
            name: 'hummingbot auto-bot',
            currency: 'USDC',
            broker: 'hummingbot',
            environment: 'live',
          }),
        ]),
      );
      expect(await tradeOf('auto-bot', idOf(fill, 'ARB-USDC'))).toMatchObject({
        instrument: 'ARB_USDC',
        openPrice: '0.755',
        status: 'open',
      });
      expect(await trades('auto-bot')).toHaveLength(1);
      expect(running.lines.filter((line) => line.startsWith('bridge auto-bot:'))).toEqual([
        'bridge auto-bot: mirroring hummingbot instance auto-bot (hbot/auto-bot/…)',
        // Its `online` as it connected.
        'bridge auto-bot: waiting for its first fill to learn its currency (or give "currency" in the configuration); nothing is written until then (said once)',
        "bridge auto-bot: hummingbot's clock is 10 min ahead of this machine's (its heartbeats): heartbeats carry this machine's time; fills it dates more than 5 min ahead are refused by the writer",
        'bridge auto-bot: hbot/auto-bot/events: fees paid in BNB are left out of the realized P&L: give the value of one BNB in USDC as "feeRates": {"BNB": "…"} in the configuration (said once)',
        'bridge auto-bot: hbot/auto-bot/events: fills of ETH-BTC are not mirrored: quoted in BTC, and the account is in USDC (said once)',
        "bridge auto-bot: hummingbot's clock agrees with this machine's again",
      ]);
    } finally {
      await bot.disconnect();
      await running.stop();
    }
    // With "discover": false, only the instances listed.
    const strict = await startBridge(
      { discover: false, instances: { 'listed-only': { account: 'hb-listed' } } },
      join(dir, 'strict-state.json'),
    );
    const stranger = await new FakeHummingbot({ url: broker.url, instanceId: 'stranger' }).connect();
    try {
      await stranger.beat();
      await until(() => strict.lines.some((line) => line.startsWith('bridge hbot/stranger: not mirrored')), 'the stranger said');
      expect(strict.lines).toContain(
        'bridge hbot/stranger: not mirrored: not in the configuration, which mirrors only the instances it lists ("discover": false)',
      );
    } finally {
      await stranger.disconnect();
      await strict.stop();
    }
  });
});

describe('when the database or the broker goes away', () => {
  const account = 'hb-outage';
  const instances = { 'outage-bot': { account, currency: 'USDT' } };
  let bot: FakeHummingbot;

  beforeAll(async () => {
    bot = await new FakeHummingbot({ url: broker.url, instanceId: 'outage-bot' }).connect();
  });
  afterAll(async () => {
    await proxy.clear();
    await bot?.disconnect().catch(() => {});
  });

  it('a fill that came while the database did not answer is written once it answers; said once each way', async () => {
    const running = await startBridge({ instances }, join(dir, 'outage-state.json'));
    try {
      await bot.beat();
      await until(async () => (await api('account-status', account))?.state === 'running', 'the account');
      await proxy.inject({ kind: 'refuse' });
      const fill = await bot.fill({ pair: 'SOL-USDT', side: 'BUY', price: 150.25, amount: 2, at: NOW - 600 });
      await bot.beat();
      await until(() => running.lines.some((line) => line.includes('the database does not answer')), 'the outage said');
      await proxy.clear();
      await until(() => tradeOf(account, idOf(fill, 'SOL-USDT')), 'the fill written');
      await running.bridge.idle();
      expect(running.lines.filter((line) => line.includes('database'))).toEqual([
        expect.stringMatching(/^bridge: the database does not answer \(.*\); trying again, backing off up to 1 s$/),
        'bridge: the database answers again',
      ]);
    } finally {
      await running.stop();
    }
  });

  it('a fill that came while the database refused the writer (a missing permission) waits, is said once with the cause, and is written once the permission is there', async () => {
    const running = await startBridge({ instances }, join(dir, 'refusal-state.json'));
    try {
      await bot.beat();
      await until(async () => (await api('account-status', account))?.state === 'running', 'the account');
      await proxy.inject({ kind: 'refusal', error: 'AccessDeniedException' });
      // A pair of its own: the next test's position is SOL-USDT's.
      const fill = await bot.fill({ pair: 'ADA-USDT', side: 'BUY', price: 0.5, amount: 100, at: NOW - 550 });
      await until(() => running.lines.some((line) => line.includes('refuses the writer')), 'the refusal said');
      await proxy.clear();
      await until(() => tradeOf(account, idOf(fill, 'ADA-USDT')), 'the fill written');
      await running.bridge.idle();
      expect(running.lines.filter((line) => line.includes('database'))).toEqual([
        expect.stringMatching(
          /^bridge: the database refuses the writer: the role lacks a permission .*dynamodb:\w+.*; holding the messages and trying again/,
        ),
        'bridge: the database answers again',
      ]);
    } finally {
      await running.stop();
    }
  });

  it('a bridge stopped before it could write a fill writes it when it starts again (the state wrote it ahead)', async () => {
    const stateFile = join(dir, 'outage-state.json');
    const running = await startBridge({ instances }, stateFile);
    await proxy.inject({ kind: 'refuse' });
    const fill = await bot.fill({ pair: 'SOL-USDT', side: 'SELL', price: 151.75, amount: 2, at: NOW - 500 });
    await until(() => running.lines.some((line) => line.includes('the database does not answer')), 'the outage said');
    await running.stop();
    await proxy.clear();
    const again = await startBridge({ instances }, stateFile);
    try {
      await again.bridge.idle();
      // The position (bought at 150.25) closed by this sell, from the state's cost: (151.75 − 150.25) × 2.
      expect(await tradeOf(account, idOf(fill, 'SOL-USDT'))).toBeUndefined();
      const [position] = (await trades(account)).filter((trade) => trade.instrument === 'SOL_USDT');
      expect(position).toMatchObject({ status: 'closed', units: '2', openPrice: '150.25', closePrice: '151.75', realizedPL: '3' });
    } finally {
      await again.stop();
    }
  });

  it('the broker going away and coming back: said once each way, and messages flow again', async () => {
    const running = await startBridge({ instances }, join(dir, 'outage-state.json'));
    try {
      await broker.stop();
      await until(() => running.lines.some((line) => line.includes('cannot be reached')), 'the broker refusing');
      await broker.start();
      await until(() => running.lines.some((line) => line.includes('answers again')), 'the broker back');
      const name = `hummingbot's broker at ${broker.url}`;
      expect(running.lines.filter((line) => line.includes(name))).toEqual([
        `bridge: listening to ${name} for hbot/#`,
        `bridge: ${name}: closed the connection; trying again, backing off up to 1 s`,
        `bridge: ${name}: cannot be reached (ECONNREFUSED); trying again, backing off up to 1 s`,
        `bridge: ${name} answers again`,
      ]);
      await bot.connect();
      const fill = await bot.fill({ pair: 'SOL-USDT', side: 'BUY', price: 149, amount: 1, at: NOW - 400 });
      await until(() => tradeOf(account, idOf(fill, 'SOL-USDT')), 'a fill after the broker came back');
    } finally {
      await running.stop();
    }
  });
});

describe('npm run bridge -- hummingbot', () => {
  const password = 'mqtt p4ss from env';
  let secured: TestBroker;
  let bot: FakeHummingbot;

  beforeAll(async () => {
    secured = await new TestBroker({ username: 'tba', password }).start();
    bot = await new FakeHummingbot({ url: secured.url, instanceId: 'cli.bot', username: 'tba', password }).connect();
  });
  afterAll(async () => {
    await bot?.disconnect().catch(() => {});
    await secured?.stop();
  });

  const bridgeArgs = (config: string) => [
    'hummingbot',
    '--mqtt',
    secured.url,
    '--username',
    'tba',
    '--config',
    config,
    '--stage',
    harness.stage,
    '--endpoint',
    proxy.endpoint,
  ];

  it('mirrors an instance (an id with a dot, published under /) with the password from the environment, never printed; SIGTERM stops it', async () => {
    const config = join(dir, 'cli.json');
    writeFileSync(
      config,
      JSON.stringify({
        state: join(dir, 'cli-state.json'),
        instances: { 'cli.bot': { account: 'hb-cli', currency: 'USDT', environment: 'paper' } },
      }),
    );
    const { child, output } = startScript('bridge', bridgeArgs(config), { ...process.env, HUMMINGBOT_MQTT_PASSWORD: password });
    try {
      await until(() => output().includes('listening to'), 'the command to listen');
      // hummingbot-api publishes an id with dots under `/`.
      const fill = await bot.fill({ pair: 'BTC-USDT', side: 'BUY', price: 61000, amount: 0.001, at: NOW - 120 });
      await bot.republish({ topic: 'hbot/cli/bot/hb', payload: JSON.stringify({ ts: Date.now() * 1000 }) });
      await until(() => tradeOf('hb-cli', idOf(fill, 'BTC-USDT')), 'the fill');
    } finally {
      child.kill('SIGTERM');
    }
    expect(await new Promise((resolve) => child.on('exit', resolve))).toBe(0);
    expect(output()).not.toContain(password);
    expect(output()).not.toContain('p4ss');
    const lines = output().trim().split('\n');
    expect(lines[0]).toBe(`bridge: writing to stage ${harness.stage} on DynamoDB Local at ${proxy.endpoint}`);
    expect(lines[1]).toBe(`bridge: listening to hummingbot's broker at ${secured.url} for hbot/#`);
    expect(lines).toContain('bridge hb-cli: mirroring hummingbot instance cli.bot (hbot/cli/bot/…)');
    expect(lines.at(-1)).toBe('bridge stopped: wrote hb-cli');
  });

  it('reads the password from --password-file (never printed), under a namespace of its own (--namespace desk), with --client-id', async () => {
    const passwordFile = join(dir, 'mqtt.password');
    writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
    const config = join(dir, 'cli-desk.json');
    writeFileSync(
      config,
      JSON.stringify({
        state: join(dir, 'cli-desk-state.json'),
        instances: { 'desk-bot': { account: 'hb-desk', currency: 'USDT', environment: 'paper' } },
      }),
    );
    const desk = await new FakeHummingbot({
      url: secured.url,
      instanceId: 'desk-bot',
      namespace: 'desk',
      username: 'tba',
      password,
    }).connect();
    const env = { ...process.env };
    delete env.HUMMINGBOT_MQTT_PASSWORD;
    const args = [...bridgeArgs(config), '--password-file', passwordFile, '--namespace', 'desk', '--client-id', 'tba-desk-test'];
    const { child, output } = startScript('bridge', args, env);
    let fill: Awaited<ReturnType<FakeHummingbot['fill']>>;
    try {
      await until(() => output().includes('listening to'), 'the command to listen');
      // The default namespace's instance is not heard: its messages are under hbot/, not desk/.
      await bot.beat();
      fill = await desk.fill({ pair: 'ETH-USDT', side: 'BUY', price: 3001.25, amount: 0.2, at: NOW - 90 });
      await desk.beat();
      await until(() => tradeOf('hb-desk', idOf(fill, 'ETH-USDT')), 'the fill under desk/');
    } finally {
      child.kill('SIGTERM');
      await desk.disconnect().catch(() => {});
    }
    expect(await new Promise((resolve) => child.on('exit', resolve))).toBe(0);
    expect(output()).not.toContain(password);
    expect(output()).not.toContain('p4ss');
    const lines = output().trim().split('\n');
    expect(lines[0]).toMatch(/^bridge: writing to stage /);
    expect(lines[1]).toBe(`bridge: listening to hummingbot's broker at ${secured.url} for desk/#`);
    expect(lines).toContain('bridge hb-desk: mirroring hummingbot instance desk-bot (desk/desk-bot/…)');
    expect(lines.filter((line) => line.includes('cli.bot') || line.includes('hb-cli'))).toEqual([]);
    expect(lines.at(-1)).toMatch(/^bridge stopped: wrote hb-desk/);

    // The config's passwordEnv names the variable to read: one not set is refused before anything connects.
    const named = join(dir, 'cli-env.json');
    writeFileSync(named, JSON.stringify({ passwordEnv: 'TBA_TEST_UNSET_MQTT_PASSWORD', instances: {} }));
    const run = startScript('bridge', bridgeArgs(named), env);
    expect(await new Promise((resolve) => run.child.on('exit', resolve))).toBe(2);
    expect(run.output()).toContain("bridge: the config's passwordEnv names TBA_TEST_UNSET_MQTT_PASSWORD, which is not set");
  });

  it('a wrong password is said once, without the password; a password on the command line or in the URL is refused', async () => {
    const config = join(dir, 'cli.json');
    const { child, output } = startScript('bridge', bridgeArgs(config), { ...process.env, HUMMINGBOT_MQTT_PASSWORD: 'wrong secret' });
    try {
      await until(() => output().includes('refused the username or password'), 'the refusal');
    } finally {
      child.kill('SIGTERM');
    }
    expect(await new Promise((resolve) => child.on('exit', resolve))).toBe(0);
    expect(output().match(/refused the username or password/g)).toHaveLength(1);
    expect(output()).toContain(
      `bridge: hummingbot's broker at ${secured.url}: refused the username or password (Bad username or password)`,
    );
    expect(output()).not.toContain('wrong secret');

    for (const [args, message] of [
      [
        [...bridgeArgs(config), '--password', password],
        'bridge: no --password for hummingbot: set HUMMINGBOT_MQTT_PASSWORD, or give --password-file FILE',
      ],
      [['hummingbot', '--mqtt', `mqtt://tba:${encodeURIComponent(password)}@127.0.0.1:1883`], 'bridge: no password in the URL'],
      [['hummingbot'], 'bridge: --mqtt mqtt://HOST:1883 is required'],
    ] as const) {
      const run = startScript('bridge', args, process.env);
      expect(await new Promise((resolve) => run.child.on('exit', resolve))).toBe(2);
      expect(run.output()).toContain(message);
      expect(run.output()).not.toContain(password);
    }
  });
});

describe("hummingbot's trades CSV, followed across its rotation", () => {
  const account = 'hb-csv';
  const instances = { [account]: { currency: 'USDT', broker: 'binance' } };
  const t0 = NOW - 7200;

  it('rows become the same trades as MQTT fills; a rotation while following and one while stopped lose nothing', async () => {
    const data = mkdtempSync(join(dir, 'data-'));
    const file = new FakeTradesFile(data);
    const stateFile = join(dir, 'csv-state.json');
    const lines: string[] = [];
    const report = (line: string) => lines.push(line);
    const open = () => HummingbotBridge.open({ writer, namespace: 'hbot', config: { ...CONFIG, instances }, stateFile, report });
    // Exact decimals, as hummingbot's Decimals are written (str(Decimal), trailing zeros and all).
    file.append({
      pair: 'ETH-USDT',
      side: 'BUY',
      price: 0,
      amount: 0,
      decimals: { price: '3000.50', amount: '1.0000' },
      at: t0,
      fee: { percent: '0.001' },
    });
    file.append({ pair: 'ETH-USDT', side: 'BUY', price: 0, amount: 0, decimals: { price: '2999.50', amount: '1.0000' }, at: t0 + 60 });

    let bridge = await open();
    let stop = new AbortController();
    let following = followTradesFile(file.path, account, bridge, { follow: true, signal: stop.signal, pollMs: 50, report });
    const position = await until(async () => (await trades(account)).find((trade) => trade.units === '2'), 'the position of two rows');
    expect(position).toMatchObject({ instrument: 'ETH_USDT', side: 'buy', status: 'open', openPrice: '3000', openTime: iso(t0) });

    // A new hummingbot writes other columns: the file moves to trades_conf_pmm_1_old_<time>.csv, a new one begins.
    file.append({ pair: 'ETH-USDT', side: 'SELL', price: 0, amount: 0, decimals: { price: '3010', amount: '0.5' }, at: t0 + 120 });
    const newer = TRADES_CSV_COLUMNS.filter((column) => column !== 'trade_fee_in_quote');
    file.append({ pair: 'ETH-USDT', side: 'SELL', price: 0, amount: 0, decimals: { price: '3020', amount: '0.5' }, at: t0 + 180 }, newer);
    expect(readdirSync(data).filter((name) => name.includes('_old_'))).toHaveLength(1);
    await until(
      async () => (await trades(account)).filter((trade) => trade.status === 'closed').length === 2,
      'both rows around the rotation',
    );
    stop.abort();
    await following;
    await bridge.close();

    // While stopped: a row, another rotation, and a row in the new file.
    file.append({ pair: 'ETH-USDT', side: 'SELL', price: 0, amount: 0, decimals: { price: '3030', amount: '0.5' }, at: t0 + 240 }, newer);
    file.append({ pair: 'ETH-USDT', side: 'SELL', price: 0, amount: 0, decimals: { price: '3040', amount: '0.5' }, at: t0 + 300 });
    bridge = await open();
    stop = new AbortController();
    following = followTradesFile(file.path, account, bridge, { follow: false, signal: stop.signal, report });
    await following;
    await bridge.close();
    // The two buys' fee (0.001 of 3000.50) is shared by the four halves; each sale is (price − 3000) × 0.5 less it.
    const closed = (await trades(account))
      .filter((trade) => trade.status === 'closed')
      .sort((a, b) => a.closeTime.localeCompare(b.closeTime));
    expect(closed.map((trade) => [trade.units, trade.closePrice, trade.realizedPL])).toEqual([
      ['0.5', '3010', '4.249875'],
      ['0.5', '3020', '9.249875'],
      ['0.5', '3030', '14.249875'],
      ['0.5', '3040', '19.249875'],
    ]);
    expect(compareDecimals((await api('account-balance', account)).realizedPL, '46.9995')).toBe(0);
    expect(lines.some((line) => line.includes('was rotated'))).toBe(true);
    expect(lines.filter((line) => line.includes('said once'))).toEqual([]);
  });

  it('npm run bridge -- hummingbot --csv FILE --account ID --once reads it to its end; a row it cannot read is said once', async () => {
    const data = mkdtempSync(join(dir, 'cli-data-'));
    const file = new FakeTradesFile(data, 'conf_cli.yml');
    file.append({ pair: 'BTC-USDT', side: 'BUY', price: 0, amount: 0, decimals: { price: '61000.00', amount: '0.00200' }, at: t0 });
    file.append({ pair: 'BTC-USDT', side: 'SELL', price: 0, amount: 0, decimals: { price: '61500.00', amount: '0.00200' }, at: t0 + 60 });
    const args = ['hummingbot', '--csv', file.path, '--account', 'hb-csv-cli', '--once', '--state', join(dir, 'csv-cli-state.json')];
    const run = startScript('bridge', [...args, '--stage', harness.stage, '--endpoint', proxy.endpoint]);
    expect(await new Promise((resolve) => run.child.on('exit', resolve))).toBe(0);
    expect(run.output()).toBe(
      [
        `bridge: writing to stage ${harness.stage} on DynamoDB Local at ${proxy.endpoint}`,
        `bridge ${file.path}: following it into account hb-csv-cli (to its end)`,
        'bridge read to the end: wrote hb-csv-cli',
        '',
      ].join('\n'),
    );
    expect(await trades('hb-csv-cli')).toEqual([
      expect.objectContaining({ status: 'closed', units: '0.002', openPrice: '61000', closePrice: '61500', realizedPL: '1' }),
    ]);
    // Read again from its checkpoint: nothing new; a broken row is said once.
    writeFileSync(file.path, 'not,a,row\n', { flag: 'a' });
    const again = startScript('bridge', [...args, '--stage', harness.stage, '--endpoint', proxy.endpoint]);
    expect(await new Promise((resolve) => again.child.on('exit', resolve))).toBe(0);
    expect(again.output()).toContain(
      `bridge hb-csv-cli: ${file.path} line 4: a row of 3 fields, and the header names 18; skipped (said once)`,
    );
    expect(again.output()).toContain('bridge read to the end: wrote no account');
  });
});
