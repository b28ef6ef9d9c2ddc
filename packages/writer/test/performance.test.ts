/**
 * The performance statistics (packages/core/src/performance.ts and rollups.ts, the writer's `periodsAfter`) against a
 * recomputation from the trades themselves, written independently: every figure equal to the last digit, for any
 * window (mid-month, across a year boundary, before any trade), whatever the batches the trades were written in and
 * however they fall across days, blocks, months and instruments, fees (API 1.5) included; the merge of figures
 * (associative, commutative, undone exactly by replaceContribution); and the drawdown's composition against the
 * day-by-day computation.
 */
import fc from 'fast-check';
import { compareDecimals, formatDecimal } from '@trading-bot-api/core/decimal';
import {
  type ClosedTrade,
  composeRuns,
  mergeStats,
  NO_TRADES,
  replaceContribution,
  tradeStats,
  unitsOf,
} from '@trading-bot-api/core/performance';
import { periodId, periodsPerformance, unitEnd, unitStart, windowPeriods } from '@trading-bot-api/core/rollups';
import type { PeriodEntry } from '@trading-bot-api/core/store/ledger-table';
import type { Fee, Trade } from '@trading-bot-api/core/types';
import { periodsAfter } from '../src/rules';
import { maxDrawdown, runOf } from '../../../test/kit/equity-runs';
import { expectedPerformance } from '../../../test/kit/expected';
import { propertyRuns } from '../../../test/kit/property-runs';

const FROM = '2026-03-01T00:00:00.000Z';
const DAY = 86_400_000;
const INSTRUMENTS = ['BTC_USDT', 'EUR_USD', 'XAU_USD'];
/** The trades' span: from mid-November to mid-January a year later, across two year boundaries' months. */
const SPAN_FROM = Date.parse('2025-11-17T00:00:00.000Z');
const SPAN_DAYS = 430;

/** The account's currency, which the fees paid are counted in; BNB is another. */
const CURRENCY = 'USDT';

/** A trade's fees: unknown, none, or some in the account's currency and in BNB, at several scales (a rebate too). */
const feeLists: fc.Arbitrary<Fee[] | null> = fc.oneof(
  fc.constant(null),
  fc.array(
    fc.record({
      amount: fc
        .tuple(fc.integer({ min: -2, max: 90 }), fc.constantFrom(0, 2, 8))
        .map(([units, scale]) => formatDecimal(BigInt(units), scale)),
      currency: fc.constantFrom(CURRENCY, CURRENCY, 'BNB'),
      leg: fc.constantFrom('open' as const, 'close' as const),
    }),
    { maxLength: 3 },
  ),
);

/**
 * Closed trades: few distinct P&L values (so ties happen), three scales, closes near midnights and month boundaries
 * (where days, blocks and months meet) over fourteen months; fees unknown, none, or in two currencies.
 */
const trades = fc
  .array(
    fc.record({
      instrument: fc.constantFrom(...INSTRUMENTS),
      units: fc.integer({ min: -6, max: 6 }),
      scale: fc.constantFrom(0, 2, 5),
      day: fc.oneof(
        fc.integer({ min: 0, max: SPAN_DAYS - 1 }),
        // The last or first day of a month.
        fc.integer({ min: 0, max: 13 }).chain((month) => {
          const start = Date.UTC(2025, 10 + month, 1);
          return fc.constantFrom(start, start - DAY).map((at) => Math.max(0, Math.round((at - SPAN_FROM) / DAY)));
        }),
      ),
      atMs: fc.integer({ min: 0, max: DAY - 1 }).map((ms) => (ms % 5 === 0 ? DAY - 1 : ms)),
      heldMs: fc.integer({ min: 0, max: 3 * DAY }),
      fees: feeLists,
    }),
    { maxLength: 60 },
  )
  .map((drawn) =>
    drawn.map(({ instrument, units, scale, day, atMs, heldMs, fees }, i): Trade => {
      const closeAt = SPAN_FROM + Math.min(day, SPAN_DAYS - 1) * DAY + atMs;
      return {
        id: `t-${String(i).padStart(3, '0')}`,
        accountId: 'perf',
        instrument,
        side: units % 2 ? 'buy' : 'sell',
        units: '1',
        status: 'closed',
        openPrice: '1',
        openTime: new Date(closeAt - heldMs).toISOString(),
        closePrice: '1',
        closeTime: new Date(closeAt).toISOString(),
        realizedPL: formatDecimal(BigInt(units) * 10n ** BigInt(scale) + BigInt(units % 3), scale),
        unrealizedPL: '0',
        stopLoss: null,
        takeProfit: null,
        closeReason: null,
        currency: CURRENCY,
        market: null,
        leverage: null,
        fees,
        feeTotal: null,
        fundingFees: null,
        liquidationPrice: null,
        orderIds: null,
      };
    }),
  );

/** A window of whole days: from a few days before the trades' span (before any trade) to past its end, up to 366 days. */
const windows = fc.record({ first: fc.integer({ min: -12, max: SPAN_DAYS + 5 }), days: fc.integer({ min: 1, max: 366 }) });

/** The roll-ups the writer stores after writing `all` in batches of `batchSizes` (each folds into what is stored). */
function writtenInBatches(all: readonly Trade[], batchSizes: readonly number[]): PeriodEntry[] {
  let stored: PeriodEntry[] = [];
  for (let at = 0, b = 0; at < all.length; b++) {
    const size = batchSizes[b % batchSizes.length];
    const written = periodsAfter('perf', CURRENCY, stored, all.slice(at, at + size));
    stored = [...stored.filter((entry) => !written.some((w) => periodId(w) === periodId(entry))), ...written];
    at += size;
  }
  return stored;
}

it('every figure of any window, overall and per instrument, equals a recomputation from its trades, whatever the batches', () => {
  fc.assert(
    fc.property(trades, fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 12 }), windows, (all, batchSizes, window) => {
      const stored = new Map(writtenInBatches(all, batchSizes).map((entry) => [periodId(entry), entry.figures]));
      const first = SPAN_FROM + window.first * DAY;
      const last = first + (window.days - 1) * DAY;
      // Read as the API reads it: the window's months, blocks and edge days, each as stored.
      const periods = windowPeriods(first, last).map((period) => ({ ...period, figures: stored.get(periodId(period)) ?? {} }));
      const inWindow = all.filter((trade) => Date.parse(trade.closeTime!) >= first && Date.parse(trade.closeTime!) < last + DAY);
      expect(periodsPerformance(periods, '1000')).toEqual(expectedPerformance(new Date(first).toISOString(), inWindow, '1000'));
    }),
    { numRuns: propertyRuns(300) },
  );
});

it('merging figures is associative and commutative, fees included, and a contribution replaced is as if merged anew', () => {
  const figures = trades.map((all) => all.map((trade) => tradeStats(trade as ClosedTrade, CURRENCY)).reduce(mergeStats, NO_TRADES));
  fc.assert(
    fc.property(figures, figures, figures, (a, b, d) => {
      expect(mergeStats(a, mergeStats(b, d))).toEqual(mergeStats(mergeStats(a, b), d));
      expect(mergeStats(a, b)).toEqual(mergeStats(b, a));
      // The fleet's sums move one account's figures at a time: an account's figures that grew (b, then b and d) are
      // replaced in the sum exactly as merging the accounts anew would make it.
      expect(replaceContribution(mergeStats(a, b), b, mergeStats(b, d))).toEqual(mergeStats(a, mergeStats(b, d)));
    }),
    { numRuns: propertyRuns(300) },
  );
});

it('the drawdown composes: runs of consecutive periods combined equal the day-by-day run, however the days are cut', () => {
  fc.assert(
    fc.property(
      fc.array(fc.tuple(fc.integer({ min: -5, max: 5 }), fc.constantFrom(0, 1, 3)), { maxLength: 40 }),
      // At least one cut that takes days, so the cutting ends.
      fc.array(fc.integer({ min: 0, max: 6 }), { maxLength: 10 }).map((cuts) => [...cuts, 1 + (cuts.length % 4)]),
      (drawn, cuts) => {
        const days = drawn.map(([units, scale], i) => ({
          end: new Date(Date.parse(FROM) + (i + 1) * DAY).toISOString(),
          net: formatDecimal(BigInt(units), scale),
        }));
        // Cut into consecutive periods of the drawn lengths (an empty period among them too), each its own run.
        const runs = [];
        for (let at = 0, c = 0; at < days.length || c === 0; c++) {
          const length = cuts[c % cuts.length];
          const start = at === 0 ? FROM : days[at - 1].end;
          runs.push(runOf(start, days.slice(at, at + length)));
          at += length;
        }
        const whole = runOf(FROM, days);
        // Any grouping: left to right, and right to left.
        expect(runs.reduce(composeRuns)).toEqual(whole);
        expect(runs.reduceRight((later, earlier) => composeRuns(earlier, later))).toEqual(whole);
      },
    ),
    { numRuns: propertyRuns(500) },
  );
});

it('reads a stored net as an exact integer at any scale at least its own, past the digits a double holds too', () => {
  expect([unitsOf('-0.5', 3), unitsOf('7', 0), unitsOf('-0', 2), unitsOf('123456789012345678.12', 4)]).toEqual([
    -500n,
    7n,
    0n,
    1234567890123456781200n,
  ]);
  fc.assert(
    fc.property(fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), fc.nat(8), fc.nat(8), (units, places, more) => {
      expect(unitsOf(formatDecimal(units, places), places + more)).toBe(units * 10n ** BigInt(more));
    }),
  );
});

it('a window is read in whole months, then blocks, then days: each day once, a year in at most 31 periods', () => {
  let most = 0;
  const wrong: string[] = [];
  // Every start day of four years (a leap year among them), for windows of a year and of a few lengths below.
  for (let first = Date.UTC(2027, 0, 1); first < Date.UTC(2031, 0, 1); first += DAY) {
    for (const days of [1, 7, 30, 45, 90, 365, 366]) {
      const last = first + (days - 1) * DAY;
      const periods = windowPeriods(first, last);
      let at = first;
      for (const period of periods) {
        const start = Date.parse(period.start);
        // Each period starts where the one before ended, on its unit's own start.
        if (start !== at || unitStart(start, period.unit) !== start)
          wrong.push(`${new Date(first).toISOString()} ${days}: ${period.start}`);
        at = unitEnd(start, period.unit);
      }
      if (at !== last + DAY) wrong.push(`${new Date(first).toISOString()} ${days}: ends ${new Date(at).toISOString()}`);
      if (days >= 365) most = Math.max(most, periods.length);
    }
  }
  expect(wrong).toEqual([]);
  expect(most).toBeLessThanOrEqual(31);
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
