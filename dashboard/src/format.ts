/**
 * How figures are shown. Amounts stay exactly the strings the API sends (no rounding, no float): only their sign
 * picks a colour. Times are shown in UTC, the API's own zone, so every operator reads the same clock.
 */
import { h } from './dom';

/** An amount exactly as sent; a profit or loss (`signed`) is coloured by its sign, and says it in words too. */
export function amount(value: string | null | undefined, currency?: string, options: { signed?: boolean } = {}): HTMLElement {
  if (value === null || value === undefined) return h('span', { class: 'muted' }, '—');
  const sign = /^-/.test(value) && /[1-9]/.test(value) ? 'neg' : /[1-9]/.test(value) ? 'pos' : 'zero';
  return h(
    'span',
    { class: `amount ${options.signed ? sign : ''}`, 'data-amount': value, title: options.signed ? (sign === 'neg' ? 'loss' : sign === 'pos' ? 'profit' : 'flat') : null },
    value,
    currency ? h('span', { class: 'ccy' }, ` ${currency}`) : null,
  );
}

/** `2026-11-22 10:15:03 UTC` from a stored time. */
export function utc(time: string | null | undefined): string {
  return time ? `${time.slice(0, 10)} ${time.slice(11, 19)} UTC` : '—';
}

/** A duration in words: `42 s`, `3 min 4 s`, `2 h 5 min`, `3 d 4 h`. */
export function age(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  return `${Math.floor(s / 86_400)} d ${Math.floor((s % 86_400) / 3600)} h`;
}

/** The start of today, UTC, as the API takes it. */
export function startOfTodayUtc(now = new Date()): string {
  return `${now.toISOString().slice(0, 10)}T00:00:00Z`;
}
