import type { Trade } from '@trading-bot-api/core/types';

const iso = (ms: number) => new Date(ms).toISOString();

/** A closed EUR_USD trade of an hour, closed at `closeMs` with `realizedPL`: what a test of the P&L's days needs. */
export function closedTrade(id: string, closeMs: number, realizedPL: string): Trade {
  return {
    id,
    instrument: 'EUR_USD',
    side: 'buy',
    units: '1000',
    status: 'closed',
    openPrice: '1.08000',
    openTime: iso(closeMs - 3_600_000),
    closePrice: '1.08100',
    closeTime: iso(closeMs),
    realizedPL,
  } as Trade;
}
