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
export function expectedTrades(trades: readonly Trade[], filter: { accountId?: string; accounts?: readonly string[]; status?: string; instrument?: string }): Trade[] {
  return trades
    .filter((t) => filter.accountId === undefined || t.accountId === filter.accountId)
    .filter((t) => filter.accounts === undefined || filter.accounts.includes(t.accountId))
    .filter((t) => filter.status === undefined || t.status === filter.status)
    .filter((t) => filter.instrument === undefined || t.instrument === filter.instrument)
    .sort(compareNewestFirst);
}
