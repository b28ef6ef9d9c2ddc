import type { Trade } from '@trading-bot-api/core/types';

/**
 * What API 1.5 added to a trade, none of it said: how a trade stored before 1.5 reads, and what a fixture leaves out
 * when it is not about them.
 */
export const UNKNOWN_DETAILS = {
  currency: null,
  market: null,
  leverage: null,
  fees: null,
  feeTotal: null,
  fundingFees: null,
  liquidationPrice: null,
  orderIds: null,
} as const satisfies Partial<Trade>;
