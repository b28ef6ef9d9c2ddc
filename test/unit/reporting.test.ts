/**
 * The reporting currency's rules as logic (packages/core/src/reporting.ts): routes over the feeds' prices and the
 * stated pegs, the rate and its time, the rounding of a converted NAV, and an account no price converts listed as
 * unvalued; a property: a route's rate times its way back is 1, to the rounding of an inverted price.
 */
import fc from 'fast-check';
import { compareDecimals, multiplyDecimals, negateDecimal, sumDecimals } from '@trading-bot-api/core/decimal';
import { type RatesEntry, reportingOf, routeOf } from '@trading-bot-api/core/reporting';
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
