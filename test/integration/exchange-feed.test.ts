/**
 * The exchange feed against a fake Binance spot API (test/kit/fake-binance.ts: HMAC-checked, shaped as Binance
 * answers) and DynamoDB Local, read back through the API: a key that can trade is refused before anything is read or
 * written; 2,500 fills of one market, four to a millisecond across the pages, mirrored exactly once by the command
 * killed in the middle of its backfill and run again; a 429 waited out as its Retry-After says, and said once; deposits
 * and withdrawals kept as transfers on the equity series, never as P&L; the key and secret never in a line printed.
 */
import { compareDecimals, negateDecimal, sumDecimals, trimDecimal } from '@trading-bot-api/core/decimal';
import { readCheckpoints, readTransfers } from '@trading-bot-api/core/store/ledger-table';
import { binance } from '@trading-bot-api/feeds/bridges/exchange/binance';
import type { FeedAccount } from '@trading-bot-api/feeds/bridges/exchange/config';
import { ExchangeFeed } from '@trading-bot-api/feeds/bridges/exchange/feed';
import type { LimiterState } from '@trading-bot-api/feeds/bridges/exchange/limiter';
import { limiterName, runScheduled, scheduledAccounts } from '@trading-bot-api/feeds/bridges/exchange/scheduled';
import type { MarketState } from '@trading-bot-api/feeds/bridges/exchange/mirror';
import { multiplyDecimals } from '@trading-bot-api/feeds/bridges/numbers';
import type { Writer } from '../../packages/writer/src';
import { localWriter } from '../../scripts/support/load-data';
import { eventFor, type Harness, invoke, startHarness } from '../kit/api-harness';
import { FakeBinance, roundTripFills } from '../kit/fake-binance';
import { FaultProxy } from '../kit/fault-proxy';
import { runScript, startScript } from '../kit/scripts';
import { until } from '../kit/until';
import { freqtradeClient } from '@trading-bot-api/feeds/bridges/freqtrade/api';
import { FreqtradeBridge } from '@trading-bot-api/feeds/bridges/freqtrade/bridge';
import { FakeFreqtrade } from '../kit/fake-freqtrade';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { type AlertEvent, reconciliationEvent } from '../../api/alerts/events';
import { FakeAws } from '../kit/fake-aws';

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
const validEvent = ajv.compile(JSON.parse(readFileSync(join(__dirname, '..', '..', 'api', 'alerts', 'webhook.schema.json'), 'utf8')));

jest.setTimeout(120_000);

let harness: Harness;
let fake: FakeBinance;
let proxy: FaultProxy;
let writer: Writer;

beforeAll(async () => {
  harness = await startHarness({ REPORTING_CURRENCY: 'USD' });
  fake = await new FakeBinance().start();
  proxy = await new FaultProxy(harness.db.endpoint).start();
  writer = localWriter(proxy.endpoint, { stage: harness.stage });
});
afterAll(async () => {
  writer?.close();
  await proxy?.close();
  await fake?.close();
  await harness?.close();
});

const DAY = 86_400_000;
const SINCE = new Date(Date.now() - 10 * DAY).toISOString();

const api = async (name: string, account: string, query: Record<string, string> = {}) => invoke(name, eventFor(name, { account, query }));

/** Every trade of the account, through the listing's pages. */
async function allTrades(account: string): Promise<Record<string, any>[]> {
  const trades: Record<string, any>[] = [];
  for (let cursor: string | null = ''; cursor !== null; ) {
    const { body } = await api('account-trades', account, { limit: '500', ...(cursor ? { cursor } : {}) });
    trades.push(...body.trades);
    cursor = body.nextCursor;
  }
  return trades;
}

/** A feed in this process, over the fake, its lines gathered. */
function feedOf(
  apiKey: string,
  secret: string,
  account: string,
  symbols: string[] = [],
  reconcileWith?: string,
  alert?: ConstructorParameters<typeof ExchangeFeed>[2]['alert'],
) {
  const lines: string[] = [];
  const config: FeedAccount = {
    profile: binance,
    config: { account, name: `Binance ${account}`, quote: 'USDT', symbols, since: SINCE, environment: 'paper', reconcileWith },
    apiKey,
    secret,
    url: fake.url,
    intervalSeconds: 60,
  };
  return { feed: new ExchangeFeed(config, writer, { report: (line) => lines.push(line), alert }), lines };
}

it('refuses a key that can trade or withdraw before it reads anything, naming what to turn off, and writes nothing', async () => {
  fake.addAccount('trading-key', 'trading-secret', { enableSpotAndMarginTrading: true, enableWithdrawals: true });
  fake.setBalance('trading-key', 'USDT', '100');
  const before = fake.requests.length;
  const { feed } = feedOf('trading-key', 'trading-secret', 'bn-trading');
  await expect(feed.poll()).rejects.toThrow(
    "the key given for bn-trading may do more than read: turn off enableSpotAndMarginTrading, enableWithdrawals in Binance's API management",
  );
  expect(fake.requests.slice(before).map((request) => request.path)).toEqual(['/sapi/v1/account/apiRestrictions']);
  expect((await api('account-balance', 'bn-trading')).statusCode).toBe(404);
});

describe('2,500 fills of one market, the command killed in the middle of its backfill', () => {
  const KEY = 'vmPUZE6mv9SD5VNHk4HlWFsOr6aKE2zvsw0MuIgwCIPy6utIco14y7Ju91duEh8A';
  const SECRET = 'NhqPtmdSJYdKjVHjA7PZj4Mge3R5YNiP1e3UZjInClVN65XAbvqqM6A7H5fATj0j';
  const account = 'bn-main';
  const { fills, trips } = roundTripFills(2500, Date.now() - 3 * DAY);
  const args = () => [
    'exchange',
    ...['--exchange', 'binance', '--account', account, '--symbols', 'BTC/USDT', '--url', fake.url, '--since', SINCE, '--once'],
    ...['--stage', harness.stage, '--endpoint', proxy.endpoint],
  ];
  const env = () => ({ ...process.env, EXCHANGE_API_KEY: KEY, EXCHANGE_API_SECRET: SECRET });
  let raw: ReturnType<FakeBinance['addFills']>;
  const printed: string[] = [];

  beforeAll(async () => {
    fake.addAccount(KEY, SECRET);
    fake.setBalance(KEY, 'USDT', '10000');
    raw = fake.addFills(KEY, 'BTCUSDT', fills);
    fake.prices.set('BTCUSDT', '60100.5');
    // The 7th transaction (the account's, then 5 of fills) never gets an answer, and the command is killed while it
    // waits: a page half written.
    const before = proxy.seen.filter((operation) => operation === 'TransactWriteItems').length;
    await proxy.inject({ kind: 'hang' }, Infinity, { only: 'TransactWriteItems', after: 6 });
    const first = startScript('bridge', args(), env());
    const closed = new Promise((resolve) => first.child.once('close', resolve));
    try {
      await until(() => proxy.seen.filter((operation) => operation === 'TransactWriteItems').length > before + 6, 'the 7th transaction');
    } catch (error) {
      throw new Error(`${(error as Error).message}; the command printed:\n${first.output()}`);
    } finally {
      first.child.kill('SIGKILL');
      await closed;
      await proxy.clear();
      printed.push(first.output());
    }
  });

  it('resumes from the checkpoint the killed command left, with its fills written and none after it', async () => {
    const [killed] = await readCheckpoints(harness.store, account, 'binance:market:');
    const state = JSON.parse(killed.state) as MarketState;
    expect(state.fills).toBeGreaterThan(0);
    expect(state.fills).toBeLessThan(1000);
    expect(state.next).toBe(String(raw[state.fills].id));
    const written = await allTrades(account);
    // Every round trip up to the checkpoint is a closed trade, and nothing after it is there.
    expect(written.filter((trade) => trade.status === 'closed')).toHaveLength(Math.floor(state.fills / 2));
    const pages = fake.seen('/api/v3/myTrades').length;

    const second = await runScript('bridge', args(), env());
    printed.push(second.stdout, second.stderr);
    expect(second.status).toBe(0);
    // It went on from the checkpoint's cursor, by fromId alone, a page of 1,000 at a time.
    const fromIds = fake
      .seen('/api/v3/myTrades')
      .slice(pages)
      .map((request) => request.params);
    const left = fills.length - state.fills;
    const expected = Array.from({ length: Math.floor(left / 1000) + 1 }, (_, page) => String(Number(state.next) + 1000 * page));
    // A whole page and at least one after it: the cursor moves on by a page.
    expect(expected.length).toBeGreaterThan(1);
    expect(fromIds.map((params) => params.fromId)).toEqual(expected);
    expect(fromIds.every((params) => params.limit === '1000' && params.startTime === undefined && params.endTime === undefined)).toBe(true);
  });

  it('mirrors every fill exactly once: each round trip one closed trade, as the exchange recorded it', async () => {
    const trades = new Map((await allTrades(account)).map((trade) => [trade.id, trade]));
    expect(trades.size).toBe(trips.length);
    const iso = (ms: number) => new Date(ms).toISOString();
    let realized = '0';
    trips.forEach((trip, k) => {
      const [buy, sell] = [raw[2 * k], raw[2 * k + 1]];
      const pl = trimDecimal(
        sumDecimals([
          multiplyDecimals(trip.sell.price, trip.units),
          negateDecimal(multiplyDecimals(trip.buy.price, trip.units)),
          ...trip.feesInQuote.map(negateDecimal),
        ]),
      );
      realized = sumDecimals([realized, pl]);
      expect(trades.get(`binance-BTCUSDT-${buy.id}`)).toEqual(
        expect.objectContaining({
          instrument: 'BTC_USDT',
          side: 'buy',
          status: 'closed',
          units: trip.units,
          openPrice: trip.buy.price,
          closePrice: trip.sell.price,
          openTime: iso(trip.buy.time),
          closeTime: iso(trip.sell.time),
          realizedPL: pl,
          market: 'spot',
          leverage: '1',
          currency: 'USDT',
          fees: [
            { amount: trip.buy.commission, currency: trip.buy.commissionAsset, leg: 'open' },
            { amount: trip.sell.commission, currency: 'USDT', leg: 'close' },
          ],
          orderIds: [String(buy.orderId), String(sell.orderId)],
        }),
      );
    });
    const [checkpoint] = await readCheckpoints(harness.store, account, 'binance:market:');
    const state = JSON.parse(checkpoint.state) as MarketState;
    expect([state.fills, state.next, state.position]).toEqual([fills.length, String(raw[fills.length - 1].id + 1), null]);
    const { body: balance } = await api('account-balance', account);
    expect(balance).toEqual(expect.objectContaining({ currency: 'USDT', openTradeCount: 0, nav: '10000', balance: '10000' }));
    expect(compareDecimals(balance.realizedPL, realized)).toBe(0);
  });

  it('never prints the key or the secret', () => {
    const output = printed.join('\n');
    expect(output).toContain('bn-main: mirroring Binance spot account');
    expect(output).not.toContain(KEY);
    expect(output).not.toContain(SECRET);
  });
});

describe('an account with a position, coins from elsewhere, deposits and withdrawals', () => {
  const [KEY, SECRET] = ['second-key-0123456789', 'second-secret-0123456789'];
  const account = 'bn-second';
  const now = Date.now();
  let result: { feed: ExchangeFeed; lines: string[] };
  let summary: Awaited<ReturnType<ExchangeFeed['poll']>>;

  beforeAll(async () => {
    fake.addAccount(KEY, SECRET);
    fake.setBalance(KEY, 'USDT', '5000');
    fake.setBalance(KEY, 'BTC', '0.2', '0.05');
    fake.setBalance(KEY, 'DOGE', '100');
    fake.prices.set('BTCUSDT', '62000');
    fake.prices.set('ETHUSDT', '3000');
    fake.addFills(KEY, 'BTCUSDT', [
      { side: 'buy', price: '60000', qty: '0.3', commission: '1.8', commissionAsset: 'USDT', time: now - 2 * DAY },
      { side: 'sell', price: '61000', qty: '0.05', commission: '0.305', commissionAsset: 'USDT', time: now - DAY },
    ]);
    // ETH deposited, then sold: no cost known, so no trade.
    fake.addFills(KEY, 'ETHUSDT', [{ side: 'sell', price: '3000', qty: '1', commission: '3', commissionAsset: 'USDT', time: now - DAY }]);
    fake.addDeposit(KEY, { id: '9001', coin: 'USDT', amount: '1000', status: 1, insertTime: now - 2 * 3600_000 });
    fake.addDeposit(KEY, { id: '9002', coin: 'BTC', amount: '0.1', status: 1, insertTime: now - 3600_000 });
    fake.addDeposit(KEY, { id: '9003', coin: 'USDT', amount: '50', status: 0, insertTime: now - 1800_000 });
    fake.addWithdrawal(KEY, { id: 'w-1', coin: 'USDT', amount: '200', transactionFee: '1', status: 6, applyTime: now - 1200_000 });
    fake.refuseNext(1, '/api/v3/myTrades');
    result = feedOf(KEY, SECRET, account, ['ETH/USDT']);
    summary = await result.feed.poll();
  });

  it('waits out a 429 as its Retry-After says, and says so once', () => {
    const trades = fake.seen('/api/v3/myTrades').filter((request) => request.key === KEY && request.params.symbol === 'BTCUSDT');
    expect(trades.map((request) => request.status).slice(0, 2)).toEqual([429, 200]);
    expect(trades[1].at - trades[0].at).toBeGreaterThanOrEqual(1000);
    expect(result.lines.filter((line) => line.includes('429'))).toEqual([
      `${account}: Binance answered 429 (too much request weight): waiting 1 s as its Retry-After says, then going at a quarter of the pace for 10 min`,
    ]);
  });

  it('mirrors the position by average cost, marked at the last price, and says what it cannot mirror', async () => {
    const trades = new Map((await allTrades(account)).map((trade) => [trade.id, trade]));
    expect([...trades.values()].map((trade) => [trade.status, trade.units])).toEqual(
      expect.arrayContaining([
        ['open', '0.25'],
        ['closed', '0.05'],
      ]),
    );
    const open = [...trades.values()].find((trade) => trade.status === 'open');
    // 0.25 × 62000 − 0.25 × 60000 − five sixths of the buy's 1.8 USDT fee.
    expect(open).toEqual(
      expect.objectContaining({ openPrice: '60000', unrealizedPL: '498.5', fees: [{ amount: '1.5', currency: 'USDT', leg: 'open' }] }),
    );
    const closed = [...trades.values()].find((trade) => trade.status === 'closed');
    // (61000 − 60000) × 0.05 − 0.3 (its share of the buy's fee) − 0.305.
    expect(closed).toEqual(expect.objectContaining({ realizedPL: '49.395', openPrice: '60000', closePrice: '61000' }));
    const { body: balance } = await api('account-balance', account);
    // 5000 USDT + 0.25 BTC × 62000; DOGE has no USDT market here: left out, and said.
    expect(balance).toEqual(
      expect.objectContaining({ nav: '20500', unrealizedPL: '498.5', balance: '20001.5', realizedPL: '49.395', openTradeCount: 1 }),
    );
    expect(summary).toEqual(expect.objectContaining({ fills: 3, markets: 2, openTrades: 1 }));
    // Said to the runner, which prints each once.
    expect(summary.refused).toEqual([
      'ETH/USDT: 1 ETH sold in 1 fills beyond what the feed saw bought here (deposited, or bought in another market): not mirrored as trades, their cost being unknown',
      'DOGE is held and has no market in USDT: left out of the NAV',
    ]);
  });

  it('keeps deposits and withdrawals as transfers on the equity series, never as P&L', async () => {
    const transfers = await readTransfers(harness.store, account, new Date(now - DAY).toISOString(), new Date(now + DAY).toISOString());
    expect(transfers.map(({ id, kind, asset, amount, fee, value, rate }) => ({ id, kind, asset, amount, fee, value, rate }))).toEqual([
      { id: 'deposit-9001', kind: 'deposit', asset: 'USDT', amount: '1000', fee: '0', value: '1000', rate: '1' },
      { id: 'deposit-9002', kind: 'deposit', asset: 'BTC', amount: '0.1', fee: '0', value: '6200', rate: '62000' },
      { id: 'withdrawal-w-1', kind: 'withdrawal', asset: 'USDT', amount: '200', fee: '1', value: '201', rate: '1' },
    ]);
    const { body: equity } = await api('account-equity', account, { interval: 'hour' });
    expect(equity.points).toEqual([expect.objectContaining({ nav: '20500', transfers: '6999' })]);
    const { body: pnl } = await api('account-pnl', account, { period: 'day' });
    expect(sumDecimals(pnl.points.map((point: { realizedPL: string }) => point.realizedPL))).toBe('49.395');
  });

  it('writes nothing again when nothing changed, and keeps a pending deposit once it arrives', async () => {
    proxy.writes.length = 0;
    const again = await result.feed.poll();
    expect(again).toEqual(expect.objectContaining({ fills: 0, transfers: 0, written: {} }));
    fake.setDepositStatus(KEY, '9003', 1);
    const arrived = await result.feed.poll();
    expect(arrived.transfers).toBe(1);
    expect([...again.refused, ...arrived.refused]).toEqual([]);
  });
});

describe('a freqtrade bot reconciled against the exchange account it trades', () => {
  const [KEY, SECRET] = ['recon-key-0123456789', 'recon-secret-0123456789'];
  const [botAccount, exchangeAccount] = ['ft-recon', 'bn-recon'];
  const bot = new FakeFreqtrade();
  const now = Date.now();
  const ids: Record<string, string> = {};
  let orders: Record<string, string[]>;
  const alerts: AlertEvent[] = [];
  let result: { feed: ExchangeFeed; lines: string[] };
  let summary: Awaited<ReturnType<ExchangeFeed['poll']>>;

  beforeAll(async () => {
    await bot.start();
    // A round trip the exchange filled, and an open trade whose order the exchange never saw.
    const won = bot.open({ pair: 'BTC/USDT', amount: 0.01, rate: 60000, at: now - 2 * DAY, fee: { cost: 0.6, currency: 'USDT' } });
    bot.close(won, { rate: 61000, at: now - DAY, profit: 8.79, fee: { cost: 0.61, currency: 'USDT' } });
    bot.open({ pair: 'BTC/USDT', amount: 0.02, rate: 60500, at: now - 3600_000, fee: { cost: 1.21, currency: 'USDT' } });
    bot.totalBot = 1004;
    await new FreqtradeBridge({ client: freqtradeClient(bot), writer, account: botAccount }).poll();
    const trades = await allTrades(botAccount);
    const [closed, open] = ['closed', 'open'].map((status) => trades.find((trade) => trade.status === status)!);
    ids.closed = closed.id;
    ids.open = open.id;
    orders = { closed: closed.orderIds, open: open.orderIds };

    fake.addAccount(KEY, SECRET);
    fake.setBalance(KEY, 'USDT', '1000');
    fake.prices.set('BTCUSDT', '61000');
    fake.addFills(KEY, 'BTCUSDT', [
      {
        orderId: Number(orders.closed[0]),
        side: 'buy',
        price: '60000',
        qty: '0.01',
        commission: '0.6',
        commissionAsset: 'USDT',
        time: now - 2 * DAY,
      },
      {
        orderId: Number(orders.closed[1]),
        side: 'sell',
        price: '61000',
        qty: '0.004',
        commission: '0.244',
        commissionAsset: 'USDT',
        time: now - DAY,
      },
      {
        orderId: Number(orders.closed[1]),
        side: 'sell',
        price: '61000',
        qty: '0.006',
        commission: '0.366',
        commissionAsset: 'USDT',
        time: now - DAY,
      },
      // Bought by hand on the exchange's own site.
      { orderId: 4_000_001, side: 'buy', price: '60200', qty: '0.005', commission: '0.301', commissionAsset: 'USDT', time: now - 1800_000 },
    ]);
    result = feedOf(KEY, SECRET, exchangeAccount, [], botAccount, async (found) => {
      alerts.push(...found.fresh.map((difference) => reconciliationEvent({ ...found, difference }, 'test')));
    });
    summary = await result.feed.poll();
  });
  afterAll(() => bot.stop());

  it('lists exactly the manual fill and the order the exchange never saw, and matches the rest', async () => {
    expect(orders.closed).toHaveLength(2);
    const { statusCode, body, headers } = await api('account-reconciliation', botAccount);
    expect(statusCode).toBe(200);
    expect(headers.ETag).toMatch(/^"/);
    expect(body).toEqual({
      accountId: botAccount,
      exchangeAccountId: exchangeAccount,
      checkedAt: expect.any(String),
      matched: 1,
      unchecked: 0,
      differenceCount: 2,
      differences: [
        {
          kind: 'missing_on_exchange',
          tradeId: ids.open,
          orderId: orders.open[0],
          bot: null,
          exchange: null,
          detail: `trade ${ids.open} names order ${orders.open[0]}, which the exchange has no fill of`,
          since: body.checkedAt,
        },
        {
          kind: 'missing_in_bot',
          tradeId: null,
          orderId: '4000001',
          bot: null,
          exchange: 'buy 0.005 BTC',
          detail: 'order 4000001 (buy 0.005 BTC_USDT) was filled on the exchange and no trade of the bot names it',
          since: body.checkedAt,
        },
      ],
      tolerances: { amount: '0.00000001', fee: '0.00000001', balancePercent: '1' },
    });
    // Said once to the runner, which alerts on each (reconciliation, docs/alerts.md).
    expect(summary.reconciliation).toEqual(expect.objectContaining({ accountId: botAccount, matched: 1, differences: 2 }));
    expect(summary.reconciliation!.fresh.map((difference) => difference.kind)).toEqual(['missing_on_exchange', 'missing_in_bot']);
    expect(summary.refused.filter((line) => line.startsWith(`reconciliation of ${botAccount}`))).toHaveLength(2);
    expect(alerts.map((event) => [event.type, event.reconciliation?.kind, event.reconciliation?.orderId])).toEqual([
      ['reconciliation', 'missing_on_exchange', orders.open[0]],
      ['reconciliation', 'missing_in_bot', '4000001'],
    ]);
    for (const event of alerts) expect([validEvent(event), validEvent.errors]).toEqual([true, null]);
  });

  it('alerts on a difference once: a later check keeps when each was first seen and alerts on none', async () => {
    const first = (await api('account-reconciliation', botAccount)).body;
    const again = await result.feed.poll();
    expect(again.reconciliation!.fresh).toEqual([]);
    expect(alerts).toHaveLength(2);
    const second = (await api('account-reconciliation', botAccount)).body;
    expect(second.differences.map((difference: { since: string }) => difference.since)).toEqual([first.checkedAt, first.checkedAt]);
    expect(second.checkedAt > first.checkedAt).toBe(true);
  });

  it('answers 404 for an account no feed reconciles, and for one that does not exist', async () => {
    const unreconciled = await api('account-reconciliation', exchangeAccount);
    expect([unreconciled.statusCode, unreconciled.body.code]).toEqual([404, 'NOT_FOUND']);
    expect(unreconciled.body.detail).toContain('is not reconciled');
    const missing = await api('account-reconciliation', 'no-such-account');
    expect([missing.statusCode, missing.body.code]).toEqual([404, 'ACCOUNT_NOT_FOUND']);
  });
});

describe('the fleet in one reporting currency (REPORTING_CURRENCY=USD)', () => {
  const [KEY, SECRET] = ['rates-key-0123456789', 'rates-secret-0123456789'];
  let body: Record<string, any>;
  let feedTime: string;

  beforeAll(async () => {
    const time = new Date().toISOString();
    for (const [id, currency, nav] of [
      ['eur-bot', 'EUR', '1000'],
      ['jpy-bot', 'JPY', '150000'],
    ]) {
      await writer.upsertAccount({ id, name: id, currency, broker: 'paper', environment: 'paper' });
      await writer.recordBalance(id, { balance: nav, unrealizedPL: '0', nav, marginUsed: '0', marginAvailable: nav, time });
    }
    fake.addAccount(KEY, SECRET);
    fake.setBalance(KEY, 'USDT', '500');
    fake.prices.set('EURUSDT', '1.0842');
    await feedOf(KEY, SECRET, 'bn-rates', ['EUR/USDT']).feed.poll();
    feedTime = (await api('account-balance', 'bn-rates')).body.updatedAt;
    body = (await api('all-balance', 'all')).body;
  });

  it("converts each NAV at an exchange's last price, stating each rate, its route and time; fiat through a stablecoin", () => {
    const of = (id: string) => body.reporting.accounts.find((account: { accountId: string }) => account.accountId === id);
    expect(body.reporting.currency).toBe('USD');
    expect(of('eur-bot')).toEqual({
      accountId: 'eur-bot',
      nav: '1084.2',
      rate: '1.0842',
      route: [
        { from: 'EUR', to: 'USDT', rate: '1.0842', source: 'binance:EURUSDT' },
        { from: 'USDT', to: 'USD', rate: '1', source: 'peg' },
      ],
      asOf: feedTime,
    });
    expect(of('bn-rates')).toEqual({
      accountId: 'bn-rates',
      nav: '500',
      rate: '1',
      route: [{ from: 'USDT', to: 'USD', rate: '1', source: 'peg' }],
      asOf: null,
    });
    // No feed reads a market of the yen: listed, with why, never guessed or left out.
    expect(of('jpy-bot')).toEqual({
      accountId: 'jpy-bot',
      unvalued: true,
      reason: 'no price converts JPY to USD: no exchange feed reads a market between them',
    });
    expect(body.reporting.accounts.map((account: { accountId: string }) => account.accountId)).toEqual(
      body.accounts.map((account: { accountId: string }) => account.accountId),
    );
    const valued = body.reporting.accounts.filter((account: { nav?: string }) => account.nav !== undefined);
    expect(body.reporting.total).toBe(trimDecimal(sumDecimals(valued.map((account: { nav: string }) => account.nav))));
    // The per-currency totals stay exact and unconverted.
    expect(body.totals.find((total: { currency: string }) => total.currency === 'JPY')).toEqual(expect.objectContaining({ nav: '150000' }));
  });

  it("values an account's equity series in USD at each point's own time: a past hour at that hour's price, never today's", async () => {
    const HOUR = 3_600_000;
    const thisHour = Math.floor(Date.now() / HOUR) * HOUR;
    const halfPast = (hoursAgo: number) => new Date(thisHour - hoursAgo * HOUR + HOUR / 2).toISOString();
    // Three hours ago a feed read EUR at 1.05 (the writer's recordRates, as a sync calls it); two hours ago none read.
    await writer.recordRates('bn-rates-then', {
      exchange: 'binance',
      time: halfPast(3),
      prices: [{ base: 'EUR', quote: 'USDT', price: '1.05' }],
    });
    await writer.upsertAccount({ id: 'eur-history', name: 'eur-history', currency: 'EUR', broker: 'paper', environment: 'paper' });
    for (const [hoursAgo, nav] of [
      [4, '900'],
      [3, '950'],
      [2, '980'],
    ] as const)
      await writer.recordBalance('eur-history', {
        balance: nav,
        unrealizedPL: '0',
        nav,
        marginUsed: '0',
        marginAvailable: nav,
        time: halfPast(hoursAgo),
      });
    const time = new Date().toISOString();
    await writer.recordBalance('eur-history', {
      balance: '1000',
      unrealizedPL: '0',
      nav: '1000',
      marginUsed: '0',
      marginAvailable: '1000',
      time,
    });
    const { statusCode, body: series } = await api('account-equity', 'eur-history', { interval: 'hour' });
    expect(statusCode).toBe(200);
    const usd = (hop: string) => [
      { from: 'EUR', to: 'USDT', rate: hop, source: 'binance:EURUSDT' },
      { from: 'USDT', to: 'USD', rate: '1', source: 'peg' },
    ];
    expect(series.points.map((point: { time: string; reporting: unknown }) => [point.time, point.reporting])).toEqual([
      [
        halfPast(4),
        {
          currency: 'USD',
          unvalued: true,
          reason: "no price converted EUR to USD by the end of this point's interval: no exchange feed had read a market between them",
        },
      ],
      [halfPast(3), { currency: 'USD', nav: '997.5', rate: '1.05', route: usd('1.05'), asOf: halfPast(3) }],
      // No feed read EUR in that hour: the last price read by its end, three hours ago's, not today's.
      [halfPast(2), { currency: 'USD', nav: '1029', rate: '1.05', route: usd('1.05'), asOf: halfPast(3) }],
      // Now: the price the feed read in its poll (beforeAll), stated with its time.
      [time, { currency: 'USD', nav: '1084.2', rate: '1.0842', route: usd('1.0842'), asOf: feedTime }],
    ]);
  });
});

it('runs deployed (functions/exchange-feed.ts): keys from Secrets Manager, a fresh difference to the alerts topic, a run failing that names the account not synced', async () => {
  const aws = await new FakeAws().start();
  const [KEY, SECRET] = ['deployed-key-0123456789', 'deployed-secret-0123456789'];
  fake.addAccount(KEY, SECRET);
  fake.setBalance(KEY, 'USDT', '321');
  fake.prices.set('BTCUSDT', '61000');
  fake.addAccount('deployed-trading-key', 'deployed-trading-secret', { enableSpotAndMarginTrading: true });
  // A bot on the same exchange account whose one trade names an order the exchange never filled. It never recorded a
  // balance snapshot: its NAV is unknown, so no balance difference is claimed.
  await writer.upsertAccount({ id: 'bot-deployed', name: 'bot-deployed', currency: 'USDT', broker: 'binance', environment: 'paper' });
  const openTime = new Date(Date.now() - DAY).toISOString();
  await writer.openTrade('bot-deployed', {
    id: 'd1',
    instrument: 'BTC_USDT',
    side: 'buy',
    units: '0.01',
    openPrice: '60000',
    openTime,
    orderIds: ['9100001'],
  });
  const secretId = `trading-bot-api/${harness.stage}/exchange-keys`;
  aws.secrets.set(
    secretId,
    JSON.stringify({
      'bn-deployed': { apiKey: KEY, secret: SECRET },
      'bn-deployed-trading': { apiKey: 'deployed-trading-key', secret: 'deployed-trading-secret' },
    }),
  );
  const topic = `arn:aws:sns:us-east-1:123456789012:trading-bot-api-${harness.stage}-alerts`;
  const feeds = [{ exchange: 'binance', account: 'bn-deployed', url: fake.url, since: SINCE, reconcileWith: 'bot-deployed' }];
  Object.assign(process.env, {
    ...aws.env,
    STAGE: harness.stage,
    DYNAMODB_ENDPOINT: harness.db.endpoint,
    EXCHANGE_KEYS_SECRET_ID: secretId,
    ALERTS_TOPIC_ARN: topic,
  });
  try {
    const { handler } = await import('../../functions/exchange-feed');
    const context = { getRemainingTimeInMillis: () => 300_000 } as Parameters<typeof handler>[1];
    process.env.EXCHANGE_FEEDS = JSON.stringify(feeds);
    const printed = jest.spyOn(console, 'log').mockImplementation(() => undefined);
    const run = () =>
      handler({}, context).then(
        (done) => done,
        (error: Error) => error.message,
      );
    const result = await run();
    expect(result).toEqual({ accounts: 1 });
    expect(aws.calls.filter((call) => call === 'GetSecretValue')).toHaveLength(1);
    expect((await api('account-balance', 'bn-deployed')).body.nav).toBe('321');
    const reconciliation = (await api('account-reconciliation', 'bot-deployed')).body;
    expect(reconciliation.differences).toEqual([
      expect.objectContaining({ kind: 'missing_on_exchange', tradeId: 'd1', orderId: '9100001' }),
    ]);
    const published = aws.published.filter((message) => message.TopicArn === topic);
    expect(published).toHaveLength(1);
    // The notifier's body (SNS MessageStructure json): the webhook schema's event.
    const event = JSON.parse(JSON.parse(published[0].Message).lambda);
    expect(validEvent(event)).toBe(true);
    expect(event).toEqual(expect.objectContaining({ type: 'reconciliation', accountId: 'bot-deployed' }));
    // A key that can trade: the run syncs the rest, then fails naming it, so the function's Errors alarm tells.
    process.env.EXCHANGE_FEEDS = JSON.stringify([
      { exchange: 'binance', account: 'bn-deployed-trading', url: fake.url, since: SINCE },
      ...feeds,
    ]);
    expect(await run()).toBe('exchange feed: bn-deployed-trading not synced (see the lines above)');
    // The keys read once per instance (kept five minutes); the same difference again is no new alert; the keys are
    // never printed.
    expect(aws.calls.filter((call) => call === 'GetSecretValue')).toHaveLength(1);
    expect(aws.published.filter((message) => message.TopicArn === topic)).toHaveLength(1);
    const text = printed.mock.calls.join('\n');
    expect(text).toContain('bn-deployed-trading: not synced');
    for (const secret of [KEY, SECRET, 'deployed-trading-key', 'deployed-trading-secret']) expect(text).not.toContain(secret);
  } finally {
    for (const name of ['EXCHANGE_FEEDS', 'EXCHANGE_KEYS_SECRET_ID', 'ALERTS_TOPIC_ARN', ...Object.keys(aws.env)]) delete process.env[name];
    await aws.close();
  }
});

it('refuses a key or secret on the command line, and says where to give them', async () => {
  const env = { ...process.env };
  delete env.EXCHANGE_API_KEY;
  const run = await runScript('bridge', ['exchange', '--exchange', 'binance', '--account', 'bn-x', '--once'], env);
  expect(run.status).toBe(2);
  expect(run.stderr).toContain('no key: set EXCHANGE_API_KEY, or give --key-file FILE');
  const inline = await runScript('bridge', ['exchange', '--exchange', 'binance', '--account', 'bn-x', '--key', 'K'], env);
  expect(inline.status).toBe(2);
  expect(inline.stderr).toContain("Unknown option '--key'");
});

it('runs as the scheduled function does: each account once, one failing not stopping the next, the limiter kept for the next run', async () => {
  const [KEY, SECRET] = ['scheduled-key-0123456789', 'scheduled-secret-0123456789'];
  fake.addAccount(KEY, SECRET);
  fake.setBalance(KEY, 'USDT', '700');
  fake.addAccount('scheduled-trading-key', 'scheduled-trading-secret', { enableSpotAndMarginTrading: true });
  const settings = JSON.stringify([
    { exchange: 'binance', account: 'bn-sched-trading', url: fake.url, since: SINCE },
    { exchange: 'binance', account: 'bn-sched', url: fake.url, since: SINCE },
  ]);
  const accounts = scheduledAccounts(settings, {
    'bn-sched-trading': { apiKey: 'scheduled-trading-key', secret: 'scheduled-trading-secret' },
    'bn-sched': { apiKey: KEY, secret: SECRET },
  });
  fake.refuseNext(1, '/api/v3/account');
  const lines: string[] = [];
  const started = Date.now();
  const outcomes = await runScheduled(accounts, writer, { report: (line) => lines.push(line) });
  expect(outcomes.map((outcome) => [outcome.account, 'error' in outcome])).toEqual([
    ['bn-sched-trading', true],
    ['bn-sched', false],
  ]);
  expect(lines.find((line) => line.startsWith('bn-sched-trading: not synced'))).toContain('turn off enableSpotAndMarginTrading');
  const balance = await api('account-balance', 'bn-sched');
  expect([balance.statusCode, balance.body.nav]).toEqual([200, '700']);
  // The 429's wait and the slow pace after it, kept in DynamoDB for the exchange: the next run (a fresh instance)
  // starts from them.
  const kept = (await writer.exchangeLimits(limiterName(accounts[1]))) as LimiterState;
  expect(kept.pausedUntil).toBeGreaterThanOrEqual(started + 1000);
  expect(kept.slowUntil).toBe(kept.pausedUntil + 10 * 60_000);
  expect(JSON.stringify(kept)).not.toContain(SECRET);
});
