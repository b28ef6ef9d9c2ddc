/**
 * Reconciliation's rules as logic (packages/core/src/reconciliation.ts): examples of each kind of difference, and
 * properties against a plain model: a bot whose every trade is the exchange's orders agrees with it whatever the
 * fills' split, and every order dropped from one side or the other is exactly one difference naming it.
 */
import fc from 'fast-check';
import { type BotTrade, differenceKey, type ExchangeFill, reconcile } from '@trading-bot-api/core/reconciliation';
import { recordedFill } from '@trading-bot-api/feeds/bridges/exchange/mirror';
import { propertyRuns } from '../kit/property-runs';

const T = '2026-11-20T10:00:00.000Z';
const fill = (
  orderId: string,
  side: 'buy' | 'sell',
  amount: string,
  fee = '0',
  feeCurrency = 'USDT',
  fillId = `${orderId}-${amount}`,
): ExchangeFill => ({
  orderId,
  fillId,
  instrument: 'BTC_USDT',
  side,
  amount,
  fee,
  feeCurrency,
  time: T,
});
const trade = (id: string, orderIds: string[] | null, more: Partial<BotTrade> = {}): BotTrade => ({
  id,
  instrument: 'BTC_USDT',
  side: 'buy',
  units: '0.01',
  status: 'closed',
  fees: null,
  orderIds,
  ...more,
});

describe('each kind of difference', () => {
  const fills = [fill('1', 'buy', '0.004', '0.24'), fill('1', 'buy', '0.006', '0.36'), fill('2', 'sell', '0.01', '0.61')];

  it('matches a trade whose orders the exchange filled, however the fills split, fees summed by currency', () => {
    const fees = [
      { amount: '0.6', currency: 'USDT', leg: 'open' as const },
      { amount: '0.61', currency: 'USDT', leg: 'close' as const },
    ];
    expect(reconcile({ trades: [trade('a', ['1', '2'], { fees })], fills })).toEqual({ matched: 1, unchecked: 0, differences: [] });
  });

  it('names the order the exchange has no fill of, and the order no trade names; a trade naming none is unchecked', () => {
    const found = reconcile({
      trades: [trade('a', ['1', '2']), trade('b', ['9'], { status: 'open' }), trade('c', null)],
      fills: [...fills, fill('7', 'buy', '1')],
    });
    expect([found.matched, found.unchecked]).toEqual([1, 1]);
    expect(found.differences.map(({ kind, tradeId, orderId }) => [kind, tradeId, orderId])).toEqual([
      ['missing_on_exchange', 'b', '9'],
      ['missing_in_bot', null, '7'],
    ]);
  });

  it('an amount: the units against each leg, a commission in the base netted out or not', () => {
    const inBase = [fill('1', 'buy', '0.01', '0.00001', 'BTC'), fill('2', 'sell', '0.00999')];
    // freqtrade keeps what it got: 0.00999 bought after the commission, 0.00999 sold.
    expect(reconcile({ trades: [trade('a', ['1', '2'], { units: '0.00999' })], fills: inBase }).differences).toEqual([]);
    const short = reconcile({ trades: [trade('a', ['1', '2'], { units: '0.02' })], fills }).differences;
    expect(short.map(({ kind, orderId, bot, exchange }) => [kind, orderId, bot, exchange])).toEqual([
      ['amount', '1', '0.02 BTC', '0.01 BTC'],
      ['amount', '2', '0.02 BTC', '0.01 BTC'],
    ]);
    // An open trade has no closing leg to compare.
    expect(reconcile({ trades: [trade('a', ['1'], { status: 'open' })], fills: fills.slice(0, 2) }).differences).toEqual([]);
  });

  it('a fee: a commission in BNB the bot never counted', () => {
    const withBnb = [...fills.slice(0, 2), fill('2', 'sell', '0.01', '0.0015', 'BNB')];
    const fees = [{ amount: '0.6', currency: 'USDT', leg: 'open' as const }];
    const [difference] = reconcile({ trades: [trade('a', ['1', '2'], { fees })], fills: withBnb }).differences;
    expect(difference).toEqual(
      expect.objectContaining({ kind: 'fee', tradeId: 'a', orderId: null, bot: '0.6 USDT', exchange: '0.0015 BNB + 0.6 USDT' }),
    );
  });

  it('a balance: the two NAVs more than 1 % apart, in the same currency only', () => {
    const balances = (bot: string, exchange: string, currency = 'USDT') => ({
      bot: { nav: bot, currency },
      exchange: { nav: exchange, currency: 'USDT' },
    });
    expect(reconcile({ trades: [], fills: [], balances: balances('1010', '1000') }).differences).toEqual([]);
    expect(reconcile({ trades: [], fills: [], balances: balances('1010.01', '1000') }).differences).toEqual([
      expect.objectContaining({ kind: 'balance', bot: '1010.01 USDT', exchange: '1000 USDT' }),
    ]);
    expect(reconcile({ trades: [], fills: [], balances: balances('5', '1000', 'EUR') }).differences).toEqual([]);
  });

  it('keeps a fill as the exchange recorded it: the commission taken in the base added back to the amount', () => {
    const market = { id: 'BTCUSDT', symbol: 'BTC/USDT', base: 'BTC', quote: 'USDT' } as Parameters<typeof recordedFill>[0];
    const bought = {
      orderId: '5',
      exchangeTradeId: '77',
      exchangeOrderId: '5',
      pair: 'BTC-USDT',
      base: 'BTC',
      quote: 'USDT',
      side: 'buy' as const,
      price: '60000',
      amount: '0.00999',
      fee: { percent: '0', flat: [{ token: 'BTC', amount: '0.00001' }] },
      position: 'NIL' as const,
      leverage: '1',
      time: T,
    };
    expect(recordedFill(market, bought)).toEqual({
      orderId: '5',
      fillId: '77',
      instrument: 'BTC_USDT',
      side: 'buy',
      amount: '0.01',
      fee: '0.00001',
      feeCurrency: 'BTC',
      time: T,
    });
  });
});

describe('properties against a plain model', () => {
  /** Round trips, each of an opening and a closing order, each order filled in 1–3 parts. */
  const trips = fc
    .array(
      fc.record({
        units: fc.integer({ min: 1, max: 10 ** 6 }),
        splits: fc.tuple(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 3 })),
      }),
      { minLength: 1, maxLength: 12 },
    )
    .map((list) =>
      list.map((trip, k) => {
        const units = (trip.units / 10 ** 6).toFixed(6);
        const parts = (orderId: string, side: 'buy' | 'sell', count: number) =>
          Array.from({ length: count }, (_, part) => {
            const share = Math.floor(trip.units / count) + (part === 0 ? trip.units % count : 0);
            return fill(orderId, side, (share / 10 ** 6).toFixed(6), '0', 'USDT', `${orderId}-${part}`);
          }).filter((each) => Number(each.amount) > 0);
        return {
          trade: trade(`t${k}`, [`o${k}`, `c${k}`], { units }),
          fills: [...parts(`o${k}`, 'buy', trip.splits[0]), ...parts(`c${k}`, 'sell', trip.splits[1])],
        };
      }),
    );

  it('a bot that is the exchange agrees with it: every trade matched, no difference', () => {
    fc.assert(
      fc.property(trips, (list) => {
        const found = reconcile({ trades: list.map((each) => each.trade), fills: list.flatMap((each) => each.fills) });
        expect(found).toEqual({ matched: list.length, unchecked: 0, differences: [] });
      }),
      { numRuns: propertyRuns(100) },
    );
  });

  it('each order dropped from the exchange or from the bot is exactly one difference naming it', () => {
    fc.assert(
      fc.property(trips, fc.infiniteStream(fc.constantFrom('keep', 'drop-exchange', 'drop-bot')), (list, choices) => {
        const expected = new Set<string>();
        const trades: BotTrade[] = [];
        const fills: ExchangeFill[] = [];
        let matched = 0;
        for (const { trade: each, fills: its } of list) {
          const choice = choices.next().value;
          if (choice === 'drop-exchange') {
            // The exchange never saw the closing order.
            trades.push(each);
            fills.push(...its.filter((one) => one.orderId !== each.orderIds![1]));
            expected.add(differenceKey({ kind: 'missing_on_exchange', tradeId: each.id, orderId: each.orderIds![1] }));
          } else if (choice === 'drop-bot') {
            fills.push(...its);
            for (const orderId of each.orderIds!) expected.add(differenceKey({ kind: 'missing_in_bot', tradeId: null, orderId }));
          } else {
            trades.push(each);
            fills.push(...its);
            matched += 1;
          }
        }
        const found = reconcile({ trades, fills });
        expect(found.matched).toBe(matched);
        expect(new Set(found.differences.map(differenceKey))).toEqual(expected);
        expect(found.differences).toHaveLength(expected.size);
      }),
      { numRuns: propertyRuns(100) },
    );
  });
});
