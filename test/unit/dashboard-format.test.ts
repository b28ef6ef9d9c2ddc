/**
 * The dashboard's pure figures and chart shaping (dashboard/src/format.ts, chart-data.ts): money written as its own
 * currency is (a fiat currency at its ISO 4217 minor units, a crypto at the places its values need), how many places a
 * column of amounts shows, rounding on the digits, a chart's ticks, and the x window a chart spans. The values are
 * those a freqtrade bot's floats give (`0.30000000000000004`, `-3.8249999999999997`), beside the API's own exact strings.
 */
import fc from 'fast-check';
import { chartWindow, isolated, sharedZeroRanges, withGaps } from '../../dashboard/src/chart-data';
import {
  columnPlaces,
  currencyPlaces,
  grouped,
  MAX_PLACES,
  minorUnits,
  moneyFigure,
  moneyText,
  placesByCurrency,
  placesNeeded,
  pricePlaces,
  roundHalfEven,
  tickText,
} from '../../dashboard/src/format';
import { divideDecimals } from '@trading-bot-api/core/decimal';
import { propertyRuns } from '../kit/property-runs';

describe('the places a column of amounts shows', () => {
  it('are the most any value needs: trailing zeros no value needs are left out', () => {
    expect(placesNeeded('10.50')).toBe(1);
    expect(placesNeeded('10.00')).toBe(0);
    expect(placesNeeded('7')).toBe(0);
    expect(placesNeeded(null)).toBe(0);
    expect(columnPlaces(['1000.5', '990.75', '0'])).toBe(2);
    expect(columnPlaces(['87105.3310', '87062.9100'])).toBe(3);
    expect(columnPlaces(['10019.00', '0.00'])).toBe(0);
    expect(columnPlaces([undefined, null])).toBe(0);
  });

  it('are at most 8, and a float’s noise past 8 places is not a need: a value needs its places once rounded to 8', () => {
    expect(MAX_PLACES).toBe(8);
    expect(columnPlaces(['991.4000000000001', '69.00000000000001'])).toBe(1);
    expect(columnPlaces(['0.30000000000000004', '69.0'])).toBe(1);
    expect(columnPlaces(['-3.8249999999999997', '1.5'])).toBe(3);
    expect(columnPlaces(['1014.4662374999999', '1'])).toBe(7);
    expect(columnPlaces(['0.123456789123', '1'])).toBe(8);
    expect(placesNeeded('0.000000001')).toBe(0);
    // The API's average of such trades, padded to their 16 places: 7 places are needed, not 16.
    expect(columnPlaces(['-2.3957525000000000'])).toBe(7);
  });

  it('of prices keep each quote as written (a quote has its precision), but noise past 8 places counts as rounded', () => {
    expect(pricePlaces(['1.08420', '1.08610'])).toBe(5);
    expect(pricePlaces(['2385.10', null])).toBe(2);
    expect(pricePlaces(['0.30000000000000004'])).toBe(1);
    expect(pricePlaces(['61250.123456789', '61250.5'])).toBe(8);
    expect(pricePlaces(['61250.50000000001'])).toBe(1);
    expect(pricePlaces(['0.1', '0.30000000000000004', '0.250'])).toBe(3);
  });
});

describe('rounding on the digits', () => {
  it('is half-even: a tie goes to the even digit, anything past the tie rounds away from zero', () => {
    expect(roundHalfEven('0.125', 2)).toBe('0.12');
    expect(roundHalfEven('0.135', 2)).toBe('0.14');
    expect(roundHalfEven('0.1250000001', 2)).toBe('0.13');
    expect(roundHalfEven('-0.125', 2)).toBe('-0.12');
    expect(roundHalfEven('-0.135', 2)).toBe('-0.14');
    expect(roundHalfEven('2.5', 0)).toBe('2');
    expect(roundHalfEven('3.5', 0)).toBe('4');
  });

  it('carries through the whole number, past any number of nines and beyond a double', () => {
    expect(roundHalfEven('1014.4662374999999', 8)).toBe('1014.46623750');
    expect(roundHalfEven('999.999999999', 8)).toBe('1000.00000000');
    expect(roundHalfEven('-9.999999995', 8)).toBe('-10.00000000');
    expect(roundHalfEven('98765432109876543210987654.123456789', 8)).toBe('98765432109876543210987654.12345679');
    expect(roundHalfEven('0.30000000000000004', 8)).toBe('0.30000000');
    expect(roundHalfEven('-3.8249999999999997', 8)).toBe('-3.82500000');
  });

  it('pads a value with fewer places, and never shows a minus on a zero', () => {
    expect(roundHalfEven('69', 2)).toBe('69.00');
    expect(roundHalfEven('-1.5', 3)).toBe('-1.500');
    expect(roundHalfEven('-0.000000001', 8)).toBe('0.00000000');
    expect(roundHalfEven('-0.000000005', 8)).toBe('0.00000000');
    expect(roundHalfEven('-0.000000015', 8)).toBe('-0.00000002');
    expect(roundHalfEven('-0.00', 1)).toBe('0.0');
  });

  it('agrees with the API’s own half-even division by 1, for any decimal and any number of places', () => {
    fc.assert(
      fc.property(decimal, fc.integer({ min: 0, max: 12 }), (value, places) => {
        expect(roundHalfEven(value, places)).toBe(divideDecimals(value, '1', places));
      }),
      { numRuns: propertyRuns(2_000) },
    );
  });
});

describe('an amount as shown', () => {
  it('is grouped by thousands and written to the column’s places', () => {
    expect(grouped('-107926.5631', 6)).toBe('-107,926.563100');
    expect(grouped('-107926.5631', 2)).toBe('-107,926.56');
    expect(grouped('991.4000000000001', columnPlaces(['991.4000000000001', '69.00000000000001']))).toBe('991.4');
    expect(grouped('69.00000000000001', columnPlaces(['991.4000000000001', '69.00000000000001']))).toBe('69.0');
    expect(grouped('1000', 0)).toBe('1,000');
    expect(grouped('999999.995', 2)).toBe('1,000,000.00');
  });

  it('without places, shows the places it needs, at most 8', () => {
    expect(grouped('87062.9100')).toBe('87,062.91');
    expect(grouped('1014.4662374999999')).toBe('1,014.4662375');
    expect(grouped('0.30000000000000004')).toBe('0.3');
    expect(grouped('12')).toBe('12');
  });
});

/** Any exact decimal string: a sign, up to 31 digits, up to 20 of them after the point. */
const decimal = fc
  .tuple(fc.boolean(), fc.bigInt({ min: 0n, max: 10n ** 30n }), fc.integer({ min: 0, max: 20 }))
  .map(([negative, units, scale]) => {
    const digits = units.toString().padStart(scale + 1, '0');
    const point = digits.length - scale;
    return `${negative ? '-' : ''}${digits.slice(0, point)}${scale ? `.${digits.slice(point)}` : ''}`;
  });

/** The places a crypto's value needs, by the API's own rounding: rounded half-even to 8, trailing zeros left out. */
const needed = (value: string) => (divideDecimals(value, '1', 8).split('.')[1] ?? '').replace(/0+$/, '').length;

describe('money, written as its own currency is', () => {
  it('knows a fiat currency by its ISO 4217 code, and its minor units; anything else is a crypto', () => {
    expect([minorUnits('USD'), minorUnits('EUR'), minorUnits('GBP'), minorUnits('CHF')]).toEqual([2, 2, 2, 2]);
    expect([minorUnits('JPY'), minorUnits('KRW'), minorUnits('KWD'), minorUnits('BHD'), minorUnits('CLF')]).toEqual([0, 0, 3, 3, 4]);
    expect([minorUnits('USDT'), minorUnits('BTC'), minorUnits('ETH'), minorUnits('XAU'), minorUnits(''), minorUnits(undefined)]).toEqual(
      new Array(6).fill(undefined),
    );
  });

  it('shows fiat at its minor units, never dropping cents nor padding past them: 24,728.80 USD, 0.00 USD', () => {
    expect(moneyText('24728.80', 'USD')).toBe('24,728.80 USD');
    expect(moneyText('24728.8', 'USD')).toBe('24,728.80 USD');
    expect(moneyText('101628.7200000', 'EUR')).toBe('101,628.72 EUR');
    expect(moneyText('0', 'USD')).toBe('0.00 USD');
    expect(moneyText('-31.0666', 'USD')).toBe('-31.07 USD');
    expect(moneyText('-0.001', 'USD')).toBe('0.00 USD');
    expect(moneyText('1500.5', 'JPY')).toBe('1,500 JPY');
    expect(moneyText('1501.5', 'JPY')).toBe('1,502 JPY');
    expect(moneyText('12.5', 'KWD')).toBe('12.500 KWD');
    // A column's places do not move a fiat figure: its currency decides.
    expect(moneyFigure('87105.3310', 'EUR', 7)).toBe('87,105.33');
    expect(moneyFigure('87105.3310', 'EUR', 0)).toBe('87,105.33');
  });

  it('shows a crypto at the places its value carries, at most 8: 1,014.46623791 USDT, 0.00000001 USDT, 0 USDT', () => {
    expect(moneyText('1014.46623791', 'USDT')).toBe('1,014.46623791 USDT');
    expect(moneyText('0.00000001', 'USDT')).toBe('0.00000001 USDT');
    expect(moneyText('0', 'USDT')).toBe('0 USDT');
    expect(moneyText('0.0000000', 'USDT')).toBe('0 USDT');
    expect(moneyText('-5.87499999', 'USDT')).toBe('-5.87499999 USDT');
    expect(moneyText('1014.4662374999999', 'USDT')).toBe('1,014.4662375 USDT');
    expect(moneyText('0.000000005', 'BTC')).toBe('0 BTC');
    expect(moneyText('0.000000015', 'BTC')).toBe('0.00000002 BTC');
    // In a column, padded to its currency's places there, as given.
    expect(moneyFigure('2.435', 'USDT', 8)).toBe('2.43500000');
    expect(moneyText('12.5', undefined)).toBe('12.5');
  });

  it('lines a column up per currency: a USDT amount pads no fiat one, a fiat one keeps its minor units', () => {
    const places = placesByCurrency([
      ['EUR', '101628.72'],
      ['USDT', '1014.46623791'],
      ['USDT', '0'],
      ['USD', '24728.8'],
      ['BTC', '0.5'],
      ['JPY', '1500'],
      [undefined, '1.25'],
    ]);
    expect(['EUR', 'USD', 'USDT', 'BTC', 'JPY', undefined, 'GBP', 'ETH'].map(places)).toEqual([2, 2, 8, 1, 0, 2, 2, 0]);
    expect(currencyPlaces('USDT', ['1.5', '0.3000000000000000444'])).toBe(1);
    expect(currencyPlaces('USD', ['1.5', '0.123'])).toBe(2);
  });

  it('writes any amount as its exact decimal rounded half-even to its currency’s places, grouped by thousands', () => {
    const currency = fc.constantFrom('USD', 'EUR', 'JPY', 'KWD', 'CLF', 'USDT', 'BTC', 'ETH', undefined);
    fc.assert(
      fc.property(decimal, currency, (value, code) => {
        const shown = moneyFigure(value, code);
        const places = minorUnits(code) ?? needed(value);
        expect(shown).toMatch(/^-?\d{1,3}(,\d{3})*(\.\d+)?$/);
        expect(shown.replace(/,/g, '')).toBe(divideDecimals(value, '1', places));
      }),
      { numRuns: propertyRuns(2_000) },
    );
  });

  it('in a column of several currencies, writes each at its currency’s places: a crypto at the most its values there need, never more', () => {
    const column = fc.array(fc.tuple(fc.constantFrom('USD', 'JPY', 'USDT', 'BTC'), decimal), { minLength: 1, maxLength: 12 });
    fc.assert(
      fc.property(column, (entries) => {
        const places = placesByCurrency(entries);
        for (const [code, value] of entries) {
          const most = Math.max(...entries.filter(([other]) => other === code).map(([, other]) => needed(other)));
          const written = minorUnits(code) ?? most;
          expect(moneyFigure(value, code, places(code)).replace(/,/g, '')).toBe(divideDecimals(value, '1', written));
        }
      }),
      { numRuns: propertyRuns(500) },
    );
  });
});

describe('a chart axis’s ticks', () => {
  it('have the places of their step, a fiat currency’s fractional ticks at its minor units, never a float’s noise', () => {
    expect(tickText(24728.5, 0.5, 'USD')).toBe('24,728.50');
    expect(tickText(24750, 50, 'USD')).toBe('24,750');
    expect(tickText(1500, 0.5, 'JPY')).toBe('1,500');
    expect(tickText(1014.4000000000001, 0.2, 'USDT')).toBe('1,014.4');
    expect(tickText(0.30000000000000004, 0.1, 'USDT')).toBe('0.3');
    expect(tickText(0.25, 0.05, 'USDT')).toBe('0.25');
    expect(tickText(2e-8, 1e-8, 'USDT')).toBe('0.00000002');
    expect(tickText(-1e-17, 1e-8, 'USDT')).toBe('0.00000000');
    expect(tickText(-2, 2, 'EUR')).toBe('-2');
  });
});

describe('a chart’s data', () => {
  it('breaks a line where a bucket has no point, and names the points with nothing beside them', () => {
    const day = 86_400;
    const { data, gaps } = withGaps([0, day, 4 * day, 6 * day], [[1, 2, 3, 4]], day);
    expect(data).toEqual([
      [0, day, 2 * day, 4 * day, 5 * day, 6 * day],
      [1, 2, null, 3, null, 4],
    ]);
    expect(gaps).toEqual([2.5 * day, 5 * day]);
    expect(isolated(data[1] as (number | null)[])).toEqual([3, 5]);
    expect(isolated([7])).toEqual([0]);
    expect(isolated([])).toEqual([]);
    expect(isolated([1, 2, null, 3])).toEqual([3]);
  });

  it('spans the API’s window from its start to now, not to the end of the current interval', () => {
    const now = Date.parse('2026-11-23T10:15:00Z');
    const window = { from: '2026-08-26T00:00:00.000Z', to: '2026-11-24T00:00:00.000Z' };
    expect(chartWindow(window, '2026-11-23T10:00:00.000Z', now)).toEqual([Date.parse(window.from) / 1000, now / 1000]);
    // No points, or one: the same window (uPlot, left to itself, spreads one point over years).
    expect(chartWindow(window, undefined, now)).toEqual([Date.parse(window.from) / 1000, now / 1000]);
  });

  it('never ends before its newest point (a browser clock behind the bot’s), nor past the API’s end, nor at its start', () => {
    const window = { from: '2026-11-16T11:00:00.000Z', to: '2026-11-23T11:00:00.000Z' };
    const now = Date.parse('2026-11-23T10:15:00Z');
    expect(chartWindow(window, '2026-11-23T10:20:00.000Z', now)[1]).toBe(Date.parse('2026-11-23T10:20:00Z') / 1000);
    expect(chartWindow(window, undefined, Date.parse('2026-12-01T00:00:00Z'))[1]).toBe(Date.parse(window.to) / 1000);
    expect(chartWindow(window, undefined, Date.parse('2026-11-01T00:00:00Z'))).toEqual([
      Date.parse(window.from) / 1000,
      Date.parse(window.to) / 1000,
    ]);
  });

  it('puts both P&L axes’ zero at the same height, each covering its values', () => {
    const height = ([low, high]: [number, number]) => -low / (high - low);
    const value = fc.integer({ min: -1e8, max: 1e8 }).map((cents) => cents / 100);
    fc.assert(
      fc.property(fc.array(value, { maxLength: 40 }), fc.array(value, { maxLength: 40 }), (a, b) => {
        const [ra, rb] = sharedZeroRanges(a, b);
        expect(height(ra)).toBeCloseTo(height(rb), 9);
        for (const [values, [low, high]] of [
          [a, ra],
          [b, rb],
        ] as const) {
          expect(low).toBeLessThanOrEqual(Math.min(0, ...values));
          expect(high).toBeGreaterThanOrEqual(Math.max(0, ...values));
          expect(high).toBeGreaterThan(low);
        }
      }),
    );
    // The issue's case: bars between −590 and +120, a running total only above zero.
    const [bars, total] = sharedZeroRanges([-590, 120], [10, 900]);
    expect(height(bars)).toBeCloseTo(height(total), 9);
    expect(total[0]).toBeLessThan(0);
  });
});
