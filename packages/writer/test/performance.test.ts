/**
 * The performance statistics (packages/core/src/performance.ts, the writer's `statsAfter`) against a recomputation
 * from the trades themselves, written independently: every figure equal to the last digit, whatever the batches the
 * trades were written in and however they fall across days and instruments.
 */
import fc from 'fast-check';
import { formatDecimal } from '@trading-bot-api/core/decimal';
import { compareDecimals } from '@trading-bot-api/core/decimal';
import { maxDrawdown, windowPerformance } from '@trading-bot-api/core/performance';
import type { StatsEntry } from '@trading-bot-api/core/store/ledger-table';
import type { Trade } from '@trading-bot-api/core/types';
import { statsAfter } from '../src/rules';
import { expectedPerformance } from '../../../test/kit/expected';
import { propertyRuns } from '../../../test/kit/property-runs';

const FROM = '2026-03-01T00:00:00.000Z';
const DAY = 86_400_000;
const INSTRUMENTS = ['BTC_USDT', 'EUR_USD', 'XAU_USD'];

/** Closed trades: few distinct P&L values (so ties happen), two scales, closes near midnights over ten days. */
const trades = fc
  .array(
    fc.record({
      instrument: fc.constantFrom(...INSTRUMENTS),
      units: fc.integer({ min: -6, max: 6 }),
      scale: fc.constantFrom(0, 2, 5),
      closeAt: fc.integer({ min: 0, max: 10 * DAY - 1 }).map((ms) => (ms % 7 === 0 ? Math.round(ms / DAY) * DAY - 1 : ms)),
      heldMs: fc.integer({ min: 0, max: 3 * DAY }),
    }),
    { maxLength: 60 },
  )
  .map((drawn) =>
    drawn.map(
      ({ instrument, units, scale, closeAt, heldMs }, i): Trade => ({
        id: `t-${String(i).padStart(3, '0')}`,
        accountId: 'perf',
        instrument,
        side: units % 2 ? 'buy' : 'sell',
        units: '1',
        status: 'closed',
        openPrice: '1',
        openTime: new Date(Date.parse(FROM) + Math.max(0, closeAt) - heldMs).toISOString(),
        closePrice: '1',
        closeTime: new Date(Date.parse(FROM) + Math.max(0, closeAt)).toISOString(),
        realizedPL: formatDecimal(BigInt(units) * 10n ** BigInt(scale) + BigInt(units % 3), scale),
        unrealizedPL: '0',
        stopLoss: null,
        takeProfit: null,
        closeReason: null,
      }),
    ),
  );

it('every figure, overall and per instrument, equals a recomputation from the trades, whatever the batches', () => {
  fc.assert(
    fc.property(trades, fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 12 }), (all, batchSizes) => {
      // Written in batches, as the writer does: each batch folds into what the previous ones stored.
      let stored: StatsEntry[] = [];
      for (let at = 0, b = 0; at < all.length; b++) {
        const size = batchSizes[b % batchSizes.length];
        const written = statsAfter('perf', stored, all.slice(at, at + size));
        stored = [
          ...stored.filter((entry) => !written.some((w) => w.start === entry.start && w.instrument === entry.instrument)),
          ...written,
        ];
        at += size;
      }
      expect(windowPerformance(FROM, stored)).toEqual(expectedPerformance(FROM, all));
      // One entry per day and instrument traded, each written once per batch that touched it.
      expect(stored.length).toBe(new Set(all.map((t) => `${t.closeTime!.slice(0, 10)}#${t.instrument}`)).size);
    }),
    { numRuns: propertyRuns(300) },
  );
});

it('measures a drawdown of realized P&L from the start, as a share of the equity at its peak', () => {
  const day = (n: number) => new Date(Date.parse(FROM) + n * DAY).toISOString();
  const falls = [
    { end: day(1), net: '10' },
    { end: day(2), net: '-2.5' },
    { end: day(3), net: '-2.5' },
    { end: day(4), net: '9' },
  ];
  // 5 fell from a peak of 24,700 + 10: a small share of the account, not half of its realized P&L.
  expect(maxDrawdown(FROM, falls, '24700')).toEqual({ amount: '5.0', ratio: '0.0002', start: day(1), end: day(3) });
  expect(maxDrawdown(FROM, falls, '0')).toEqual({ amount: '5.0', ratio: '0.5000', start: day(1), end: day(3) });
  // The balance at the start unknown: no ratio (nothing to measure against), the amount all the same.
  expect(maxDrawdown(FROM, falls, null)).toEqual({ amount: '5.0', ratio: null, start: day(1), end: day(3) });
  // A fall from the start itself: against the starting balance.
  expect(
    maxDrawdown(
      FROM,
      [
        { end: day(1), net: '-5.00' },
        { end: day(2), net: '2' },
      ],
      '1000',
    ),
  ).toEqual({ amount: '5.00', ratio: '0.0050', start: FROM, end: day(1) });
  // Equity at the peak not above zero: no ratio.
  expect(maxDrawdown(FROM, [{ end: day(1), net: '-5' }], '-10')).toMatchObject({ amount: '5', ratio: null });
  expect(maxDrawdown(FROM, [{ end: day(1), net: '3' }], '100')).toEqual({ amount: '0', ratio: null, start: null, end: null });
});

it('the ratio is at most 1 whenever the account never went below zero', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 1_000_000 }),
      fc.array(fc.integer({ min: -100_000, max: 100_000 }), { minLength: 1, maxLength: 30 }),
      (start, nets) => {
        let equity = start;
        for (const net of nets) {
          equity += net;
          if (equity < 0) return;
        }
        const days = nets.map((net, i) => ({ end: new Date(Date.parse(FROM) + (i + 1) * DAY).toISOString(), net: String(net) }));
        const { ratio } = maxDrawdown(FROM, days, String(start));
        if (ratio !== null) expect(compareDecimals(ratio, '1')).toBeLessThanOrEqual(0);
      },
    ),
  );
});
