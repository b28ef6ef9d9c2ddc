/**
 * The performance statistics (lib/performance.ts, the writer's `statsAfter`) against a recomputation from the trades
 * themselves, written independently: every figure equal to the last digit, whatever the batches the trades were
 * written in and however they fall across days and instruments.
 */
import fc from 'fast-check';
import { compareDecimals, decimalSign, divideDecimals, formatDecimal, negateDecimal, sumDecimals } from '../../lib/decimal';
import { maxDrawdown, type PerformanceFigures, windowPerformance } from '../../lib/performance';
import type { StatsEntry } from '../../lib/store/ledger-table';
import type { Trade } from '../../lib/types';
import { statsAfter } from '../../packages/writer/src/rules';

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
      }),
    ),
  );

/** The figures of `group`, recomputed one trade at a time with no aggregate in between. */
function expectedFigures(group: readonly Trade[]): PerformanceFigures {
  const wins = group.filter((t) => decimalSign(t.realizedPL) > 0);
  const losses = group.filter((t) => decimalSign(t.realizedPL) < 0);
  // Every amount with the most places of any trade's P&L: sums of zero-padded values have exactly those places.
  const places = Math.max(...['0', ...group.map((t) => t.realizedPL)].map((v) => v.split('.')[1]?.length ?? 0));
  const zero = formatDecimal(0n, places);
  const grossProfit = sumDecimals([zero, ...wins.map((t) => t.realizedPL)]);
  const grossLoss = sumDecimals([zero, ...losses.map((t) => t.realizedPL)]);
  const net = sumDecimals([grossProfit, grossLoss]);
  const ranked = [...group].sort(
    (a, b) =>
      compareDecimals(b.realizedPL, a.realizedPL) ||
      (a.closeTime! < b.closeTime! ? -1 : a.closeTime! > b.closeTime! ? 1 : a.id < b.id ? -1 : 1),
  );
  const lowest = [...group].sort(
    (a, b) =>
      compareDecimals(a.realizedPL, b.realizedPL) ||
      (a.closeTime! < b.closeTime! ? -1 : a.closeTime! > b.closeTime! ? 1 : a.id < b.id ? -1 : 1),
  );
  const held = group.map((t) => BigInt(Date.parse(t.closeTime!) - Date.parse(t.openTime)));
  const n = group.length;
  return {
    closedTrades: n,
    wins: wins.length,
    losses: losses.length,
    breakEvens: n - wins.length - losses.length,
    winRate: n ? divideDecimals(String(wins.length), String(n), 4) : null,
    grossProfit,
    grossLoss,
    netRealizedPL: net,
    profitFactor: losses.length ? divideDecimals(grossProfit, negateDecimal(grossLoss), 4) : null,
    expectancy: n ? divideDecimals(net, String(n), places) : null,
    averageWin: wins.length ? divideDecimals(grossProfit, String(wins.length), places) : null,
    averageLoss: losses.length ? divideDecimals(grossLoss, String(losses.length), places) : null,
    bestTrade: n ? { id: ranked[0].id, realizedPL: ranked[0].realizedPL } : null,
    worstTrade: n ? { id: lowest[0].id, realizedPL: lowest[0].realizedPL } : null,
    averageHoldingSeconds: n ? Number(divideDecimals(String(held.reduce((a, b) => a + b, 0n)), String(n * 1000), 0)) : null,
    longestHoldingSeconds: n ? Number(divideDecimals(String(held.reduce((a, b) => (b > a ? b : a), 0n)), '1000', 0)) : null,
    maxDrawdown: expectedDrawdown(group, zero),
  };
}

/** The largest fall of realized equity, end of day to end of day, found by trying every pair of days. */
function expectedDrawdown(group: readonly Trade[], zero: string): PerformanceFigures['maxDrawdown'] {
  const ends = [...new Set(group.map((t) => Math.floor(Date.parse(t.closeTime!) / DAY) * DAY + DAY))].sort((a, b) => a - b);
  const equityAt = (end: number) => sumDecimals(['0', ...group.filter((t) => Date.parse(t.closeTime!) < end).map((t) => t.realizedPL)]);
  const points = [{ at: Date.parse(FROM), equity: '0' }, ...ends.map((end) => ({ at: end, equity: equityAt(end) }))];
  let best = { amount: zero, ratio: null as string | null, start: null as string | null, end: null as string | null };
  for (let j = 1; j < points.length; j++) {
    // The first highest point before j is the peak it fell from.
    const peak = points.slice(0, j).reduce((high, point) => (compareDecimals(point.equity, high.equity) > 0 ? point : high));
    const fall = sumDecimals([zero, peak.equity, negateDecimal(points[j].equity)]);
    if (compareDecimals(fall, best.amount) > 0) {
      best = {
        amount: fall,
        ratio: decimalSign(peak.equity) > 0 ? divideDecimals(fall, peak.equity, 4) : null,
        start: new Date(peak.at).toISOString(),
        end: new Date(points[j].at).toISOString(),
      };
    }
  }
  return best;
}

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
      const found = windowPerformance(FROM, stored);
      const instruments = [...new Set(all.map((t) => t.instrument))]
        .map((instrument) => ({ instrument, ...expectedFigures(all.filter((t) => t.instrument === instrument)) }))
        .sort((a, b) => compareDecimals(b.netRealizedPL, a.netRealizedPL) || (a.instrument < b.instrument ? -1 : 1));
      expect(found).toEqual({ ...expectedFigures(all), instruments });
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
