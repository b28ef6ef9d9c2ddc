/**
 * The API's documented behaviour written independently of lib/, for comparing what the service returns with
 * what it should return.
 */
import type { Trade } from '../../lib/types';

/** Newest openTime first, then id descending (as strings), then accountId descending. */
export function compareNewestFirst(a: Trade, b: Trade): number {
  if (a.openTime !== b.openTime) return a.openTime < b.openTime ? 1 : -1;
  if (a.id !== b.id) return a.id < b.id ? 1 : -1;
  if (a.accountId !== b.accountId) return a.accountId < b.accountId ? 1 : -1;
  return 0;
}

/** The trades a listing must return, in order. */
export function expectedTrades(
  trades: readonly Trade[],
  filter: { accountId?: string; accounts?: readonly string[]; status?: string; instrument?: string },
): Trade[] {
  return trades
    .filter((t) => filter.accountId === undefined || t.accountId === filter.accountId)
    .filter((t) => filter.accounts === undefined || filter.accounts.includes(t.accountId))
    .filter((t) => filter.status === undefined || t.status === filter.status)
    .filter((t) => filter.instrument === undefined || t.instrument === filter.instrument)
    .sort(compareNewestFirst);
}

/** The exact sum of decimal strings, keeping the largest number of decimal places among them. */
export function exactSum(values: readonly string[]): string {
  const scale = Math.max(0, ...values.map((value) => (value.split('.')[1] ?? '').length));
  const units = values.reduce((sum, value) => {
    const [whole, fraction = ''] = value.replace('-', '').split('.');
    const magnitude = BigInt(whole + fraction.padEnd(scale, '0'));
    return sum + (value.startsWith('-') ? -magnitude : magnitude);
  }, 0n);
  const digits = (units < 0n ? -units : units).toString().padStart(scale + 1, '0');
  const text = scale ? `${digits.slice(0, -scale)}.${digits.slice(-scale)}` : digits;
  return units < 0n ? `-${text}` : text;
}

/** The start of the UTC day, ISO week (Monday) or month holding a time, as a stored time. */
export function periodStartOf(time: string, period: 'day' | 'week' | 'month'): string {
  const date = new Date(time);
  date.setUTCHours(0, 0, 0, 0);
  if (period === 'week') date.setUTCDate(date.getUTCDate() - ((date.getUTCDay() + 6) % 7));
  if (period === 'month') date.setUTCDate(1);
  return date.toISOString();
}

/** Each result's outcome, or its error's code and message: compared with a list of outcomes, a failure shows which. */
export function outcomes(results: readonly ({ outcome: string } | { error: { code: string; message: string } })[]): string[] {
  return results.map((result) => ('outcome' in result ? result.outcome : `${result.error.code}: ${result.error.message}`));
}
