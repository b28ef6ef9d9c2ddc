/**
 * Exact decimal arithmetic on the strings the API stores and returns. Amounts never pass through a JS number:
 * a double cannot hold 25 significant digits, nor integers above 2^53.
 */
const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

/** True when `value` is a plain decimal string: optional minus, digits, optional fraction, no exponent. */
export function isDecimal(value: unknown): value is string {
  return typeof value === 'string' && DECIMAL.test(value);
}

function parse(value: string): { units: bigint; scale: number } {
  const match = DECIMAL.exec(value);
  if (!match) throw new TypeError(`not a decimal string: ${JSON.stringify(value)}`);
  const [, sign, whole, fraction = ''] = match;
  const units = BigInt(whole + fraction);
  return { units: sign ? -units : units, scale: fraction.length };
}

/** The decimal string of `units` × 10^-`scale`, e.g. `formatDecimal(-1234n, 2)` is `"-12.34"`. */
export function formatDecimal(units: bigint, scale: number): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  const fraction = scale ? `.${digits.slice(digits.length - scale)}` : '';
  return `${negative ? '-' : ''}${whole}${fraction}`;
}

/**
 * Sums decimal strings exactly. The result keeps the largest scale among the inputs, so
 * `sumDecimals(["1.50", "2.125"])` is `"3.625"` and `sumDecimals(["10.00"])` stays `"10.00"`.
 */
export function sumDecimals(values: readonly string[]): string {
  const parsed = values.map(parse);
  const scale = parsed.reduce((max, value) => Math.max(max, value.scale), 0);
  const total = parsed.reduce((sum, value) => sum + value.units * 10n ** BigInt(scale - value.scale), 0n);
  return formatDecimal(total, scale);
}

/** -1, 0 or 1 as the decimal string is negative, zero (`"0"`, `"-0.00"`) or positive. */
export function decimalSign(value: string): -1 | 0 | 1 {
  const { units } = parse(value);
  return units < 0n ? -1 : units > 0n ? 1 : 0;
}

/** `value` with its sign turned, e.g. `"-1.50"` for `"1.50"` (zero stays unsigned). */
export function negateDecimal(value: string): string {
  const { units, scale } = parse(value);
  return formatDecimal(-units, scale);
}

/**
 * The significant digits every double carries (C's DBL_DIG): any decimal of up to 15 significant digits goes through
 * a double and back unchanged, while the 16th and 17th digits of a double's shortest form are where arithmetic leaves
 * its noise (`0.1 + 0.2` is `0.30000000000000004`, a sum of profits `9.689999999999998`).
 */
const FLOAT_DIGITS = 15;

/** `text` (a plain decimal) without trailing zeros after the point, nor the point itself when nothing follows it. */
export function trimDecimal(text: string): string {
  const trimmed = text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text;
  return /^-0$/.test(trimmed) ? '0' : trimmed;
}

/**
 * A float as the decimal it stands for: rounded to `significant` digits (FLOAT_DIGITS by default, the precision a
 * double carries), trailing zeros dropped, never with an exponent. `0.30000000000000004` is `"0.3"`,
 * `9.689999999999998` is `"9.69"`, `1e-05` is `"0.00001"`, `1e21` is `"1000000000000000000000"`. For numbers that
 * arrive as JSON floats (a bridge's source), read once, at the edge. With `significant` 17, the shortest digits that
 * read back as the same double (noise included).
 */
export function decimalOfFloat(value: number, significant = FLOAT_DIGITS): string {
  if (!Number.isFinite(value)) throw new TypeError(`not a finite number: ${value}`);
  if (value === 0) return '0';
  // toPrecision rounds the double's exact value to `significant` digits (ECMA-262); String() gives the shortest form.
  const text = significant >= 17 ? String(value) : value.toPrecision(significant);
  const match = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  // A plain decimal already (toPrecision writes one for exponents from -6 to significant - 1).
  if (!match) return trimDecimal(text);
  const [, sign, first, rest = '', exponentText] = match;
  const digits = first + rest;
  // The point sits after the first digit, moved by the exponent.
  const point = 1 + Number(exponentText);
  if (point <= 0) return trimDecimal(`${sign}0.${'0'.repeat(-point)}${digits}`);
  if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}`;
  return trimDecimal(`${sign}${digits.slice(0, point)}.${digits.slice(point)}`);
}

/**
 * `value` rounded half-even to at most `places` digits after the point (a value with fewer keeps its own; see
 * `padDecimal` for more): `roundDecimal("2.345", 2)` is `"2.34"`, `roundDecimal("2.355", 2)` is `"2.36"`. Exact: on
 * the digits, never through a float.
 */
export function roundDecimal(value: string, places: number): string {
  if (!Number.isInteger(places) || places < 0) throw new RangeError(`places must be a whole number ≥ 0, got ${places}`);
  const { units, scale } = parse(value);
  if (scale <= places) return value;
  return formatDecimal(divideHalfEven(units, 10n ** BigInt(scale - places)), places);
}

/** `value` with at least `places` digits after the point (zeros added; never fewer than it has): the same amount. */
export function padDecimal(value: string, places: number): string {
  const { units, scale } = parse(value);
  return scale >= places ? value : formatDecimal(units * 10n ** BigInt(places - scale), places);
}

/**
 * The places after the point that keep `digits` significant digits of `value`: 4 significant digits of `"0.00012345"`
 * are 7 places (`0.0001235`), of `"61250.5"` none (`61250`, and no fewer than 0). Zero has no significant digit: 0.
 */
export function placesForSignificant(value: string, digits: number): number {
  const { units, scale } = parse(value);
  const magnitude = (units < 0n ? -units : units).toString();
  if (magnitude === '0') return 0;
  // The value is magnitude × 10^-scale: its leading digit is at 10^(length - 1 - scale).
  const leading = magnitude.length - 1 - scale;
  return Math.max(0, digits - 1 - leading);
}

/** The number of digits after the point: 2 for `"10.00"`, 0 for `"7"`. */
export function decimalScale(value: string): number {
  return parse(value).scale;
}

/** Compares two decimal strings by value: negative, zero or positive as `a` is below, equal to or above `b`. */
export function compareDecimals(a: string, b: string): number {
  const [x, y] = [parse(a), parse(b)];
  const [left, right] =
    x.scale === y.scale
      ? [x.units, y.units]
      : x.scale > y.scale
        ? [x.units, y.units * 10n ** BigInt(x.scale - y.scale)]
        : [x.units * 10n ** BigInt(y.scale - x.scale), y.units];
  return left < right ? -1 : left > right ? 1 : 0;
}

/** `units` / `divisor`, rounded half-even to an integer (banker's rounding: a tie goes to the even neighbour). */
function divideHalfEven(units: bigint, divisor: bigint): bigint {
  if (divisor === 0n) throw new RangeError('division by zero');
  const negative = units < 0n !== divisor < 0n;
  const [n, d] = [units < 0n ? -units : units, divisor < 0n ? -divisor : divisor];
  let quotient = n / d;
  const twice = (n % d) * 2n;
  if (twice > d || (twice === d && quotient % 2n === 1n)) quotient += 1n;
  return negative ? -quotient : quotient;
}

/**
 * `dividend` / `divisor` (decimal strings), rounded half-even to `places` digits after the point: exact to the
 * last digit shown, never through a float. `divideDecimals("2", "3", 4)` is `"0.6667"`.
 */
export function divideDecimals(dividend: string, divisor: string, places: number): string {
  const a = parse(dividend);
  const b = parse(divisor);
  // a/b = (a.units / 10^a.scale) / (b.units / 10^b.scale); scaled by 10^places to keep `places` digits.
  const numerator = a.units * 10n ** BigInt(places + b.scale);
  const denominator = b.units * 10n ** BigInt(a.scale);
  return formatDecimal(divideHalfEven(numerator, denominator), places);
}

/**
 * `a` × `b` exactly (decimal strings), with the scales added and nothing rounded: `multiplyDecimals("0.015",
 * "61250.50")` is `"918.75750"`. What a trade's units at its price are worth, for exports that list both sides.
 */
export function multiplyDecimals(a: string, b: string): string {
  const x = parse(a);
  const y = parse(b);
  return formatDecimal(x.units * y.units, x.scale + y.scale);
}
