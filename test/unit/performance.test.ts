/**
 * The performance statistics (lib/performance.ts, the writer's `statsAfter`) against a recomputation from the trades
 * themselves, written independently: every figure equal to the last digit, whatever the batches the trades were
 * written in and however they fall across days and instruments.
 */
import fc from 'fast-check';
import { formatDecimal } from '../../lib/decimal';
import { maxDrawdown, windowPerformance } from '../../lib/performance';
import type { StatsEntry } from '../../lib/store/ledger-table';
import type { Trade } from '../../lib/types';
import { statsAfter } from '../../packages/writer/src/rules';
import { expectedPerformance } from '../support/expected';

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
    { numRuns: 300 },
  );
});

it('measures a drawdown from the starting zero, and gives no ratio when the peak was not above zero', () => {
  const day = (n: number) => new Date(Date.parse(FROM) + n * DAY).toISOString();
  expect(
    maxDrawdown(FROM, [
      { end: day(1), net: '-5.00' },
      { end: day(2), net: '2' },
    ]),
  ).toEqual({ amount: '5.00', ratio: null, start: FROM, end: day(1) });
  expect(
    maxDrawdown(FROM, [
      { end: day(1), net: '10' },
      { end: day(2), net: '-2.5' },
      { end: day(3), net: '-2.5' },
      { end: day(4), net: '9' },
    ]),
  ).toEqual({
    amount: '5.0',
    ratio: '0.5000',
    start: day(1),
    end: day(3),
  });
  expect(maxDrawdown(FROM, [{ end: day(1), net: '3' }])).toEqual({ amount: '0', ratio: null, start: null, end: null });
});
