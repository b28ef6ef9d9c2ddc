/**
 * The exchange feed's pure parts: Binance's raw answers read into fills, holdings and transfers (exact, from its
 * strings); which permissions refuse a key; which markets are followed; fills into trades by the shared rule, long
 * only, resumable at any fill (a page cut anywhere ends as the whole page); the balance valued at last prices; the
 * windows of a transfer history and where the next one starts; the limiter of the exchange's weight; the
 * configuration; and what never reaches a log line.
 */
import fc from 'fast-check';
import { negateDecimal, sumDecimals, trimDecimal } from '@trading-bot-api/core/decimal';
import { binance, fillOf, transferOf } from '@trading-bot-api/feeds/bridges/exchange/binance';
import { redact, withOrigin } from '@trading-bot-api/feeds/bridges/exchange/client';
import { ConfigError, feedAccountOf, feedAccountsOf } from '@trading-bot-api/feeds/bridges/exchange/config';
import { ExchangeFeedError } from '@trading-bot-api/feeds/bridges/exchange/errors';
import { WeightLimiter } from '@trading-bot-api/feeds/bridges/exchange/limiter';
import { limiterName, scheduledAccounts } from '@trading-bot-api/feeds/bridges/exchange/scheduled';
import {
  followedMarkets,
  markedState,
  newMarketState,
  nextTransferCursor,
  type PageFill,
  stepsOfFills,
  symbolOf,
  TRANSFER_OVERLAP_MS,
  transferRecord,
  valuationOf,
  windowsOf,
} from '@trading-bot-api/feeds/bridges/exchange/mirror';
import type { ExchangeTransfer, MarketInfo } from '@trading-bot-api/feeds/bridges/exchange/profile';
import { multiplyDecimals } from '@trading-bot-api/feeds/bridges/numbers';
import { markTransfers } from '../../api/operations/transfers';
import { applyFill } from '@trading-bot-api/feeds/bridges/positions';
import { type RawTrade, READ_ONLY } from '../kit/fake-binance';
import { propertyRuns } from '../kit/property-runs';

const BTC: MarketInfo = { symbol: 'BTC/USDT', id: 'BTCUSDT', base: 'BTC', quote: 'USDT' };
const ETH: MarketInfo = { symbol: 'ETH/USDT', id: 'ETHUSDT', base: 'ETH', quote: 'USDT' };
const MARKETS = new Map(
  [
    BTC,
    ETH,
    { symbol: 'ETH/BTC', id: 'ETHBTC', base: 'ETH', quote: 'BTC' },
    { symbol: 'BNB/USDT', id: 'BNBUSDT', base: 'BNB', quote: 'USDT' },
  ].map((market) => [market.symbol, market]),
);

function raw(overrides: Partial<RawTrade>): RawTrade {
  return {
    symbol: 'BTCUSDT',
    id: 28457,
    orderId: 100234,
    orderListId: -1,
    price: '60000.10000000',
    qty: '0.01000000',
    quoteQty: '600.00100000',
    commission: '0.60000100',
    commissionAsset: 'USDT',
    time: 1_795_000_000_123,
    isBuyer: true,
    isMaker: false,
    isBestMatch: true,
    ...overrides,
  };
}

describe("Binance's answers", () => {
  it('reads a fill from its own strings, its order kept for the trades, the cursor after it', () => {
    expect(fillOf(raw({}), BTC)).toEqual({
      id: '28457',
      next: '28458',
      fill: {
        orderId: '100234',
        exchangeTradeId: '28457',
        exchangeOrderId: '100234',
        pair: 'BTC-USDT',
        base: 'BTC',
        quote: 'USDT',
        side: 'buy',
        price: '60000.1',
        amount: '0.01',
        fee: { percent: '0', flat: [{ token: 'USDT', amount: '0.600001' }] },
        position: 'NIL',
        leverage: '1',
        time: '2026-11-18T11:06:40.123Z',
      },
    });
  });

  it('holds what a commission in the base leaves: less of what was bought, more of what was sold', () => {
    expect(fillOf(raw({ commission: '0.00001000', commissionAsset: 'BTC' }), BTC).fill.amount).toBe('0.00999');
    expect(fillOf(raw({ commission: '0.00001000', commissionAsset: 'BTC', isBuyer: false }), BTC).fill.amount).toBe('0.01001');
    const bnb = fillOf(raw({ commission: '0.00002000', commissionAsset: 'BNB' }), BTC).fill;
    expect([bnb.amount, bnb.fee.flat]).toEqual(['0.01', [{ token: 'BNB', amount: '0.00002' }]]);
    expect(fillOf(raw({ commission: '0.00000000' }), BTC).fill.fee.flat).toEqual([]);
  });

  it('refuses an amount that is not a decimal string, naming it', () => {
    expect(() => fillOf({ ...raw({}), qty: 0.01 }, BTC)).toThrow(ExchangeFeedError);
    expect(() => fillOf({ ...raw({}), price: '6e4' }, BTC)).toThrow('Binance answered a fill of BTCUSDT with price "6e4"');
  });

  it('refuses a key with any power beyond reading, by its names, new ones included', () => {
    expect(binance.excessPermissions(READ_ONLY)).toEqual([]);
    expect(binance.excessPermissions({ ...READ_ONLY, ipRestrict: true })).toEqual([]);
    expect(binance.excessPermissions({ ...READ_ONLY, enableWithdrawals: true, enableSpotAndMarginTrading: true })).toEqual([
      'enableSpotAndMarginTrading',
      'enableWithdrawals',
    ]);
    for (const power of [
      'enableInternalTransfer',
      'permitsUniversalTransfer',
      'enableFutures',
      'enableMargin',
      'enableVanillaOptions',
      'enableFixApiTrade',
      'enablePortfolioMarginTrading',
    ])
      expect(binance.excessPermissions({ ...READ_ONLY, [power]: true })).toEqual([power]);
    expect(binance.excessPermissions({ ...READ_ONLY, enableSomethingNew: true, tradingAuthorityExpirationTime: 1 })).toEqual([
      'enableSomethingNew',
    ]);
    expect(() => binance.excessPermissions('nope')).toThrow(ExchangeFeedError);
  });

  it('reads deposits and withdrawals: what moved, when, and whether it is done', () => {
    const deposit = (status: number) =>
      transferOf('deposit', {
        id: '769800519366885376',
        amount: '0.50000000',
        coin: 'BNB',
        status,
        insertTime: 1_661_493_146_000,
        completeTime: 1_661_493_746_000,
        txId: '98A3',
      });
    expect(deposit(1)).toEqual({
      id: 'deposit-769800519366885376',
      kind: 'deposit',
      asset: 'BNB',
      amount: '0.5',
      fee: '0',
      time: 1_661_493_746_000,
      listedAt: 1_661_493_146_000,
      state: 'done',
      reference: '98A3',
    });
    expect([0, 1, 2, 6, 7, 8].map((status) => deposit(status).state)).toEqual(['pending', 'done', 'failed', 'done', 'failed', 'pending']);
    const withdrawal = (status: number) =>
      transferOf('withdrawal', {
        id: 'b6ae22b3',
        amount: '8.91000000',
        transactionFee: '0.004',
        coin: 'USDT',
        status,
        applyTime: '2019-10-12 11:12:02',
        txId: '',
      });
    expect(withdrawal(6)).toEqual(
      expect.objectContaining({
        id: 'withdrawal-b6ae22b3',
        amount: '8.91',
        fee: '0.004',
        time: Date.UTC(2019, 9, 12, 11, 12, 2),
        state: 'done',
        reference: null,
      }),
    );
    expect([0, 1, 2, 3, 4, 5, 6].map((status) => withdrawal(status).state)).toEqual([
      'pending',
      'failed',
      'pending',
      'failed',
      'pending',
      'failed',
      'done',
    ]);
  });
});

describe('markets followed', () => {
  const holdings = [
    { asset: 'USDT', free: '100', locked: '0' },
    { asset: 'ETH', free: '0', locked: '0.5' },
    { asset: 'BNB', free: '0', locked: '0' },
    { asset: 'DOGE', free: '10', locked: '0' },
  ];
  it("are the known ones, the reconciled bot's, those of assets held and those asked for, in the account's currency only", () => {
    const followed = followedMarkets({
      markets: MARKETS,
      quote: 'USDT',
      known: [BTC],
      instruments: ['BTC_USDT', 'SOL_USDT_PERP', 'ETH_BTC'],
      holdings,
      asked: ['bnb_usdt', 'nonsense', 'XRP/USDT'],
    });
    expect(followed.markets.map((market) => market.symbol)).toEqual(['BNB/USDT', 'BTC/USDT', 'ETH/USDT']);
    expect(followed.skipped).toEqual([
      { symbol: 'SOL_USDT_PERP', why: "the bot's SOL_USDT_PERP is a future: the feed mirrors spot" },
      { symbol: 'ETH/BTC', why: "the bot's trades: quoted in BTC, and the account is in USDT (mirror it into an account in BTC)" },
      { symbol: 'nonsense', why: 'asked for: not a market such as BTC/USDT' },
      { symbol: 'XRP/USDT', why: 'asked for: the exchange has no spot market XRP/USDT' },
    ]);
  });

  it('reads a symbol in any of its spellings', () => {
    expect(['BTC/USDT', 'btc_usdt', 'BTC-USDT', ' eth/btc '].map(symbolOf)).toEqual(['BTC/USDT', 'BTC/USDT', 'BTC/USDT', 'ETH/BTC']);
    expect(symbolOf('BTCUSDT')).toBeUndefined();
  });
});

/** A page of fills of BTC/USDT, ids from `first`. */
function page(
  fills: { side: 'buy' | 'sell'; price: string; qty: string; commission?: string; asset?: string; time: number }[],
  first = 1,
): PageFill[] {
  return fills.map((fill, i) =>
    fillOf(
      raw({
        id: first + i,
        orderId: 500 + first + i,
        isBuyer: fill.side === 'buy',
        price: fill.price,
        qty: fill.qty,
        commission: fill.commission ?? '0',
        commissionAsset: fill.asset ?? 'USDT',
        time: fill.time,
      }),
      BTC,
    ),
  );
}

describe('fills into trades', () => {
  it('a round trip is one closed trade, opened and closed by its orders, its fees as charged', () => {
    const { steps, state } = stepsOfFills(
      'binance',
      'acc',
      newMarketState(BTC, '0'),
      page([
        { side: 'buy', price: '60000', qty: '0.02', commission: '1.2', time: 1_000 },
        { side: 'sell', price: '61000', qty: '0.02', commission: '0.00002', asset: 'BNB', time: 1_000 },
      ]),
    );
    expect(steps).toHaveLength(2);
    expect(steps[1].trades).toEqual([
      expect.objectContaining({
        id: 'binance-BTCUSDT-1',
        accountId: 'acc',
        status: 'closed',
        units: '0.02',
        openPrice: '60000',
        closePrice: '61000',
        // 20 − the buy's 1.2 USDT; the BNB fee is kept as charged, left out of the P&L.
        realizedPL: '18.8',
        fees: [
          { amount: '1.2', currency: 'USDT', leg: 'open' },
          { amount: '0.00002', currency: 'BNB', leg: 'close' },
        ],
        orderIds: ['501', '502'],
        market: 'spot',
        leverage: '1',
      }),
    ]);
    expect(state).toEqual(expect.objectContaining({ next: '3', fills: 2, position: null, unpricedFees: ['BNB'] }));
  });

  it('a sell of coins not bought here closes nothing and opens nothing: counted, with its order', () => {
    const { steps, state } = stepsOfFills(
      'binance',
      'acc',
      newMarketState(BTC, '0'),
      page([
        { side: 'sell', price: '60000', qty: '0.5', time: 1_000 },
        { side: 'buy', price: '60000', qty: '0.1', time: 2_000 },
        { side: 'sell', price: '62000', qty: '0.3', time: 3_000 },
      ]),
    );
    expect(steps[0].trades).toEqual([]);
    expect(steps[2].trades).toEqual([expect.objectContaining({ status: 'closed', units: '0.1', realizedPL: '200' })]);
    expect(state.position).toBeNull();
    expect(state.unmatched).toEqual({ units: '0.7', fills: 2, orderIds: ['501', '503'] });
  });

  it('a page cut anywhere, resumed from the state at the cut, ends as the whole page: the same state and trades', () => {
    const fill = fc.record({
      side: fc.constantFrom('buy' as const, 'sell' as const),
      price: fc.integer({ min: 1, max: 90_000 }).map((p) => `${p}.5`),
      qty: fc.integer({ min: 1, max: 500 }).map((q) => trimDecimal(`0.${String(q).padStart(4, '0')}`)),
      commission: fc.constantFrom('0', '0.0001', '0.12'),
      asset: fc.constantFrom('USDT', 'BTC', 'BNB'),
    });
    fc.assert(
      fc.property(fc.array(fill, { minLength: 1, maxLength: 30 }), fc.nat(), (inputs, cutAt) => {
        const fills = page(
          inputs.map((input, i) => ({
            ...input,
            commission: input.asset === 'BTC' ? '0.00001' : input.commission,
            time: 1_000 + Math.floor(i / 3),
          })),
        );
        const cut = cutAt % (fills.length + 1);
        const whole = stepsOfFills('binance', 'acc', newMarketState(BTC, '0'), fills);
        const first = stepsOfFills('binance', 'acc', newMarketState(BTC, '0'), fills.slice(0, cut));
        const rest = stepsOfFills('binance', 'acc', first.state, fills.slice(cut));
        const fold = (steps: { trades: { id: string }[] }[]) => {
          const folded = new Map<string, unknown>();
          for (const step of steps) for (const trade of step.trades) folded.set(trade.id, trade);
          return folded;
        };
        expect(rest.state).toEqual(whole.state);
        expect(fold([...first.steps, ...rest.steps])).toEqual(fold(whole.steps));
      }),
      { numRuns: propertyRuns(200) },
    );
  });

  it('a long-only sell beyond the position closes it and opens no short', () => {
    const [buy, sell] = page([
      { side: 'buy', price: '100', qty: '1', time: 1 },
      { side: 'sell', price: '110', qty: '3', time: 2 },
    ]);
    const opened = applyFill(undefined, buy.fill, '0', { longOnly: true });
    const applied = applyFill(opened.position, sell.fill, '0', { longOnly: true, idOf: (fill) => `x-${fill.exchangeTradeId}` });
    expect(applied).toEqual({
      position: undefined,
      trades: [expect.objectContaining({ status: 'closed', units: '1', realizedPL: '10' })],
      unmatched: '2',
    });
    // hummingbot's spot rule, unchanged: the excess opens a short.
    expect(applyFill(opened.position, sell.fill, '0').position).toEqual(expect.objectContaining({ side: 'sell', units: '2' }));
  });

  it('marks an open position at the last price: its value less its cost and the fees it carries', () => {
    const { state } = stepsOfFills(
      'binance',
      'acc',
      newMarketState(BTC, '0'),
      page([{ side: 'buy', price: '60000', qty: '0.3', commission: '1.8', time: 1 }]),
    );
    const marked = markedState('acc', state, '62000');
    expect(marked?.trade).toEqual(expect.objectContaining({ status: 'open', unrealizedPL: '598.2', accountId: 'acc' }));
    expect(markedState('acc', marked!.state, '62000')).toBeUndefined();
  });
});

describe('the balance', () => {
  it("values every asset held at its market's last price in the account's currency, exactly; the rest is left out and named", () => {
    const { state } = stepsOfFills(
      'binance',
      'acc',
      newMarketState(BTC, '0'),
      page([{ side: 'buy', price: '60000', qty: '0.25', time: 1 }]),
    );
    const valuation = valuationOf({
      quote: 'USDT',
      holdings: [
        { asset: 'USDT', free: '5000.12345678', locked: '0' },
        { asset: 'BTC', free: '0.2', locked: '0.05' },
        { asset: 'ETH', free: '0', locked: '0' },
        { asset: 'DOGE', free: '100', locked: '0' },
      ],
      markets: MARKETS,
      prices: new Map([['BTCUSDT', '62000.01']]),
      positions: [{ market: BTC, position: state.position! }],
    });
    expect(valuation).toEqual({
      nav: '20500.12595678',
      unrealizedPL: '500.0025',
      balance: '20000.12345678',
      unvalued: ['DOGE'],
      assets: [
        { asset: 'USDT', free: '5000.12345678', locked: '0', price: '1', value: '5000.12345678' },
        { asset: 'BTC', free: '0.2', locked: '0.05', price: '62000.01', value: '15500.0025' },
        { asset: 'DOGE', free: '100', locked: '0', price: null, value: null },
      ],
    });
    expect(sumDecimals([valuation.balance, valuation.unrealizedPL])).toBe(valuation.nav);
  });
});

describe('transfers', () => {
  it('a history is read in windows the exchange allows, covering it without gap or overlap', () => {
    fc.assert(
      // At most 1,000 windows a history.
      fc.property(fc.nat(10 ** 12), fc.nat(10 ** 11), fc.integer({ min: 10 ** 8, max: 10 ** 10 }), (from, length, window) => {
        const windows = windowsOf(from, from + length, window);
        expect(windows[0].from).toBe(from);
        expect(windows.at(-1)!.to).toBe(from + length);
        windows.forEach((each, i) => {
          expect(each.to - each.from).toBeLessThanOrEqual(window);
          if (i) expect(each.from).toBe(windows[i - 1].to + 1);
        });
      }),
      { numRuns: propertyRuns(100) },
    );
  });

  it('the next history starts at the oldest transfer on its way, else an hour back, never before this one', () => {
    const at = (listedAt: number, state: ExchangeTransfer['state']) =>
      ({
        listedAt,
        state,
        id: 'x',
        kind: 'deposit',
        asset: 'USDT',
        amount: '1',
        fee: '0',
        time: listedAt,
        reference: null,
      }) as ExchangeTransfer;
    const now = 10 * TRANSFER_OVERLAP_MS;
    expect(nextTransferCursor(0, now, [at(5, 'done')])).toBe(now - TRANSFER_OVERLAP_MS);
    expect(nextTransferCursor(0, now, [at(5, 'done'), at(7, 'pending'), at(9, 'failed')])).toBe(7);
    expect(nextTransferCursor(now - 10, now, [])).toBe(now - 10);
  });

  it('a transfer is valued with its fee at the price of its minute, or kept unvalued', () => {
    const withdrawal = transferOf('withdrawal', {
      id: 'w',
      amount: '0.1',
      transactionFee: '0.0005',
      coin: 'BTC',
      status: 6,
      applyTime: '2026-01-02 03:04:05',
    });
    expect(transferRecord(withdrawal, '60000.5')).toEqual(
      expect.objectContaining({
        time: '2026-01-02T03:04:05.000Z',
        value: trimDecimal(multiplyDecimals('0.1005', '60000.5')),
        rate: '60000.5',
      }),
    );
    expect(transferRecord(withdrawal, undefined)).toEqual(expect.objectContaining({ value: null, rate: null }));
  });
});

describe('transfers on the equity series', () => {
  const point = (time: string, nav: string) => ({ time, balance: nav, nav, unrealizedPL: '0' });
  const points = [
    point('2026-11-01T10:30:00.000Z', '1000'),
    point('2026-11-01T11:45:00.000Z', '1600'),
    point('2026-11-01T12:10:00.000Z', '1590'),
  ];

  it('marks each point with the transfers after the point before it, up to its own time, and no other', () => {
    const marked = markTransfers(points, [
      { time: '2026-11-01T10:00:00.000Z', kind: 'deposit', value: '1000' },
      { time: '2026-11-01T11:00:00.000Z', kind: 'deposit', value: '650.5' },
      { time: '2026-11-01T11:45:00.000Z', kind: 'withdrawal', value: '50.5' },
      { time: '2026-11-01T12:30:00.000Z', kind: 'deposit', value: '7' },
    ]);
    expect(marked).toEqual([{ ...points[0], transfers: '1000' }, { ...points[1], transfers: '600.0' }, points[2]]);
    // Summed with their places (600.0), as every sum here. What the account earned over the window: the change of NAV
    // less the transfers after the first point.
    expect(sumDecimals([marked[2].nav, negateDecimal(marked[0].nav), negateDecimal(marked[1].transfers!)])).toBe('-10.0');
  });

  it('says a net it cannot know as null, never as a figure that leaves a transfer out', () => {
    expect(markTransfers(points.slice(0, 1), [{ time: '2026-11-01T10:00:00.000Z', kind: 'deposit', value: null }])).toEqual([
      { ...points[0], transfers: null },
    ]);
    expect(markTransfers(points, [])).toEqual(points);
  });
});

describe('the weight limiter', () => {
  function clock() {
    let now = 60_000 * 1000;
    const waits: number[] = [];
    return {
      now: () => now,
      wait: async (ms: number) => {
        waits.push(ms);
        now += ms;
      },
      waits,
      advance: (ms: number) => (now += ms),
    };
  }

  it('spends its share of the limit a minute, then waits for the next minute', async () => {
    const time = clock();
    const limiter = new WeightLimiter({ ip: { limit: 100, header: 'x-mbx-used-weight-1m' } }, { share: 0.5, ...time });
    for (let i = 0; i < 5; i++) await limiter.take('ip', 10);
    expect(time.waits).toEqual([]);
    await limiter.take('ip', 10);
    expect(time.waits).toEqual([60_050]);
    expect(limiter.spent.get('ip')).toBe(60);
  });

  it("counts what the exchange's header says is used: weight spent by others on the IP", async () => {
    const time = clock();
    const limiter = new WeightLimiter({ ip: { limit: 100, header: 'x-mbx-used-weight-1m' } }, { share: 0.5, ...time });
    await limiter.take('ip', 1);
    limiter.observe({ 'X-Mbx-Used-Weight-1m': '45', 'Content-Type': 'application/json' });
    await limiter.take('ip', 5);
    expect(time.waits).toEqual([]);
    await limiter.take('ip', 1);
    expect(time.waits).toHaveLength(1);
  });

  it('waits out a Retry-After, says it started once, and goes at a quarter of its share for a while', async () => {
    const time = clock();
    const limiter = new WeightLimiter({ ip: { limit: 1000, header: 'x-mbx-used-weight-1m' } }, { share: 0.5, ...time });
    expect(limiter.refused(3)).toBe(true);
    expect(limiter.refused(2)).toBe(false);
    await limiter.take('ip', 1);
    expect(time.waits[0]).toBe(3000);
    expect(limiter.budget('ip')).toBe(125);
    time.advance(11 * 60_000);
    expect(limiter.budget('ip')).toBe(500);
  });

  it('passes what it knows to the next run (a scheduled feed’s): the wait and slow pace, and only the current minute’s weight', async () => {
    const time = clock();
    const pools = { ip: { limit: 100, header: 'x-mbx-used-weight-1m' } };
    const first = new WeightLimiter(pools, { share: 0.5, ...time });
    await first.take('ip', 40);
    first.refused(5);
    const kept = JSON.parse(JSON.stringify(first.state()));
    // The next run, in a fresh process, in the same minute: it waits out the rest of the ban, then, the minute's 40
    // spent already over its slowed budget of 12, for the next minute.
    const next = new WeightLimiter(pools, { share: 0.5, ...time });
    next.restore(kept);
    expect(next.budget('ip')).toBe(12);
    await next.take('ip', 1);
    expect(time.waits).toEqual([5000, 55_050]);
    // A state of an earlier minute adds no weight.
    const later = new WeightLimiter(pools, { share: 0.5, ...time });
    time.advance(60_000);
    later.restore(kept);
    expect(later.state().used.ip.weight).toBe(0);
  });
});

describe('the scheduled feed’s accounts', () => {
  const keys = { 'bn-main': { apiKey: 'KEY', secret: 'SECRET' } };

  it('takes the settings without keys and each account’s keys from the secret; names a limiter by its exchange and origin', () => {
    const [feed] = scheduledAccounts('[{"exchange":"binance","account":"bn-main","reconcileWith":"ft-main"}]', keys);
    expect([feed.config.account, feed.config.reconcileWith, feed.apiKey, feed.secret]).toEqual(['bn-main', 'ft-main', 'KEY', 'SECRET']);
    expect(limiterName(feed)).toBe('binance');
    expect(limiterName({ ...feed, url: 'http://127.0.0.1:9000' })).toMatch(/^binance-[0-9a-f]{12}$/);
  });

  it('refuses keys in the settings, an account the secret has no keys for, and settings that are not a list', () => {
    expect(() => scheduledAccounts('[{"exchange":"binance","account":"bn-main","keyEnv":"K"}]', keys)).toThrow(
      /"keyEnv" is not taken here/,
    );
    expect(() => scheduledAccounts('[{"exchange":"binance","account":"bn-other"}]', keys)).toThrow(/holds no "apiKey" and "secret"/);
    expect(() => scheduledAccounts('{"accounts":[]}', keys)).toThrow(ConfigError);
    expect(() =>
      scheduledAccounts('[{"exchange":"binance","account":"bn-main"},{"exchange":"binance","account":"bn-main"}]', keys),
    ).toThrow(/twice/);
  });
});

describe('configuration and secrets', () => {
  const sources = {
    readFile: (file: string) => ({ '/k': 'KEY', '/s': 'SECRET' })[file] ?? '',
    env: { BN_KEY: 'ENVKEY', BN_SECRET: 'ENVSECRET' },
  };

  it('reads an account with its defaults, its key and secret from files or the environment', () => {
    expect(feedAccountOf({ exchange: 'binance', account: 'bn-1', keyFile: '/k', secretEnv: 'BN_SECRET' }, 'x', sources)).toEqual({
      profile: binance,
      config: {
        account: 'bn-1',
        name: 'Binance bn-1',
        quote: 'USDT',
        symbols: [],
        reconcileWith: undefined,
        since: '2017-07-01T00:00:00.000Z',
        environment: 'live',
      },
      apiKey: 'KEY',
      secret: 'ENVSECRET',
      url: undefined,
      intervalSeconds: 60,
    });
    const testnet = feedAccountOf(
      { exchange: 'binance', account: 'bn-1', keyEnv: 'BN_KEY', secretEnv: 'BN_SECRET', url: 'https://testnet.binance.vision/' },
      'x',
      sources,
    );
    expect([testnet.url, testnet.config.environment]).toEqual(['https://testnet.binance.vision', 'paper']);
  });

  it.each([
    [
      { exchange: 'kraken', account: 'a', keyEnv: 'BN_KEY', secretEnv: 'BN_SECRET' },
      'x.exchange "kraken" is not one the feed mirrors (binance)',
    ],
    [
      { exchange: 'binance', account: 'a', key: 'K', keyEnv: 'BN_KEY', secretEnv: 'BN_SECRET' },
      'x: give "keyFile" or "keyEnv", never the key itself',
    ],
    [{ exchange: 'binance', account: 'a', keyEnv: 'NOPE', secretEnv: 'BN_SECRET' }, 'x: keyEnv names NOPE, which is not set'],
    [{ exchange: 'binance', account: 'a', keyEnv: 'BN_KEY', secretFile: '/missing' }, 'x: the secret file /missing is empty'],
    [
      { exchange: 'binance', account: 'a', reconcileWith: 'a', keyEnv: 'BN_KEY', secretEnv: 'BN_SECRET' },
      "x.reconcileWith names the feed's own account",
    ],
    [
      { exchange: 'binance', account: 'a', url: 'https://u:p@x/', keyEnv: 'BN_KEY', secretEnv: 'BN_SECRET' },
      'x.url must be an origin only',
    ],
  ])('refuses %j', (entry, message) => {
    expect(() => feedAccountOf(entry, 'x', sources)).toThrow(new ConfigError(message).message);
  });

  it('takes each account of a config file once', () => {
    const entry = { exchange: 'binance', account: 'a', keyEnv: 'BN_KEY', secretEnv: 'BN_SECRET' };
    expect(() => feedAccountsOf({ accounts: [entry, entry] }, 'f.json', sources)).toThrow('f.json: accounts[1]: account a is given twice');
    expect(() => feedAccountsOf({}, 'f.json', sources)).toThrow('"accounts" must be a list');
  });

  it('points every API of the exchange at another origin, and keeps keys and signatures out of what it says', () => {
    expect(withOrigin({ sapi: 'https://api.binance.com/sapi/v1', public: 'https://api.binance.com/api/v3' }, 'http://127.0.0.1:9')).toEqual(
      {
        sapi: 'http://127.0.0.1:9/sapi/v1',
        public: 'http://127.0.0.1:9/api/v3',
      },
    );
    expect(redact('binance GET http://x/api/v3/account?timestamp=1&signature=ab12CD34 KEY123 refused', ['KEY123', ''])).toBe(
      'binance GET http://x/api/v3/account?timestamp=1&signature=… … refused',
    );
  });
});

it('realized P&L of a round trip is its proceeds less its cost and fees, to the digit', () => {
  const fills = page([
    { side: 'buy', price: '60000.5', qty: '0.01', commission: '0.00001', asset: 'BTC', time: 1 },
    { side: 'sell', price: '60070.25', qty: '0.00999', commission: '0.0456', time: 2 },
  ]);
  const [trade] = stepsOfFills('binance', 'acc', newMarketState(BTC, '0'), fills).steps[1].trades;
  // Paid 600.005 for 0.00999 BTC (0.00001 went in the commission); sold for 600.1017975, less 0.0456.
  expect(trade.realizedPL).toBe(trimDecimal(sumDecimals(['600.1017975', negateDecimal('600.005'), '-0.0456'])));
});
