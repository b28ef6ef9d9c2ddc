/**
 * The reporting currency's rules as logic (packages/core/src/reporting.ts): routes over the feeds' prices and the
 * stated pegs, the rate and its time, the rounding of a converted NAV, and an account no price converts listed as
 * unvalued; a series valued at each point's own time; a property: a route's rate times its way back is 1, to the
 * rounding of an inverted price.
 */
import fc from 'fast-check';
import { compareDecimals, multiplyDecimals, negateDecimal, sumDecimals } from '@trading-bot-api/core/decimal';
import { type RatesAt, type RatesEntry, reportingOf, reportingOfSeries, routeOf } from '@trading-bot-api/core/reporting';
import { propertyRuns } from '../kit/property-runs';

const binance = (time: string, prices: [string, string, string][]): RatesEntry => ({
  exchange: 'binance',
  time,
  prices: prices.map(([base, quote, price]) => ({ base, quote, price })),
});
const OLD = '2026-11-28T08:00:00.000Z';
const NEW = '2026-11-28T09:00:00.000Z';

it('converts through a stablecoin, states each rate, and the time of the oldest price used', () => {
  const rates = [binance(OLD, [['EUR', 'USDT', '1.08']]), binance(NEW, [['BTC', 'USDT', '60000']])];
  const found = reportingOf(
    'USD',
    [
      { accountId: 'a', currency: 'EUR', nav: '100.005' },
      { accountId: 'b', currency: 'BTC', nav: '0.5' },
      { accountId: 'c', currency: 'USD', nav: '7' },
      { accountId: 'd', currency: 'GBP', nav: '9' },
    ],
    rates,
  );
  expect(found).toEqual({
    currency: 'USD',
    total: '30115.0054',
    accounts: [
      {
        accountId: 'a',
        nav: '108.0054',
        rate: '1.08',
        route: [
          { from: 'EUR', to: 'USDT', rate: '1.08', source: 'binance:EURUSDT' },
          { from: 'USDT', to: 'USD', rate: '1', source: 'peg' },
        ],
        asOf: OLD,
      },
      expect.objectContaining({ accountId: 'b', nav: '30000', rate: '60000', asOf: NEW }),
      { accountId: 'c', nav: '7', rate: '1', route: [], asOf: null },
      { accountId: 'd', unvalued: true, reason: 'no price converts GBP to USD: no exchange feed reads a market between them' },
    ],
  });
});

it('reads a market backwards at 1/p to 18 places, and rounds a converted NAV half-even to 8 places', () => {
  const [account] = reportingOf('EUR', [{ accountId: 'a', currency: 'USDT', nav: '1' }], [binance(NEW, [['EUR', 'USDT', '3']])]).accounts;
  expect(account).toEqual(
    expect.objectContaining({
      rate: '0.333333333333333333',
      nav: '0.33333333',
      route: [expect.objectContaining({ source: 'binance:EURUSDT inverted' })],
    }),
  );
});

it('takes the fewest conversions, and of equally short routes the newer prices', () => {
  const rates = [
    { ...binance(OLD, [['ETH', 'USDT', '3000']]), exchange: 'old' },
    binance(NEW, [
      ['ETH', 'USDT', '3001'],
      ['ETH', 'BTC', '0.05'],
      ['BTC', 'USDT', '60000'],
    ]),
  ];
  expect(routeOf('ETH', 'USDT', rates)?.map((hop) => hop.source)).toEqual(['binance:ETHUSDT']);
});

it('a route there and back multiplies to 1, to the rounding of an inverted price', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 10 ** 9 }), fc.integer({ min: 0, max: 8 }), (units, places) => {
      const price = (units / 10 ** places).toFixed(places);
      const rates = [binance(NEW, [['AAA', 'USDT', price]])];
      const there = reportingOf('USDT', [{ accountId: 'a', currency: 'AAA', nav: '1' }], rates).accounts[0] as { rate: string };
      const back = reportingOf('AAA', [{ accountId: 'a', currency: 'USDT', nav: '1' }], rates).accounts[0] as { rate: string };
      const gap = sumDecimals([multiplyDecimals(there.rate, back.rate), '-1']);
      const size = compareDecimals(gap, '0') < 0 ? negateDecimal(gap) : gap;
      expect(compareDecimals(size, multiplyDecimals(price, '0.000000000000000001'))).toBeLessThanOrEqual(0);
    }),
    { numRuns: propertyRuns(100) },
  );
});

describe('an equity series in the reporting currency: each point at the prices of its own time', () => {
  const at = (feed: string, start: string, time: string, price: string): RatesAt => ({
    ...binance(time, [['EUR', 'USDT', price]]),
    feed,
    start,
  });
  const H = (hour: number) => `2026-11-28T${String(hour).padStart(2, '0')}:00:00.000Z`;
  const point = (hour: number, nav: string) => ({ start: H(hour), nav });

  it("values each point at its interval's last prices, carries a feed's last earlier prices, never uses later ones", () => {
    const history = [at('bn', H(7), '2026-11-28T07:59:00.000Z', '1.05'), at('bn', H(9), '2026-11-28T09:30:00.000Z', '1.1')];
    const found = reportingOfSeries('USD', 'EUR', [point(6, '100'), point(7, '100'), point(8, '100'), point(9, '100')], history);
    // Before any price: unvalued, not valued at a later rate.
    expect(found[0]).toEqual({
      currency: 'USD',
      unvalued: true,
      reason: "no price converted EUR to USD by the end of this point's interval: no exchange feed had read a market between them",
    });
    expect(found.slice(1).map((each) => ('nav' in each ? [each.nav, each.rate, each.asOf] : each))).toEqual([
      ['105', '1.05', '2026-11-28T07:59:00.000Z'],
      // Hour 8 had no sync: hour 7's prices, the last read by its end (not hour 9's).
      ['105', '1.05', '2026-11-28T07:59:00.000Z'],
      ['110', '1.1', '2026-11-28T09:30:00.000Z'],
    ]);
    expect(found[3]).toEqual({
      currency: 'USD',
      nav: '110',
      rate: '1.1',
      route: [
        { from: 'EUR', to: 'USDT', rate: '1.1', source: 'binance:EURUSDT' },
        { from: 'USDT', to: 'USD', rate: '1', source: 'peg' },
      ],
      asOf: '2026-11-28T09:30:00.000Z',
    });
  });

  it("keeps each feed's own last prices: one feed's new prices do not hide another's", () => {
    const other = { ...binance('2026-11-28T08:10:00.000Z', [['GBP', 'USDT', '1.27']]), feed: 'bn-2', start: H(8) };
    const found = reportingOfSeries('USD', 'EUR', [point(8, '10')], [at('bn', H(7), '2026-11-28T07:10:00.000Z', '1.05'), other]);
    expect(found[0]).toEqual(expect.objectContaining({ nav: '10.5', asOf: '2026-11-28T07:10:00.000Z' }));
  });

  it('an account in the reporting currency is itself at every point, with or without prices', () => {
    expect(reportingOfSeries('USD', 'USD', [point(1, '3.5')], [])).toEqual([
      { currency: 'USD', nav: '3.5', rate: '1', route: [], asOf: null },
    ]);
  });
});
