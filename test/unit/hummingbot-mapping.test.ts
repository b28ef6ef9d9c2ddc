/**
 * The hummingbot bridge's pure parts: numbers as hummingbot writes them, its topics and payloads, fills into
 * positions and trades (every figure exact: a round trip's P&L is its proceeds less its costs and fees to the last
 * digit, whatever the fills), its trades CSV, and its configuration.
 */
import fc from 'fast-check';
import { compareDecimals, divideDecimals, negateDecimal, sumDecimals, trimDecimal } from '@trading-bot-api/core/decimal';
import { configOf, profileOf } from '@trading-bot-api/feeds/bridges/hummingbot/config';
import { csvFields, csvFillOf, headerOf, pythonLiteral } from '@trading-bot-api/feeds/bridges/hummingbot/csv';
import { eventOf, jsonOf, leverageOf, Malformed, performanceOf, topicOf } from '@trading-bot-api/feeds/bridges/hummingbot/messages';
import { applyFill, bookOf, type Fill, feeInQuote, type Position, tradeIdOf } from '@trading-bot-api/feeds/bridges/positions';
import { multiplyDecimals, proportionOf, pythonDecimal, quotientOf } from '@trading-bot-api/feeds/bridges/numbers';
import { emptyAccount, REPLAY_WINDOW_MS, replayed } from '@trading-bot-api/feeds/bridges/hummingbot/state';
import { checkTrade, MAX_ORDER_IDS } from '@trading-bot-api/writer';
import { TRADES_CSV_COLUMNS, ujson } from '../kit/fake-hummingbot';
import { propertyRuns } from '../kit/property-runs';

describe('numbers', () => {
  it.each([
    ['0.0612505', '0.0612505'],
    ['-12', '-12'],
    ['1E-7', '0.0000001'],
    ['6.1E+3', '6100'],
    ['6.1E3', '6100'],
    ['0E-8', '0'],
    ['0.00150000', '0.0015'],
    ['-0.00', '0'],
    ['1.2345E-12', '0.0000000000012345'],
  ])("Python's str(Decimal) %p is %p", (text, decimal) => expect(pythonDecimal(text)).toBe(decimal));

  it.each(['NaN', 'Infinity', '-Infinity', 'None', '', '1.2.3', '0x10', '1E+999'])('%p is no decimal', (text) =>
    expect(pythonDecimal(text)).toBeUndefined(),
  );

  it('multiplies exactly, and shares a whole so that its shares add up to it', () => {
    expect(multiplyDecimals('61250.5', '0.0015')).toBe('91.87575');
    expect(multiplyDecimals('-0.5', '0.2')).toBe('-0.1');
    // 1.83 of fees over 3 units: a third each at the fees' 8 places, the rest left with the position.
    expect(proportionOf('1.83', '1', '3')).toBe('0.61');
    expect(proportionOf('1', '1', '3')).toBe('0.33333333');
    expect(sumDecimals([proportionOf('1', '1', '3'), '0.66666667'])).toBe('1.00000000');
    // A position bought at one price: its share is exact.
    expect(proportionOf(multiplyDecimals('61250.53', '0.0123'), '0.0041', '0.0123')).toBe(multiplyDecimals('61250.53', '0.0041'));
    expect(quotientOf('1830', '0.03')).toBe('61000');
    expect(quotientOf('100', '3')).toBe('33.3333333333333');
    expect(quotientOf('0.00000123456789', '7')).toBe('0.000000176366841428571');
  });
});

describe('topics and payloads', () => {
  it('reads the instance and channel of hummingbot topics, ids with dots published under /', () => {
    expect(topicOf('hbot/pmm-btc/hb', 'hbot')).toEqual({ instance: 'pmm-btc', channel: 'hb' });
    expect(topicOf('hbot/desk/pmm/events', 'hbot')).toEqual({ instance: 'desk.pmm', channel: 'events' });
    expect(topicOf('hbot/a.b/performance', 'hbot')).toEqual({ instance: 'a.b', channel: 'performance' });
    expect(topicOf('prod/hbot/x/log', 'prod/hbot')).toEqual({ instance: 'x', channel: 'log' });
    for (const quiet of ['hbot/x/notify', 'hbot/x/start', 'hbot/x/balance/limit', 'hbot/x/external/event/signal', 'hbot/x/history'])
      expect(topicOf(quiet, 'hbot')).toEqual({ quiet: true });
    expect(topicOf('hbot/x/weird', 'hbot')).toEqual({ unknown: 'x/weird' });
    expect(topicOf('hbot/hb', 'hbot')).toEqual({ unknown: 'hb' });
    expect(topicOf('other/x/hb', 'hbot')).toEqual({ unknown: 'other/x/hb' });
  });

  const fillPayload = (data: Record<string, unknown> = {}) =>
    ujson({
      timestamp: 1_785_000_000,
      type: 'OrderFilled',
      data: {
        order_id: 'buy-BTC-USDT-1785000000000001',
        trading_pair: 'BTC-USDT',
        trade_type: 'TradeType.BUY',
        order_type: 'OrderType.LIMIT',
        price: 61250.50000000001,
        amount: 0.30000000000000004,
        trade_fee: { fee_type: 'AddedToCost', percent: '0', percent_token: null, flat_fees: [{ token: 'USDT', amount: '1.8375150' }] },
        exchange_trade_id: '9000001',
        exchange_order_id: 'x',
        leverage: 1,
        position: 'NIL',
        ...data,
      },
    });

  it("reads an OrderFilled event as hummingbot's MQTT bridge sends it: floats at the precision they carry, the fee's strings exact", () => {
    expect(eventOf(jsonOf(fillPayload(), 'events'))).toEqual({
      fill: {
        orderId: 'buy-BTC-USDT-1785000000000001',
        exchangeTradeId: '9000001',
        pair: 'BTC-USDT',
        base: 'BTC',
        quote: 'USDT',
        side: 'buy',
        price: '61250.5',
        amount: '0.3',
        fee: { percent: '0', flat: [{ token: 'USDT', amount: '1.837515' }] },
        position: 'NIL',
        leverage: '1',
        time: '2026-07-25T17:20:00.000Z',
      },
    });
    // An exchange's numeric trade id; a fee as a float (older payloads).
    const numeric = eventOf(jsonOf(fillPayload({ exchange_trade_id: 12345, trade_fee: { percent: 0.001, flat_fees: [] } }), 'events'));
    expect(numeric).toMatchObject({ fill: { exchangeTradeId: '12345', fee: { percent: '0.001', flat: [] } } });
  });

  it.each([
    [{ price: undefined }, 'OrderFilled without price', 'OrderFilled without "price"'],
    [{ price: '61250.5' }, 'OrderFilled with price not a number', 'OrderFilled with "price" not a number: "61250.5"'],
    [{ amount: 0 }, 'OrderFilled with amount not above 0', 'OrderFilled with "amount" not above 0: 0'],
    [
      { trade_type: 'TradeType.RANGE' },
      'OrderFilled with trade_type TradeType.RANGE',
      'OrderFilled with "trade_type" "TradeType.RANGE", neither BUY nor SELL',
    ],
    [
      { trading_pair: 'BTCUSDT' },
      'OrderFilled with trading_pair not BASE-QUOTE',
      'OrderFilled with "trading_pair" not BASE-QUOTE: "BTCUSDT"',
    ],
    [
      { trade_fee: { percent: 'NaN' } },
      'OrderFilled with trade_fee.percent not a decimal',
      'OrderFilled with "trade_fee.percent" not a decimal: "NaN"',
    ],
  ])('a fill with %p is Malformed (%p)', (data, kind, text) => {
    const parse = () => eventOf(jsonOf(fillPayload(data), 'events'));
    expect(parse).toThrow(Malformed);
    expect(parse).toThrow(text);
    try {
      parse();
    } catch (error) {
      expect((error as Malformed).kind).toBe(kind);
    }
  });

  it('knows the order events that carry nothing to mirror, and names the others', () => {
    expect(eventOf({ type: 'BuyOrderCreated', timestamp: 1, data: {} })).toEqual({ quiet: 'BuyOrderCreated' });
    expect(() => eventOf({ type: 'FundingPaymentCompleted', timestamp: 1, data: {} })).toThrow(
      'event type "FundingPaymentCompleted" is not one this bridge mirrors (it mirrors OrderFilled)',
    );
    expect(() => jsonOf('{"type": "OrderFilled"', 'events')).toThrow('not JSON');
    expect(() => jsonOf('[1]', 'events')).toThrow('not a JSON object');
  });

  it("reads a v2 strategy's performance reports, and the empty ones of its stop", () => {
    const reports = performanceOf(
      jsonOf(
        '{"pmm_btc":{"performance":{"realized_pnl_quote":-3.65,"unrealized_pnl_quote":1.5e-05,"positions_summary":[]},"custom_info":{}},' +
          '"idle":{"performance":{},"custom_info":{}}}',
        'performance',
      ),
    );
    expect([...reports]).toEqual([['pmm_btc', { realized: -3.65, unrealized: 1.5e-5 }]]);
    expect([...performanceOf({ pmm_btc: {}, dman: {} })]).toEqual([
      ['pmm_btc', { stopped: true }],
      ['dman', { stopped: true }],
    ]);
    expect(() => performanceOf({ pmm_btc: { performance: { realized_pnl_quote: 1 } } })).toThrow(
      'performance of pmm_btc without "unrealized_pnl_quote"',
    );
  });
});

const fill = (side: 'buy' | 'sell', price: string, amount: string, minute: number, extra: Partial<Fill> = {}): Fill => ({
  orderId: `o-${minute}`,
  exchangeTradeId: `t-${minute}`,
  leverage: '1',
  pair: 'BTC-USDT',
  base: 'BTC',
  quote: 'USDT',
  side,
  price,
  amount,
  fee: { percent: '0', flat: [] },
  position: 'NIL',
  time: new Date(Date.UTC(2026, 6, 1, 12, minute)).toISOString(),
  ...extra,
});

describe('fills into trades', () => {
  it('values fees in the quote: a percent of the value, flat fees in the quote, the base at the price, another token at its rate', () => {
    const buy = fill('buy', '61500', '0.02', 1);
    expect(feeInQuote(buy, { percent: '0.001', flat: [] })).toEqual({ fee: '1.23', unpriced: [] });
    expect(feeInQuote(buy, { percent: '0', flat: [{ token: 'USDT', amount: '0.6' }] })).toEqual({ fee: '0.6', unpriced: [] });
    expect(feeInQuote(buy, { percent: '0', flat: [{ token: 'BTC', amount: '0.00002' }] })).toEqual({ fee: '1.23', unpriced: [] });
    expect(feeInQuote(buy, { percent: '0', flat: [{ token: 'BNB', amount: '0.002' }] }, { BNB: '600' })).toEqual({
      fee: '1.2',
      unpriced: [],
    });
    expect(feeInQuote(buy, { percent: '0', flat: [{ token: 'BNB', amount: '0.002' }] })).toEqual({ fee: '0', unpriced: ['BNB'] });
    // hummingbot's 28 digits, at 8 places.
    expect(feeInQuote(buy, { percent: '0', flat: [{ token: 'USDT', amount: '0.07553333333333333333333333' }] }).fee).toBe('0.07553333');
    expect(feeInQuote({ ...buy, quote: 'USDC.E' }, { percent: '0', flat: [{ token: 'USDC', amount: '0.5' }] }).fee).toBe('0.5');
  });

  it('opens a position, grows it at its average price, closes part of it as a trade of its own, then the rest', () => {
    const first = fill('buy', '60000', '0.01', 0);
    const opened = applyFill(undefined, first, '0.6');
    expect(opened.trades).toEqual([
      expect.objectContaining({
        id: tradeIdOf(first),
        side: 'buy',
        units: '0.01',
        openPrice: '60000',
        status: 'open',
        openTime: first.time,
      }),
    ]);
    const grown = applyFill(opened.position, fill('buy', '61500', '0.02', 1), '1.23');
    expect(grown.position).toMatchObject({ units: '0.03', cost: '1830', fees: '1.83' });
    expect(grown.trades[0]).toMatchObject({ id: tradeIdOf(first), units: '0.03', openPrice: '61000' });
    const reduce = fill('sell', '62000', '0.01', 2);
    const reduced = applyFill(grown.position, reduce, '0.62');
    // (62000 − 61000) × 0.01 − a third of the fees carried (0.61) − the sell's fee (0.62).
    expect(reduced.trades).toEqual([
      expect.objectContaining({
        id: tradeIdOf(reduce),
        units: '0.01',
        openPrice: '61000',
        openTime: first.time,
        status: 'closed',
        closePrice: '62000',
        closeTime: reduce.time,
        realizedPL: '8.77',
      }),
      expect.objectContaining({ id: tradeIdOf(first), status: 'open', units: '0.02', openPrice: '61000' }),
    ]);
    const last = fill('sell', '60500', '0.02', 3);
    const closed = applyFill(reduced.position, last, '1.2');
    expect(closed.position).toBeUndefined();
    expect(closed.trades).toEqual([
      expect.objectContaining({ id: tradeIdOf(first), units: '0.02', status: 'closed', closePrice: '60500', realizedPL: '-12.42' }),
    ]);
  });

  it('flips through flat: the fill closes the position and opens the other side with the rest, its fee shared by units', () => {
    const long = applyFill(undefined, fill('buy', '100', '2', 0), '0').position;
    const flip = fill('sell', '110', '3', 1);
    const flipped = applyFill(long, flip, '0.3');
    expect(flipped.trades).toEqual([
      expect.objectContaining({ status: 'closed', units: '2', realizedPL: '19.8' }),
      expect.objectContaining({ id: tradeIdOf(flip), side: 'sell', status: 'open', units: '1', openPrice: '110' }),
    ]);
    expect(flipped.position).toMatchObject({ side: 'sell', fees: '0.1', cost: '110' });
    // Short: bought back lower is a gain.
    const covered = applyFill(flipped.position, fill('buy', '105', '1', 2), '0.1');
    expect(covered.trades).toEqual([expect.objectContaining({ side: 'sell', status: 'closed', realizedPL: '4.8' })]);
  });

  it('keeps each fee as charged, in its own token, shared out with the units as the cost is; with the fills’ ids', () => {
    const first = fill('buy', '60000', '0.01', 0, { fee: { percent: '0', flat: [{ token: 'USDT', amount: '0.6' }] } });
    const grow = fill('buy', '61500', '0.02', 1, { fee: { percent: '0.001', flat: [] } });
    const reduce = fill('sell', '62000', '0.01', 2, { fee: { percent: '0', flat: [{ token: 'BNB', amount: '0.001' }] } });
    const last = fill('sell', '60500', '0.02', 3, { fee: { percent: '0', flat: [{ token: 'BNB', amount: '0.002' }] } });
    const opened = applyFill(undefined, first, '0.6');
    expect(opened.trades[0]).toMatchObject({
      market: 'spot',
      leverage: '1',
      fees: [{ amount: '0.6', currency: 'USDT', leg: 'open' }],
      orderIds: ['t-0'],
    });
    const grown = applyFill(opened.position, grow, '1.23');
    expect(grown.trades[0]).toMatchObject({ fees: [{ amount: '1.83', currency: 'USDT', leg: 'open' }], orderIds: ['t-0', 't-1'] });
    const reduced = applyFill(grown.position, reduce, '0.6');
    // A third of the units close: a third of the opening fees go with them, and the BNB fee of the fill that closed them.
    expect(reduced.trades[0]).toMatchObject({
      fees: [
        { amount: '0.61', currency: 'USDT', leg: 'open' },
        { amount: '0.001', currency: 'BNB', leg: 'close' },
      ],
      orderIds: ['t-0', 't-1', 't-2'],
    });
    expect(reduced.trades[1]).toMatchObject({ status: 'open', fees: [{ amount: '1.22', currency: 'USDT', leg: 'open' }] });
    const closed = applyFill(reduced.position, last, '1.2');
    expect(closed.trades[0]).toMatchObject({
      fees: [
        { amount: '1.22', currency: 'USDT', leg: 'open' },
        { amount: '0.002', currency: 'BNB', leg: 'close' },
      ],
      orderIds: ['t-0', 't-1', 't-3'],
    });
    // A position the bridge kept before it kept fees as charged: its trades' fees are unknown, never none.
    const { charged: _charged, market: _market, leverage: _leverage, orderIds: _ids, ...before } = grown.position!;
    expect(applyFill(before, reduce, '0.6').trades[0]).toMatchObject({ fees: null, market: null, orderIds: null });
  });

  it('keeps a position of more orders than a trade holds whole, naming its first orders (a market maker never flat)', () => {
    // 150 buys and a sell of part: every trade one the writer takes (at most MAX_ORDER_IDS ids), none refused.
    let { position, trades } = applyFill(undefined, fill('buy', '100', '1', 0), '0');
    for (let minute = 1; minute < 150; minute++) ({ position, trades } = applyFill(position, fill('buy', '100', '1', minute), '0'));
    const firstIds = Array.from({ length: MAX_ORDER_IDS }, (_, i) => `t-${i}`);
    expect(MAX_ORDER_IDS).toBe(100);
    expect(trades).toEqual([expect.objectContaining({ units: '150', orderIds: firstIds })]);
    expect(position!.orderIds).toEqual(firstIds);
    const reduced = applyFill(position, fill('sell', '101', '50', 150), '0');
    expect(reduced.trades.map((trade) => [trade.status, trade.units, trade.orderIds])).toEqual([
      ['closed', '50', firstIds],
      ['open', '100', firstIds],
    ]);
    for (const trade of [...trades, ...reduced.trades])
      expect(() => checkTrade({ ...trade, accountId: undefined }, 'hb-pmm')).not.toThrow();
  });

  it("makes a perpetual connector's fills futures trades of the perpetual's instrument, with their leverage", () => {
    const open = fill('sell', '3000', '0.5', 0, { position: 'OPEN', leverage: '10', fee: { percent: '0.0005', flat: [] } });
    const opened = applyFill(undefined, open, '0.75');
    expect(opened.trades[0]).toMatchObject({
      instrument: 'BTC_USDT_PERP',
      side: 'sell',
      market: 'futures',
      leverage: '10',
      fees: [{ amount: '0.75', currency: 'USDT', leg: 'open' }],
    });
    const closed = applyFill(opened.position, fill('buy', '2900', '0.5', 1, { position: 'CLOSE', leverage: '10' }), '0');
    expect(closed.trades[0]).toMatchObject({ instrument: 'BTC_USDT_PERP', status: 'closed', realizedPL: '49.25', market: 'futures' });
    expect(leverageOf(20)).toBe('20');
    expect(leverageOf(undefined)).toBe('1');
    expect(leverageOf(1.5)).toBeUndefined();
  });

  it("keeps a derivative's long and short apart (hedge mode); a CLOSE beyond what it knows is unmatched, never a new position", () => {
    const openLong = fill('buy', '100', '1', 0, { position: 'OPEN' });
    const openShort = fill('sell', '101', '1', 1, { position: 'OPEN' });
    expect([bookOf(openLong), bookOf(openShort)]).toEqual(['BTC-USDT:long', 'BTC-USDT:short']);
    const closeLong = fill('sell', '102', '1.5', 2, { position: 'CLOSE' });
    expect(bookOf(closeLong)).toBe('BTC-USDT:long');
    const long = applyFill(undefined, openLong, '0').position;
    expect(applyFill(long, closeLong, '0')).toEqual({
      position: undefined,
      trades: [expect.objectContaining({ status: 'closed', units: '1', realizedPL: '2' })],
      unmatched: '0.5',
    });
    expect(applyFill(undefined, closeLong, '0')).toEqual({ position: undefined, trades: [], unmatched: '1.5' });
  });

  it("is PositionHold's realized P&L less the closed units' fees (hummingbot's own figure is gross)", () => {
    // A literal port of PositionHold._process_order (hummingbot 2bfaccc, strategy_v2/executors/
    // executor_orchestrator.py), with add_orders_from_executor's `cum_fees_quote += cumulative_fee_paid_quote`.
    const over = (a: string, b: string) => trimDecimal(divideDecimals(a, b, 24));
    const hold = { net: '0', avg: '0', realized: '0', cumFees: '0' };
    const abs = (value: string) => value.replace(/^-/, '');
    const processOrder = (isBuy: boolean, amountBase: string, amountQuote: string, fee: string) => {
      hold.cumFees = sumDecimals([hold.cumFees, fee]);
      const orderPrice = over(amountQuote, amountBase);
      const sign = compareDecimals(hold.net, '0');
      if ((sign > 0 && !isBuy) || (sign < 0 && isBuy)) {
        const matched = compareDecimals(amountBase, abs(hold.net)) <= 0 ? amountBase : abs(hold.net);
        const gain = sign > 0 ? sumDecimals([orderPrice, negateDecimal(hold.avg)]) : sumDecimals([hold.avg, negateDecimal(orderPrice)]);
        hold.realized = sumDecimals([hold.realized, multiplyDecimals(gain, matched)]);
        const excess = sumDecimals([amountBase, negateDecimal(matched)]);
        if (compareDecimals(excess, '0') > 0) [hold.net, hold.avg] = [isBuy ? excess : negateDecimal(excess), orderPrice];
        else if (compareDecimals(matched, abs(hold.net)) === 0) [hold.net, hold.avg] = ['0', '0'];
        else hold.net = sign > 0 ? sumDecimals([hold.net, negateDecimal(matched)]) : sumDecimals([hold.net, matched]);
      } else if (sign === 0) [hold.net, hold.avg] = [isBuy ? amountBase : negateDecimal(amountBase), orderPrice];
      else {
        const size = sumDecimals([abs(hold.net), amountBase]);
        hold.avg = over(sumDecimals([multiplyDecimals(hold.avg, abs(hold.net)), amountQuote]), size);
        hold.net = isBuy ? size : negateDecimal(size);
      }
    };
    let position: Position | undefined;
    const bridge: string[] = [];
    const both = (side: 'buy' | 'sell', price: string, amount: string, fee: string, minute: number) => {
      processOrder(side === 'buy', amount, multiplyDecimals(price, amount), fee);
      const applied = applyFill(position, fill(side, price, amount, minute), fee);
      position = applied.position;
      bridge.push(...applied.trades.filter((trade) => trade.status === 'closed').map((trade) => trade.realizedPL));
    };
    both('buy', '60000', '0.01', '0.6', 0);
    both('buy', '61500', '0.02', '1.23', 1);
    both('sell', '62000', '0.01', '0.62', 2);
    // Reduced by a third: hummingbot realizes (62000 − 61000) × 0.01 = 10 gross; the bridge less the third of the
    // opening fees the units closed carry (0.61) and the sell's fee (0.62).
    expect([hold.realized, sumDecimals(bridge)]).toEqual(['10', '8.77']);
    both('sell', '60500', '0.02', '1.2', 3);
    // Flat: the bridge's realized P&L is hummingbot's less every fee it counted (cum_fees_quote).
    expect(hold).toMatchObject({ net: '0', realized: '0', cumFees: '3.65' });
    expect(sumDecimals(bridge)).toBe(sumDecimals([hold.realized, negateDecimal(hold.cumFees)]));
    expect(sumDecimals(bridge)).toBe('-3.65');
  });

  const arbitraryFills = fc.array(
    fc.record({
      buy: fc.boolean(),
      // Prices and amounts with the places exchanges give them, fees of up to 28 digits as hummingbot's Decimals.
      price: fc
        .integer({ min: 1, max: 10_000_000 })
        .map((cents) => trimDecimal(`${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`)),
      amount: fc.integer({ min: 1, max: 5_000_000 }).map((sats) => trimDecimal((sats / 1e6).toFixed(6))),
      fee: fc.integer({ min: 0, max: 10_000 }).map((micro) => trimDecimal((micro / 1e6).toFixed(6))),
    }),
    { minLength: 1, maxLength: 25 },
  );

  it('a round trip realizes exactly its proceeds less its costs and fees, whatever its fills (property)', () => {
    fc.assert(
      fc.property(arbitraryFills, (fills) => {
        let position: Position | undefined;
        const realized: string[] = [];
        const flows: string[] = [];
        fills.forEach((input, minute) => {
          const applied = applyFill(position, fill(input.buy ? 'buy' : 'sell', input.price, input.amount, minute), input.fee);
          position = applied.position;
          realized.push(...applied.trades.filter((trade) => trade.status === 'closed').map((trade) => trade.realizedPL));
          const value = multiplyDecimals(input.price, input.amount);
          flows.push(input.buy ? negateDecimal(value) : value, negateDecimal(input.fee));
          for (const trade of applied.trades) {
            expect(compareDecimals(trade.units, '0')).toBeGreaterThan(0);
            expect(compareDecimals(trade.openPrice, '0')).toBeGreaterThan(0);
          }
        });
        // Taken flat at the last price: the whole is realized.
        if (position) {
          const last = fills[fills.length - 1];
          const close = fill(position.side === 'buy' ? 'sell' : 'buy', last.price, position.units, fills.length);
          const applied = applyFill(position, close, '0');
          expect(applied.position).toBeUndefined();
          realized.push(...applied.trades.map((trade) => trade.realizedPL));
          const value = multiplyDecimals(last.price, position.units);
          flows.push(position.side === 'buy' ? value : negateDecimal(value));
        }
        expect(compareDecimals(sumDecimals(['0', ...realized]), sumDecimals(flows))).toBe(0);
      }),
      { numRuns: propertyRuns(300) },
    );
  });
});

describe('replays', () => {
  it('a key seen is seen; a new key over an hour older than the newest fill is taken as mirrored already (old), within the hour it is new', () => {
    const account = emptyAccount();
    const t = Date.UTC(2026, 6, 1, 12);
    expect(replayed(account, 'a|1', t)).toBe(false);
    expect(replayed(account, 'a|1', t)).toBe('seen');
    expect(replayed(account, 'b|2', t - 3_601_000)).toBe('old');
    expect(account.seen['b|2']).toBeUndefined();
    expect(replayed(account, 'c|3', t - 3_599_000)).toBe(false);
    expect(replayed(account, 'c|3', t - 3_599_000)).toBe('seen');
    // A newer fill moves the window: keys that left it are dropped, and what is older than it is old.
    expect(replayed(account, 'd|4', t + REPLAY_WINDOW_MS)).toBe(false);
    expect(Object.keys(account.seen).sort()).toEqual(['a|1', 'd|4']);
    expect(replayed(account, 'c|3', t - 3_599_000)).toBe('old');
  });
});

describe("hummingbot's trades CSV", () => {
  const header = TRADES_CSV_COLUMNS.join(',');
  const row =
    '7000001,conf_pmm_1.yml,pure_market_making,binance_paper_trade,BTC-USDT,BTC,USDT,1785000000123,buy-BTC-USDT-1785000000001,BUY,LIMIT,' +
    `61250.50,1E-3,1,"{'fee_type': 'AddedToCost', 'percent': '0', 'percent_token': None, 'flat_fees': [{'token': 'BTC', 'amount': '0.0000010'}]}",0.0612505,NIL,00:00:02`;

  it('reads a row as pandas writes it: Decimals exact, the fee a Python literal, the time in ms', () => {
    expect(csvFillOf(row, headerOf(header))).toEqual({
      orderId: 'buy-BTC-USDT-1785000000001',
      exchangeTradeId: '7000001',
      pair: 'BTC-USDT',
      base: 'BTC',
      quote: 'USDT',
      side: 'buy',
      price: '61250.5',
      amount: '0.001',
      fee: { percent: '0', flat: [{ token: 'BTC', amount: '0.000001' }] },
      position: 'NIL',
      leverage: '1',
      time: '2026-07-25T17:20:00.123Z',
    });
  });

  it('splits quoted fields and reads Python literals', () => {
    expect(csvFields('a,"b,c","d ""e""",')).toEqual(['a', 'b,c', 'd "e"', '']);
    expect(csvFields('"open')).toBeUndefined();
    expect(pythonLiteral("{'a': None, 'b': [True, False], 'c': 'it\\'s', \"d\": (1, 2.5,), 'e': {}}")).toEqual({
      a: null,
      b: [true, false],
      c: "it's",
      d: ['1', '2.5'],
      e: {},
    });
    expect(() => pythonLiteral("{'a': }")).toThrow(SyntaxError);
    expect(pythonLiteral("['caf\\xe9\\n', '\\u00e9', \"x\\\"y\", (1,), (), [], {'k': 'v'}]")).toEqual([
      'café\n',
      'é',
      'x"y',
      ['1'],
      [],
      [],
      { k: 'v' },
    ]);
    for (const bad of ["{'a': 1,}", "'open", "'\\q'", "'\\x4'", '[,]', "{'a': 1} 2", '', '{"a": @}'])
      expect(() => pythonLiteral(bad)).toThrow(SyntaxError);
  });

  it('names what a header or a row lacks', () => {
    expect(() => headerOf('exchange_trade_id,symbol')).toThrow('missing timestamp, order_id, trade_type, price, amount, trade_fee');
    expect(() => csvFillOf('1,2', headerOf(header))).toThrow('a row of 2 fields, and the header names 18');
    expect(() => csvFillOf(row.replace('61250.50', 'NaN'), headerOf(header))).toThrow('a row with price not a decimal above 0: "NaN"');
  });
});

describe('configuration', () => {
  it('maps instances to accounts, with defaults for those it does not list', () => {
    const config = configOf(
      {
        mqtt: 'mqtt://10.0.0.5:1883',
        instances: {
          'pmm-btc': { account: 'hb-pmm', currency: 'USDT', broker: 'binance', environment: 'paper', controllers: { c1: 'BTC-USDT' } },
        },
        feeRates: { bnb: '600' },
      },
      'hb.json',
    );
    expect(profileOf(config, 'pmm-btc')).toEqual({
      account: 'hb-pmm',
      name: 'hummingbot pmm-btc',
      currency: 'USDT',
      broker: 'binance',
      environment: 'paper',
      controllers: { c1: 'BTC-USDT' },
    });
    expect(profileOf(config, 'other')).toEqual({
      account: 'other',
      name: 'hummingbot other',
      currency: undefined,
      broker: 'hummingbot',
      environment: 'live',
      controllers: {},
    });
    expect(config.feeRates).toEqual({ BNB: '600' });
  });

  it.each([
    [{ password: 'x' }, 'hb.json: give the password as "passwordFile" or "passwordEnv", not in the file itself'],
    [{ mqttHost: 'x' }, 'hb.json: unknown key "mqttHost"'],
    [{ instances: { 'a b': {} } }, 'hb.json: instances["a b"].account must be 1–64 letters'],
    [
      { instances: { a: { account: 'x' }, b: { account: 'x' } } },
      'hb.json: instances["b"]: account x is given to instance a too; one account each',
    ],
    [{ instances: { a: { currency: 'usdt' } } }, 'hb.json: instances["a"].currency must be a currency code such as "USDT"'],
    [
      { instances: { a: { controllers: { c: 'BTCUSDT' } } } },
      'hb.json: instances["a"].controllers.c must be a trading pair such as "BTC-USDT"',
    ],
    [{ feeRates: { BNB: 600 } }, 'hb.json: feeRates.BNB must be a decimal string such as "612.5"'],
  ])('refuses %p', (input, message) => expect(() => configOf(input, 'hb.json')).toThrow(message));
});
