/**
 * Numbers as the bots' bridges read them (pure: no I/O). A bot's figures arrive as JSON floats (freqtrade, hummingbot's
 * MQTT) or as Python's `str(Decimal)` (hummingbot's fees, its trades CSV); each is read once, at the edge, into the
 * exact decimal strings the writer stores, and every later figure is computed on those strings, never on a float.
 */
import {
  decimalOfFloat,
  decimalScale,
  divideDecimals,
  formatDecimal,
  multiplyDecimals as exactProduct,
  placesForSignificant,
  roundDecimal,
  trimDecimal,
} from '@trading-bot-api/writer';

/**
 * Places of money in a bot's quote currency: freqtrade rounds every profit to 8 (persistence/trade_model.py,
 * calculate_profit), a satoshi is 10⁻⁸ BTC, and USDT's smallest unit is 10⁻⁸ too on most exchanges.
 */
export const MONEY_PLACES = 8;

/** A money amount from a float: its 15 significant digits (decimalOfFloat), then 8 places at most, half-even, trailing zeros dropped. */
export function moneyOf(value: number): string {
  return trimDecimal(roundDecimal(decimalOfFloat(value), MONEY_PLACES));
}

/** `a` × `b`, exactly: the product keeps the places of both (`"0.5"` × `"0.25"` is `"0.125"`), trailing zeros dropped. */
export function multiplyDecimals(a: string, b: string): string {
  return trimDecimal(exactProduct(a, b));
}

/**
 * `total` × `part` / `whole`, rounded half-even to the places of `total` and at least MONEY_PLACES: a share of a
 * position's cost or fees when part of it is closed. Exact whenever the share is a decimal of those places (a position
 * bought at one price, part of it sold in units of the same step); what rounding leaves stays with the rest, so the
 * shares of a whole always add up to it exactly.
 */
export function proportionOf(total: string, part: string, whole: string): string {
  const places = Math.max(MONEY_PLACES, decimalScale(total));
  return trimDecimal(divideDecimals(multiplyDecimals(total, part), whole, places));
}

/**
 * `dividend` / `divisor` to 15 significant digits (what a double carries, the precision of the figures it is computed
 * from), half-even, trailing zeros dropped: an average price. Exact when the quotient has no more digits.
 */
export function quotientOf(dividend: string, divisor: string): string {
  // The quotient's leading digit, from a first division at enough places for the smallest price a bot sends.
  const rough = divideDecimals(dividend, divisor, 40);
  return trimDecimal(divideDecimals(dividend, divisor, placesForSignificant(rough, 15)));
}

/** Python's `str(Decimal)`: `0.0612505`, `-12`, `1E-7`, `6.1E+3`, `0E-8`, `0.00150000`. */
const PYTHON_DECIMAL = /^([+-]?)(\d+)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/**
 * A number as Python's `str(Decimal)` writes it (hummingbot's fees, its trades CSV), as a plain decimal string: the
 * digits as written, an exponent moved into them, trailing zeros dropped; undefined for anything else (`NaN`,
 * `Infinity`, `None`, text).
 */
export function pythonDecimal(text: string): string | undefined {
  const match = PYTHON_DECIMAL.exec(text.trim());
  if (!match) return undefined;
  const [, sign, whole, fraction = '', exponentText = '0'] = match;
  const exponent = Number(exponentText);
  // Past this a figure is not a bot's amount (and the digits would be many).
  if (!Number.isSafeInteger(exponent) || Math.abs(exponent) > 60) return undefined;
  const digits = `${whole}${fraction}`;
  const scale = fraction.length - exponent;
  const units = BigInt(digits) * (scale < 0 ? 10n ** BigInt(-scale) : 1n);
  return trimDecimal(formatDecimal(sign === '-' ? -units : units, Math.max(scale, 0)));
}

/**
 * What a bridge says of a bot's clock against this machine's, given how far ahead it is (ms, negative: behind;
 * undefined: not known): a line once it is off by a minute or more, again when that changes by a minute, and once when
 * it agrees again; undefined otherwise. `who` is the bot, `from` what its clock is read from, `then` what follows.
 */
export function clockSkewSayer(who: string, from: string, then: string): (aheadMs: number | undefined) => string | undefined {
  let said: number | undefined;
  return (aheadMs) => {
    const minutes = aheadMs === undefined || Math.abs(aheadMs) < 60_000 ? undefined : Math.round(aheadMs / 60_000);
    if (minutes === said) return undefined;
    said = minutes;
    if (minutes === undefined) return `${who}'s clock agrees with this machine's again`;
    return `${who}'s clock is ${Math.abs(minutes)} min ${minutes > 0 ? 'ahead of' : 'behind'} this machine's (${from}): ${then}`;
  };
}
