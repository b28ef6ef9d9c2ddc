/**
 * The dashboard's pure figures and chart shaping (dashboard/src/format.ts, chart-data.ts): how many places a column
 * of amounts shows, rounding on the digits, and the x window a chart spans. The values are those a freqtrade bot's
 * floats give (`0.30000000000000004`, `-3.8249999999999997`), beside the API's own exact strings.
 */
import fc from 'fast-check';
import { chartWindow, isolated, withGaps } from '../../dashboard/src/chart-data';
import { columnPlaces, grouped, MAX_PLACES, placesNeeded, pricePlaces, roundHalfEven } from '../../dashboard/src/format';
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
    const decimal = fc
      .tuple(fc.boolean(), fc.bigInt({ min: 0n, max: 10n ** 30n }), fc.integer({ min: 0, max: 20 }))
      .map(([negative, units, scale]) => {
        const digits = units.toString().padStart(scale + 1, '0');
        const point = digits.length - scale;
        return `${negative ? '-' : ''}${digits.slice(0, point)}${scale ? `.${digits.slice(point)}` : ''}`;
      });
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
});
