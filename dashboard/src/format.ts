/**
 * How figures are shown. Amounts come from the API as exact decimal strings and are only re-spelled here, never
 * through a float: thousands grouped, and the fraction written to a number of places that its currency decides, not
 * its column: money in a fiat currency (an ISO 4217 code) at that currency's minor units (`24,728.80 USD`, `0.00 USD`,
 * `1,500 JPY`, `1.250 KWD`), money in any other currency (USDT, BTC: a crypto) at the places its value needs (trailing
 * zeros none needs left out), at most MAX_PLACES; in a table's column, a crypto's amounts line up at the most any of
 * that currency's values in the column needs, never more. A value with more places than it is shown with is rounded
 * half-even on its digits, and its exact string stays in the element's title and `data-amount`. Data from a bot's floats
 * (`991.4000000000001`) would otherwise pad a whole column to 13 places of noise. Units and prices are not money: a
 * price keeps its quote's places, units the places their instrument's values need. Times are shown in UTC, the API's
 * own zone, so every operator reads the same clock.
 */
import { h } from './dom';

/** The most places after the point an amount is shown with; past this, a figure's digits are a float's noise. */
export const MAX_PLACES = 8;

const DECIMAL = /^([-+]?)(\d*)(?:\.(\d*))?$/;

function parts(value: string): { sign: string; whole: string; fraction: string } {
  const match = DECIMAL.exec(value);
  // Not a decimal (the API sends none, but a figure must still show): as it came, no places of its own.
  if (!match) return { sign: '', whole: value, fraction: '' };
  const [, sign, whole, fraction = ''] = match;
  return { sign: sign === '-' ? '-' : '', whole: whole || '0', fraction };
}

/** Places after the point of an exact decimal string, as written: `"1.08420"` has 5. */
const placesOf = (value: string | null | undefined): number => (value ? parts(value).fraction.length : 0);

/**
 * Places a value needs: those it has, less trailing zeros (`"10.50"` needs 1, `"10.00"` none); of a value with more
 * than MAX_PLACES, those it needs once rounded to MAX_PLACES (`"991.4000000000001"` needs 1, not 8 of noise).
 */
export function placesNeeded(value: string | null | undefined): number {
  if (!value) return 0;
  const shown = placesOf(value) > MAX_PLACES ? roundHalfEven(value, MAX_PLACES) : value;
  return parts(shown).fraction.replace(/0+$/, '').length;
}

/** The places a column of amounts shows: the most any of `values` needs (at most MAX_PLACES, as each needs). */
export const columnPlaces = (values: (string | null | undefined)[]): number =>
  values.reduce((most, value) => Math.max(most, placesNeeded(value)), 0);

/**
 * The places of one instrument's prices: each as quoted (a quote's trailing zeros are its precision: EUR_USD's
 * `1.08420` keeps 5), at most MAX_PLACES; a price quoted with more (a float's `0.30000000000000004`) counts the places
 * it needs once rounded to MAX_PLACES (1), not MAX_PLACES of noise.
 */
export const pricePlaces = (values: (string | null | undefined)[]): number =>
  values.reduce((most, value) => Math.max(most, placesOf(value) <= MAX_PLACES ? placesOf(value) : placesNeeded(value)), 0);

/**
 * `value` written with exactly `places` places: padded with zeros, or rounded half-even on its digits (a tie goes to
 * the even digit: `"0.125"` to 2 places is `"0.12"`, `"0.135"` is `"0.14"`). A value rounded to zero loses its minus
 * (`"-0.000000001"` is `"0.00000000"`): the exact value, sign and all, is in the element's title.
 */
export function roundHalfEven(value: string, places: number): string {
  if (!DECIMAL.test(value)) return value;
  const { sign, whole, fraction } = parts(value);
  let digits = `${whole}${fraction.padEnd(places, '0').slice(0, places)}`;
  const rest = fraction.slice(places);
  const first = rest.charAt(0);
  const up = first > '5' || (first === '5' && (/[1-9]/.test(rest.slice(1)) || Number(digits.at(-1)) % 2 === 1));
  if (up) digits = (BigInt(digits) + 1n).toString().padStart(digits.length, '0');
  const point = digits.length - places;
  const integer = digits.slice(0, point).replace(/^0+(?=\d)/, '') || '0';
  const text = places ? `${integer}.${digits.slice(point)}` : integer;
  return /[1-9]/.test(digits) ? `${sign}${text}` : text;
}

/**
 * `-107926.5631` → `-107,926.5631`; with `places` 6, `-107,926.563100`; with 2, `-107,926.56`. Without `places`, the
 * places the value needs, at most MAX_PLACES.
 */
export function grouped(value: string, places = columnPlaces([value])): string {
  const { sign, whole, fraction } = parts(roundHalfEven(value, places));
  return `${sign}${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}${fraction ? `.${fraction}` : ''}`;
}

/**
 * ISO 4217's codes by their minor units (the list's current codes, and those withdrawn lately that a broker may still
 * report). Its funds and metals (XAU, XDR…) have no minor unit: like a crypto, they show the places their values need.
 */
const ISO_4217: Record<number, string> = {
  0: 'BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX UYI VND VUV XAF XOF XPF',
  2:
    'AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BMD BND BOB BOV BRL BSD BTN BWP BYN BZD CAD CDF CHE CHF ' +
    'CHW CNY COP COU CRC CUC CUP CVE CZK DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GTQ GYD HKD HNL HRK ' +
    'HTG HUF IDR ILS INR IRR JMD KES KGS KHR KPW KYD KZT LAK LBP LKR LRD LSL MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR ' +
    'MWK MXN MXV MYR MZN NAD NGN NIO NOK NPR NZD PAB PEN PGK PHP PKR PLN QAR RON RSD RUB SAR SBD SCR SDG SEK SGD SHP ' +
    'SLE SLL SOS SRD SSP STN SVC SYP SZL THB TJS TMT TOP TRY TTD TWD TZS UAH USD USN UYU UZS VED VES WST XCD XCG YER ' +
    'ZAR ZMW ZWG ZWL',
  3: 'BHD IQD JOD KWD LYD OMR TND',
  4: 'CLF UYW',
};
const MINOR_UNITS = new Map(
  Object.entries(ISO_4217).flatMap(([places, codes]) => codes.split(' ').map((code) => [code, Number(places)] as const)),
);

/** The minor units of a fiat currency (ISO 4217: USD 2, JPY 0, KWD 3); undefined for any other code (a crypto). */
export const minorUnits = (currency: string | null | undefined): number | undefined => (currency ? MINOR_UNITS.get(currency) : undefined);

/**
 * The places amounts of `currency` that line up are written with: a fiat currency's minor units, whatever the
 * values; another currency's (or an unknown one's) the most any of `values` needs, at most MAX_PLACES.
 */
export const currencyPlaces = (currency: string | null | undefined, values: (string | null | undefined)[]): number =>
  minorUnits(currency) ?? columnPlaces(values);

/**
 * The places of a column of amounts in several currencies, per currency (currencyPlaces of that currency's values):
 * a USDT amount among fiat ones pads none of them, and a fiat one never loses its minor units.
 */
export function placesByCurrency(
  entries: [currency: string | null | undefined, value: string | null | undefined][],
): (currency: string | null | undefined) => number {
  const values = new Map<string, (string | null | undefined)[]>();
  for (const [currency, value] of entries) {
    const list = values.get(currency ?? '') ?? [];
    list.push(value);
    values.set(currency ?? '', list);
  }
  const places = new Map([...values].map(([currency, list]) => [currency, currencyPlaces(currency, list)]));
  return (currency) => places.get(currency ?? '') ?? currencyPlaces(currency, []);
}

/**
 * The figure of an amount of money: grouped, at its currency's places: a fiat currency's minor units whatever `places`
 * says; another's `places` (its column's), by default those the value needs, at most MAX_PLACES.
 */
export const moneyFigure = (value: string, currency: string | null | undefined, places?: number): string =>
  grouped(value, minorUnits(currency) ?? places ?? columnPlaces([value]));

/** `"1,014.46623791 USDT"`: money as text (a note, a label), at its currency's places. */
export const moneyText = (value: string, currency: string | null | undefined): string =>
  `${moneyFigure(value, currency)}${currency ? ` ${currency}` : ''}`;

/** The figure and, after it, its currency code: the figure may be cut with an ellipsis, the code never (style.css). */
function figure(value: string, shown: string, options: { currency?: string | null; signed?: boolean }): HTMLElement {
  const { currency, signed } = options;
  const sign = /^-/.test(value) && /[1-9]/.test(value) ? 'neg' : /[1-9]/.test(value) ? 'pos' : 'zero';
  const word = signed ? (sign === 'neg' ? ' (loss)' : sign === 'pos' ? ' (profit)' : ' (flat)') : '';
  return h(
    'span',
    {
      class: signed ? `amount ${sign}` : 'amount',
      'data-amount': value,
      'data-currency': currency ?? null,
      title: `${value}${currency ? ` ${currency}` : ''}${word}`,
    },
    h('span', { class: 'figure' }, shown),
    currency ? h('span', { class: 'ccy' }, ` ${currency}`) : null,
  );
}

/**
 * Money: grouped, at its currency's places (a fiat currency's minor units whatever `places` says; a crypto's, the
 * `places` of its column, by default those the value needs), its code after it. A profit or loss (`signed`) is
 * coloured by its sign, and says it in words too. The exact string stays in `data-amount` and, with the currency, in
 * the title: a figure rounded, or one too long for its cell (cut with an ellipsis), shows whole on hover.
 */
export function money(
  value: string | null | undefined,
  currency: string | null | undefined,
  options: { signed?: boolean; places?: number } = {},
): HTMLElement {
  if (value === null || value === undefined) return h('span', { class: 'muted' }, '—');
  return figure(value, moneyFigure(value, currency, options.places), { currency, signed: options.signed });
}

/**
 * A quantity that is not money (units, a price), grouped and written to `places` (by default the places it needs, at
 * most MAX_PLACES), its exact string in `data-amount` and the title.
 */
export function amount(value: string | null | undefined, options: { places?: number } = {}): HTMLElement {
  if (value === null || value === undefined) return h('span', { class: 'muted' }, '—');
  return figure(value, grouped(value, options.places), {});
}

/**
 * What is not known, in words, never as a zero (a `gone` trade's P&L: the API's zero there is a placeholder); `why`
 * in its title.
 */
export const unknown = (why: string): HTMLElement => h('span', { class: 'unknown', title: why }, 'unknown');

/**
 * A chart axis's tick (a number the chart chose, not an amount the API sent): grouped, with the places its step
 * has (`0.25` has 2), at most its currency's: a fiat currency's fractional ticks at its minor units (`24,728.50`).
 */
export function tickText(tick: number, step: number, currency: string | null | undefined): string {
  const [mantissa, exponent] = step.toExponential().split('e');
  const stepPlaces = Math.max(0, (mantissa.split('.')[1] ?? '').length - Number(exponent));
  const minor = minorUnits(currency);
  const places = minor === undefined ? Math.min(stepPlaces, MAX_PLACES) : stepPlaces > 0 ? minor : 0;
  return grouped(tick.toFixed(places), places);
}

/** `2026-11-22 10:15:03 UTC` from a stored time; without the zone where a column's heading says it. */
export function utc(time: string | null | undefined, options: { zone?: boolean } = {}): string {
  return time ? `${time.slice(0, 10)} ${time.slice(11, 19)}${options.zone === false ? '' : ' UTC'}` : '—';
}

/** A duration in words: `42 s`, `3 min 4 s`, `2 h 5 min`, `3 d 4 h`. */
export function age(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  return `${Math.floor(s / 86_400)} d ${Math.floor((s % 86_400) / 3600)} h`;
}

/** The time `days` days ago, as the API takes it (`2026-08-26T10:15:03Z`): the start of a window of that many days. */
export function daysAgo(days: number, now = Date.now()): string {
  return new Date(now - days * 86_400_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** A ratio as a percentage, exactly (the point moved two places, no float): `"0.5327"` is `53.27 %`. */
export function percent(ratio: string | null | undefined): string {
  if (ratio === null || ratio === undefined) return '—';
  const { sign, whole, fraction } = parts(ratio);
  const digits = `${whole}${fraction.padEnd(2, '0')}`;
  const rest = digits.slice(whole.length + 2);
  return `${sign}${digits.slice(0, whole.length + 2).replace(/^0+(?=\d)/, '')}${rest ? `.${rest}` : ''} %`;
}

/** A duration in seconds, or a dash for none. */
export function duration(seconds: number | null | undefined): string {
  return seconds === null || seconds === undefined ? '—' : age(seconds);
}
