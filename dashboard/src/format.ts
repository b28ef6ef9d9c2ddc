/**
 * How figures are shown. Amounts come from the API as exact decimal strings and are only re-spelled here: thousands
 * grouped and the fraction padded with zeros to the column's number of places (never rounded, never through a float),
 * so a column of amounts lines up. Times are shown in UTC, the API's own zone, so every operator reads the same clock.
 */
import { h } from './dom';

/** Places after the point of an exact decimal string. */
export const placesOf = (value: string | null | undefined): number => (value ? (value.split('.')[1] ?? '').length : 0);

/** The places a column needs to show each of `values` whole: the most any of them has. */
export const columnPlaces = (values: (string | null | undefined)[]): number =>
  values.reduce((most, value) => Math.max(most, placesOf(value)), 0);

/** `-107926.5631` → `-107,926.5631`; with `places` 6, `-107,926.563100`. Padded only: a value keeps all its own places. */
export function grouped(value: string, places = 0): string {
  const sign = value.startsWith('-') ? '-' : '';
  const [whole, fraction = ''] = value.replace(/^[-+]/, '').split('.');
  const width = Math.max(places, fraction.length);
  return `${sign}${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}${width ? `.${fraction.padEnd(width, '0')}` : ''}`;
}

/**
 * An amount, grouped and padded to `places`; a profit or loss (`signed`) is coloured by its sign, and says it in words
 * too. The exact string stays in `data-amount` and, with the currency, in the title: a cell too narrow for a very long
 * amount cuts it with an ellipsis and the whole value shows on hover.
 */
export function amount(
  value: string | null | undefined,
  currency?: string,
  options: { signed?: boolean; places?: number } = {},
): HTMLElement {
  if (value === null || value === undefined) return h('span', { class: 'muted' }, '—');
  const sign = /^-/.test(value) && /[1-9]/.test(value) ? 'neg' : /[1-9]/.test(value) ? 'pos' : 'zero';
  const word = options.signed ? (sign === 'neg' ? ' (loss)' : sign === 'pos' ? ' (profit)' : ' (flat)') : '';
  return h(
    'span',
    { class: `amount ${options.signed ? sign : ''}`, 'data-amount': value, title: `${value}${currency ? ` ${currency}` : ''}${word}` },
    grouped(value, options.places),
    currency ? h('span', { class: 'ccy' }, ` ${currency}`) : null,
  );
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

/** The start of today, UTC, as the API takes it. */
export function startOfTodayUtc(now = new Date()): string {
  return `${now.toISOString().slice(0, 10)}T00:00:00Z`;
}

/** A ratio as a percentage, exactly (the point moved two places, no float): `"0.5327"` is `53.27 %`. */
export function percent(ratio: string | null | undefined): string {
  if (ratio === null || ratio === undefined) return '—';
  const negative = ratio.startsWith('-');
  const [whole, fraction = ''] = ratio.replace(/^-/, '').split('.');
  const digits = `${whole}${fraction.padEnd(2, '0')}`;
  const point = whole.length + 2;
  const integer = digits.slice(0, point).replace(/^0+(?=\d)/, '');
  const rest = digits.slice(point);
  return `${negative ? '-' : ''}${integer}${rest ? `.${rest}` : ''} %`;
}

/** A duration in seconds, or a dash for none. */
export function duration(seconds: number | null | undefined): string {
  return seconds === null || seconds === undefined ? '—' : age(seconds);
}
