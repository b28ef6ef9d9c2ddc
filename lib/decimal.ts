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
 * The shortest decimal string that reads back as the same double, never with an exponent: `1e-05` is `"0.00001"`,
 * `0.30000000000000004` keeps its 17 digits, `1e21` is `"1000000000000000000000"`. For numbers that arrive as JSON
 * floats (a bridge's source): JavaScript's own shortest round-trip digits, with the decimal point moved by hand.
 */
export function decimalOfFloat(value: number): string {
  if (!Number.isFinite(value)) throw new TypeError(`not a finite number: ${value}`);
  const text = String(value === 0 ? 0 : value);
  const match = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (!match) return text;
  const [, sign, first, rest = '', exponentText] = match;
  const digits = first + rest;
  // The point sits after the first digit, moved by the exponent.
  const point = 1 + Number(exponentText);
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** The number of digits after the point: 2 for `"10.00"`, 0 for `"7"`. */
export function decimalScale(value: string): number {
  return parse(value).scale;
}

/** Compares two decimal strings by value: negative, zero or positive as `a` is below, equal to or above `b`. */
export function compareDecimals(a: string, b: string): number {
  const difference = parse(sumDecimals([a, negateDecimal(b)])).units;
  return difference < 0n ? -1 : difference > 0n ? 1 : 0;
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
