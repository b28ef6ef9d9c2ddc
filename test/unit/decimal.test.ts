import { formatDecimal, isDecimal, sumDecimals } from '../../lib/decimal';

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
