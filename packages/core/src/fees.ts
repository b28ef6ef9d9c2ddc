/**
 * A trade's fees (API 1.5), as pure functions over exact decimal strings. Each fee stays in the currency it was charged
 * in: amounts in different currencies are never converted, so a sum is only ever of the fees in one currency.
 */
import { sumDecimals } from './decimal';
import type { Fee } from './types';

/**
 * A trade's `feeTotal`: the exact sum of its fees when every one is in `currency` (the account's; `"0"` when there are
 * none); null when one is in another currency, or the fees or the currency are unknown.
 */
export function feeTotalOf(fees: readonly Fee[] | null, currency: string | null): string | null {
  if (fees === null || currency === null || fees.some((fee) => fee.currency !== currency)) return null;
  return sumDecimals(['0', ...fees.map((fee) => fee.amount)]);
}

/**
 * What a trade's fees are to the performance figures of `currency`: the sum of those charged in it (`"0"` when none or
 * unknown), whether they are unknown, and whether one was charged in another currency (and so left out of the sum).
 */
export function feesIn(fees: readonly Fee[] | null, currency: string): { paid: string; unknown: boolean; elsewhere: boolean } {
  if (fees === null) return { paid: '0', unknown: true, elsewhere: false };
  const mine = fees.filter((fee) => fee.currency === currency);
  return { paid: sumDecimals(['0', ...mine.map((fee) => fee.amount)]), unknown: false, elsewhere: mine.length < fees.length };
}
