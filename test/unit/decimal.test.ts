import fc from 'fast-check';
import {
  compareDecimals,
  decimalScale,
  divideDecimals,
  formatDecimal,
  isDecimal,
  negateDecimal,
  padDecimal,
  placesForSignificant,
  roundDecimal,
  sumDecimals,
  trimDecimal,
} from '@trading-bot-api/core/decimal';

describe('sumDecimals', () => {
  it('keeps the largest scale of its inputs', () => {
    expect(sumDecimals(['1.50', '2.125'])).toBe('3.625');
    expect(sumDecimals(['10.00'])).toBe('10.00');
    expect(sumDecimals(['10234.5600', '0.0001'])).toBe('10234.5601');
  });

  it('adds negatives and crosses zero without a sign on zero', () => {
    expect(sumDecimals(['-1.25', '1.25'])).toBe('0.00');
    expect(sumDecimals(['-0.50', '0.25'])).toBe('-0.25');
    expect(sumDecimals(['-100', '-0.001'])).toBe('-100.001');
  });

  it('is exact where a double is not', () => {
    expect(sumDecimals(['0.1', '0.2'])).toBe('0.3');
    expect(sumDecimals(['1234567890123456789012.345', '0.001'])).toBe('1234567890123456789012.346');
    expect(sumDecimals(['9007199254740993', '1'])).toBe('9007199254740994');
  });

  it('sums nothing to 0 and rejects what is not a plain decimal', () => {
    expect(sumDecimals([])).toBe('0');
    expect(() => sumDecimals(['1e3'])).toThrow(TypeError);
    expect(() => sumDecimals(['.5'])).toThrow(TypeError);
    expect(() => sumDecimals([' 5'])).toThrow(TypeError);
  });
});

describe('isDecimal', () => {
  it.each(['0', '-1', '10234.5600', '123456789012345678901234.5'])('accepts %s', (value) => expect(isDecimal(value)).toBe(true));
  it.each(['', '1e3', '1.', '+1', 'NaN', '0x10', '1,5'])('refuses %j', (value) => expect(isDecimal(value)).toBe(false));
});

describe('formatDecimal', () => {
  it.each([
    [-1234n, 2, '-12.34'],
    [5n, 3, '0.005'],
    [-5n, 1, '-0.5'],
    [42n, 0, '42'],
    [900719925474099312345n, 4, '90071992547409931.2345'],
  ])('%s at scale %i is %s', (units, scale, text) => expect(formatDecimal(units, scale)).toBe(text));
});

describe('divideDecimals and compareDecimals', () => {
  it('divides exactly to the places asked, rounding half to even', () => {
    expect(divideDecimals('2', '3', 4)).toBe('0.6667');
    expect(divideDecimals('1', '8', 2)).toBe('0.12'); // 0.125: the tie goes to the even 2
    expect(divideDecimals('3', '8', 2)).toBe('0.38'); // 0.375: to the even 8
    expect(divideDecimals('-3', '8', 2)).toBe('-0.38');
    expect(divideDecimals('10.00', '-4', 0)).toBe('-2'); // -2.5 → -2
    expect(divideDecimals('123456789012345678901234.5', '0.5', 1)).toBe('246913578024691357802469.0');
    expect(divideDecimals('0', '7', 3)).toBe('0.000');
    expect(() => divideDecimals('1', '0.00', 2)).toThrow('division by zero');
  });

  it('is within half a unit of the last place of the rational value, for any quotient', () => {
    const nonZero = fc.bigInt({ min: -(10n ** 12n), max: 10n ** 12n }).filter((units) => units !== 0n);
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), nonZero, fc.nat(8), (a, b, places) => {
        const shown = divideDecimals(formatDecimal(a, 2), formatDecimal(b, 3), places);
        // shown ≈ (a/100)/(b/1000) = 10a/b: compare 2·|shown·b - 10a| with one unit of the last place (times |b|).
        const error = BigInt(shown.replace('.', '')) * b - 10n * a * 10n ** BigInt(places);
        const twiceError = 2n * (error < 0n ? -error : error);
        const unit = b < 0n ? -b : b;
        // A failure names the inputs and the two sides.
        expect({ a, b, places, shown, overHalfAUnit: twiceError > unit }).toEqual({ a, b, places, shown, overHalfAUnit: false });
      }),
    );
  });

  it('compares by value, whatever the scale', () => {
    expect(compareDecimals('1.50', '1.5')).toBe(0);
    expect(compareDecimals('-0.01', '0')).toBe(-1);
    expect(compareDecimals('10', '9.999')).toBe(1);
    expect(compareDecimals('-1.5', '-1.49')).toBe(-1);
    expect(decimalScale('10.00')).toBe(2);
    fc.assert(
      fc.property(fc.bigInt(), fc.nat(8), fc.bigInt(), fc.nat(8), (a, aScale, b, bScale) => {
        // Both as integers of 10^-16, where neither has a digit beyond.
        const [left, right] = [a * 10n ** BigInt(16 - aScale), b * 10n ** BigInt(16 - bScale)];
        expect(compareDecimals(formatDecimal(a, aScale), formatDecimal(b, bScale))).toBe(left < right ? -1 : left > right ? 1 : 0);
      }),
    );
  });
});

describe('roundDecimal, padDecimal, trimDecimal, placesForSignificant', () => {
  it.each([
    ['2.345', 2, '2.34'],
    ['2.355', 2, '2.36'],
    ['-2.345', 2, '-2.34'],
    ['-0.004', 2, '0.00'],
    ['1.5', 0, '2'],
    ['2.5', 0, '2'],
    ['10', 3, '10'],
    ['0.123456789', 8, '0.12345679'],
  ])('roundDecimal(%p, %p) is %p (half-even, on the digits)', (value, places, text) => expect(roundDecimal(value, places)).toBe(text));

  it('pads and trims without changing the amount', () => {
    expect(padDecimal('61250.5', 2)).toBe('61250.50');
    expect(padDecimal('1.234', 2)).toBe('1.234');
    expect(padDecimal('7', 3)).toBe('7.000');
    expect(trimDecimal('1.2300')).toBe('1.23');
    expect(trimDecimal('5.000')).toBe('5');
    expect(trimDecimal('-0.000')).toBe('0');
    expect(trimDecimal('100')).toBe('100');
  });

  it.each([
    ['0.00012345', 4, 7],
    ['61250.5', 5, 0],
    ['61250.5', 7, 2],
    ['1', 3, 2],
    ['0', 3, 0],
    ['-0.5', 2, 2],
  ])('%p keeps %p significant digits with %p places', (value, digits, places) => expect(placesForSignificant(value, digits)).toBe(places));

  it('rounding agrees with exact arithmetic', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }),
        fc.integer({ min: 0, max: 12 }),
        fc.integer({ min: 0, max: 12 }),
        (units, scale, places) => {
          const value = formatDecimal(units, scale);
          const rounded = roundDecimal(value, places);
          // Within half a unit of the last place kept, and never more places than asked for (or than it had).
          expect(decimalScale(rounded)).toBe(Math.min(scale, places));
          const difference = sumDecimals([rounded, negateDecimal(value)]).replace(/^-/, '');
          expect(compareDecimals(difference, formatDecimal(5n, places + 1))).toBeLessThanOrEqual(0);
        },
      ),
    );
  });
});
