/**
 * Performance statistics of closed trades (API 1.2, issue 16), as pure functions over exact decimal strings.
 *
 * The writer keeps one `StatsFigures` per account, period (day, block of a month, month: rollups.ts) and instrument:
 * it folds each closed trade in with `mergeStats(stored, tradeStats(trade))`. A read folds the stored periods of a
 * window the same way, then derives the ratios and averages with `performanceOf`. Because `mergeStats` is associative
 * and commutative, the figures of a window do not depend on how its trades were grouped into periods or batches; the
 * drawdown, which depends on the order of the days, composes by `composeRuns`.
 *
 * Definitions (the OpenAPI document states the same):
 * - a win has realized P&L above zero, a loss below, a break-even exactly zero;
 * - ratios (win rate, profit factor, drawdown ratio) are rounded half-even to 4 places;
 * - every amount is written with the most places any of the trades' realized P&L has: sums (gross profit and
 *   loss, net, drawdown) exactly, averages (expectancy, average win and loss) rounded half-even to those places;
 * - the best trade has the highest realized P&L, the worst the lowest; a tie goes to the earlier close, then to the
 *   smaller id, then to the smaller account id;
 * - holding time is closeTime − openTime; averages and the longest are in whole seconds, rounded half-even.
 */
import { compareDecimals, decimalScale, decimalSign, divideDecimals, formatDecimal, negateDecimal, sumDecimals } from './decimal';
import { shiftPeriodStart, timestamp } from './time';
import type { Drawdown, InstrumentPerformance, PerformanceFigures } from './types';

/** Digits after the point of every ratio. */
export const RATIO_PLACES = 4;

/** A trade singled out (the best or the worst): its id, P&L and close time (the tie-break). */
export interface TradeMark {
  accountId: string;
  id: string;
  realizedPL: string;
  closeTime: string;
}

/** The summable figures of a set of closed trades. */
export interface StatsFigures {
  closedTrades: number;
  wins: number;
  losses: number;
  breakEvens: number;
  /** Sum of the wins' P&L (0 or more). */
  grossProfit: string;
  /** Sum of the losses' P&L (0 or less). */
  grossLoss: string;
  /** Sum of holding times in milliseconds, as an integer string: a long history passes 2^53. */
  holdingMs: string;
  longestHoldingMs: number;
  /** The most digits after the point among the trades' realized P&L: the places of the averages. */
  places: number;
  best: TradeMark | null;
  worst: TradeMark | null;
}

export const NO_TRADES: StatsFigures = {
  closedTrades: 0,
  wins: 0,
  losses: 0,
  breakEvens: 0,
  grossProfit: '0',
  grossLoss: '0',
  holdingMs: '0',
  longestHoldingMs: 0,
  places: 0,
  best: null,
  worst: null,
};

/** What a closed trade contributes. */
export interface ClosedTrade {
  accountId: string;
  id: string;
  realizedPL: string;
  openTime: string;
  closeTime: string;
}

/** The figures of one closed trade. */
export function tradeStats(trade: ClosedTrade): StatsFigures {
  const sign = decimalSign(trade.realizedPL);
  const held = Math.max(0, Date.parse(trade.closeTime) - Date.parse(trade.openTime));
  const mark = { accountId: trade.accountId, id: trade.id, realizedPL: trade.realizedPL, closeTime: trade.closeTime };
  return {
    closedTrades: 1,
    wins: sign > 0 ? 1 : 0,
    losses: sign < 0 ? 1 : 0,
    breakEvens: sign === 0 ? 1 : 0,
    grossProfit: sign > 0 ? trade.realizedPL : '0',
    grossLoss: sign < 0 ? trade.realizedPL : '0',
    holdingMs: String(held),
    longestHoldingMs: held,
    places: decimalScale(trade.realizedPL),
    best: mark,
    worst: mark,
  };
}

/** Earlier close first, then the smaller id, then the smaller account id: the order that breaks ties of equal P&L. */
function tieOrder(a: TradeMark, b: TradeMark): number {
  if (a.closeTime !== b.closeTime) return a.closeTime < b.closeTime ? -1 : 1;
  if (a.id !== b.id) return a.id < b.id ? -1 : 1;
  return a.accountId < b.accountId ? -1 : a.accountId > b.accountId ? 1 : 0;
}

function better(a: TradeMark | null, b: TradeMark | null): TradeMark | null {
  if (!a || !b) return a ?? b;
  const order = compareDecimals(a.realizedPL, b.realizedPL);
  return order > 0 || (order === 0 && tieOrder(a, b) <= 0) ? a : b;
}

function worse(a: TradeMark | null, b: TradeMark | null): TradeMark | null {
  if (!a || !b) return a ?? b;
  const order = compareDecimals(a.realizedPL, b.realizedPL);
  return order < 0 || (order === 0 && tieOrder(a, b) <= 0) ? a : b;
}

/** The figures of two disjoint sets of trades together. */
export function mergeStats(a: StatsFigures, b: StatsFigures): StatsFigures {
  return {
    closedTrades: a.closedTrades + b.closedTrades,
    wins: a.wins + b.wins,
    losses: a.losses + b.losses,
    breakEvens: a.breakEvens + b.breakEvens,
    grossProfit: sumDecimals([a.grossProfit, b.grossProfit]),
    grossLoss: sumDecimals([a.grossLoss, b.grossLoss]),
    holdingMs: String(BigInt(a.holdingMs) + BigInt(b.holdingMs)),
    longestHoldingMs: Math.max(a.longestHoldingMs, b.longestHoldingMs),
    places: Math.max(a.places, b.places),
    best: better(a.best, b.best),
    worst: worse(a.worst, b.worst),
  };
}

/**
 * `total` (figures merged from several contributions) with one contribution's figures `before` replaced by `after`
 * (null: none), exactly as merging the contributions again would make it; undefined when that cannot be told from
 * the three: `after` drops a best or worst trade, the longest holding or the places `before` brought, which another
 * contribution may or may not also hold. The sums move by the difference; the extremes only ever improve here.
 */
export function replaceContribution(
  total: StatsFigures,
  before: StatsFigures | null,
  after: StatsFigures | null,
): StatsFigures | undefined {
  const next = after ?? NO_TRADES;
  if (before) {
    const kept = mergeStats(before, next);
    const same = (a: TradeMark | null, b: TradeMark | null) =>
      a === b ||
      (a !== null &&
        b !== null &&
        a.accountId === b.accountId &&
        a.id === b.id &&
        a.realizedPL === b.realizedPL &&
        a.closeTime === b.closeTime);
    // `after` holds everything `before` did at its extremes: nothing the total took from `before` is lost.
    if (
      kept.longestHoldingMs !== next.longestHoldingMs ||
      kept.places !== next.places ||
      !same(kept.best, next.best) ||
      !same(kept.worst, next.worst)
    )
      return undefined;
  }
  const minus = before ?? NO_TRADES;
  return {
    ...mergeStats(total, next),
    closedTrades: total.closedTrades - minus.closedTrades + next.closedTrades,
    wins: total.wins - minus.wins + next.wins,
    losses: total.losses - minus.losses + next.losses,
    breakEvens: total.breakEvens - minus.breakEvens + next.breakEvens,
    grossProfit: sumDecimals([total.grossProfit, negateDecimal(minus.grossProfit), next.grossProfit]),
    grossLoss: sumDecimals([total.grossLoss, negateDecimal(minus.grossLoss), next.grossLoss]),
    holdingMs: String(BigInt(total.holdingMs) - BigInt(minus.holdingMs) + BigInt(next.holdingMs)),
  };
}

/** A day's net realized P&L: `end` is the end of that day (the next day's start). */
export interface DailyNet {
  end: string;
  net: string;
}

/**
 * How realized equity moved over a run of days (a period, or a window made of periods), counted from zero at its
 * `start`: what the maximum drawdown of any window made of such runs needs, without their days. Two consecutive runs
 * combine into the run of both (`composeRuns`, associative), so a year's drawdown is read from a dozen months.
 */
export interface EquityRun {
  start: string;
  /** The realized P&L of the whole run. */
  net: string;
  /** The highest running total, 0 or more (0 at `start`), and when it was first reached (the end of that day). */
  high: string;
  highAt: string;
  /** The lowest running total at a day's end, and when it was first reached; null for a run of no days. */
  low: string | null;
  lowAt: string | null;
  /** The run's own largest fall: from `peak` (a running total) at `drawdownStart` to `drawdownEnd`; amount 0: none. */
  drawdown: string;
  drawdownStart: string | null;
  drawdownEnd: string | null;
  peak: string;
}

/** A run of no days from `start`. */
export function emptyRun(start: string): EquityRun {
  return {
    start,
    net: '0',
    high: '0',
    highAt: start,
    low: null,
    lowAt: null,
    drawdown: '0',
    drawdownStart: null,
    drawdownEnd: null,
    peak: '0',
  };
}

/** The run of `days` (in order) from `start`: the day-by-day computation every composition must equal. */
export function runOf(start: string, days: readonly DailyNet[]): EquityRun {
  const run = emptyRun(start);
  for (const day of days) {
    run.net = sumDecimals([run.net, day.net]);
    if (run.low === null || compareDecimals(run.net, run.low) < 0) [run.low, run.lowAt] = [run.net, day.end];
    if (compareDecimals(run.net, run.high) > 0) {
      [run.high, run.highAt] = [run.net, day.end];
      continue;
    }
    const fall = sumDecimals([run.high, negateDecimal(run.net)]);
    if (compareDecimals(fall, run.drawdown) > 0)
      Object.assign(run, { drawdown: fall, drawdownStart: run.highAt, drawdownEnd: day.end, peak: run.high });
  }
  return run;
}

/**
 * The run of `a` followed by `b` (which starts where `a` ends), exactly as `runOf` makes it from both's days. The
 * largest fall is `a`'s own, or from `a`'s high to `b`'s low, or `b`'s own; on equal amounts the earlier end wins, as
 * day by day: `a`'s fall ends before any of `b`'s, and when the fall from `a`'s high equals `b`'s own, `b`'s own
 * cannot end earlier (its trough would be `b`'s low, reached first at `lowAt`).
 */
export function composeRuns(a: EquityRun, b: EquityRun): EquityRun {
  const shift = (amount: string) => sumDecimals([a.net, amount]);
  const bHigh = shift(b.high);
  const [high, highAt] = compareDecimals(bHigh, a.high) > 0 ? [bHigh, b.highAt] : [a.high, a.highAt];
  const bLow = b.low === null ? null : shift(b.low);
  const [low, lowAt] = bLow !== null && (a.low === null || compareDecimals(bLow, a.low) < 0) ? [bLow, b.lowAt] : [a.low, a.lowAt];
  let fall = { drawdown: a.drawdown, drawdownStart: a.drawdownStart, drawdownEnd: a.drawdownEnd, peak: a.peak };
  if (bLow !== null) {
    const across = sumDecimals([a.high, negateDecimal(bLow)]);
    if (compareDecimals(across, fall.drawdown) > 0)
      fall = { drawdown: across, drawdownStart: a.highAt, drawdownEnd: b.lowAt, peak: a.high };
  }
  if (compareDecimals(b.drawdown, fall.drawdown) > 0)
    fall = { drawdown: b.drawdown, drawdownStart: b.drawdownStart, drawdownEnd: b.drawdownEnd, peak: shift(b.peak) };
  return { start: a.start, net: shift(b.net), high, highAt, low, lowAt, ...fall };
}

/**
 * The largest fall of realized equity over a run: the amount is exact; nothing fell: amount 0, no ratio, start or
 * end. The ratio is against the equity at the peak: `startBalance` (the balance at the run's start; null when
 * unknown) plus the realized P&L to the peak, so it is at most 1 while the account never went below zero.
 */
export function drawdownOf(run: EquityRun, startBalance: string | null = null): Drawdown {
  const equityAtPeak = startBalance === null ? null : sumDecimals([startBalance, run.peak]);
  const ratio =
    run.drawdownStart !== null && equityAtPeak !== null && decimalSign(equityAtPeak) > 0
      ? divideDecimals(run.drawdown, equityAtPeak, RATIO_PLACES)
      : null;
  return { amount: run.drawdown, ratio, start: run.drawdownStart, end: run.drawdownEnd };
}

/**
 * The largest fall of realized equity over a window: realized P&L counts from zero at `from` and moves by each day's
 * net, in order (drawdownOf says the rest).
 */
export function maxDrawdown(from: string, days: readonly DailyNet[], startBalance: string | null = null): Drawdown {
  return drawdownOf(runOf(from, days), startBalance);
}

/** Whole seconds of `ms` milliseconds, rounded half-even. */
function seconds(ms: string): number {
  return Number(divideDecimals(ms, '1000', 0));
}

/** `value` written with `places` digits after the point (never fewer than it has): the same amount, exactly. */
function withPlaces(value: string, places: number): string {
  return sumDecimals([value, formatDecimal(0n, places)]);
}

/** The ratios and averages of `stats`, with the drawdown computed from the same trades' daily nets. */
export function performanceOf(stats: StatsFigures, drawdown: Drawdown): PerformanceFigures {
  const { places } = stats;
  const net = withPlaces(sumDecimals([stats.grossProfit, stats.grossLoss]), places);
  const mark = (trade: TradeMark | null) => (trade ? { accountId: trade.accountId, id: trade.id, realizedPL: trade.realizedPL } : null);
  return {
    closedTrades: stats.closedTrades,
    wins: stats.wins,
    losses: stats.losses,
    breakEvens: stats.breakEvens,
    winRate: stats.closedTrades ? divideDecimals(String(stats.wins), String(stats.closedTrades), RATIO_PLACES) : null,
    grossProfit: withPlaces(stats.grossProfit, places),
    grossLoss: withPlaces(stats.grossLoss, places),
    netRealizedPL: net,
    profitFactor: decimalSign(stats.grossLoss) < 0 ? divideDecimals(stats.grossProfit, negateDecimal(stats.grossLoss), RATIO_PLACES) : null,
    expectancy: stats.closedTrades ? divideDecimals(net, String(stats.closedTrades), places) : null,
    averageWin: stats.wins ? divideDecimals(stats.grossProfit, String(stats.wins), places) : null,
    averageLoss: stats.losses ? divideDecimals(stats.grossLoss, String(stats.losses), places) : null,
    bestTrade: mark(stats.best),
    worstTrade: mark(stats.worst),
    averageHoldingSeconds: stats.closedTrades ? Number(divideDecimals(stats.holdingMs, String(stats.closedTrades * 1000), 0)) : null,
    longestHoldingSeconds: stats.closedTrades ? seconds(String(stats.longestHoldingMs)) : null,
    maxDrawdown: { ...drawdown, amount: withPlaces(drawdown.amount, places) },
  };
}

/** The figures of one instrument's trades closed in one UTC day (`start`), as the writer keeps them. */
export interface DayFigures extends StatsFigures {
  start: string;
  instrument: string;
}

/** The figures of days, and their drawdown from `from`: one instrument's or several's, summed day by day. */
function figuresOf(from: string, days: readonly DayFigures[], startBalance: string | null): PerformanceFigures {
  const byDay = new Map<string, string[]>();
  for (const day of days) {
    const nets = byDay.get(day.start) ?? [];
    nets.push(day.grossProfit, day.grossLoss);
    byDay.set(day.start, nets);
  }
  const nets = [...byDay]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([start, amounts]) => ({ end: timestamp(shiftPeriodStart(Date.parse(start), 'day', 1)), net: sumDecimals(amounts) }));
  return performanceOf(days.reduce<StatsFigures>(mergeStats, NO_TRADES), maxDrawdown(from, nets, startBalance));
}

/**
 * The performance of a window that starts at `from`, from its days' figures (any instruments, any order): the
 * whole, and each instrument's, sorted by net realized P&L (highest first; ties by instrument). `startBalance` is the
 * balance at `from` that drawdown ratios are measured against (an instrument's: that balance plus its own realized
 * P&L to its peak); null when unknown.
 */
export function windowPerformance(
  from: string,
  days: readonly DayFigures[],
  startBalance: string | null = null,
): PerformanceFigures & { instruments: InstrumentPerformance[] } {
  const instruments = [...new Set(days.map((day) => day.instrument))].map((instrument) => ({
    instrument,
    ...figuresOf(
      from,
      days.filter((day) => day.instrument === instrument),
      startBalance,
    ),
  }));
  instruments.sort((a, b) => compareDecimals(b.netRealizedPL, a.netRealizedPL) || (a.instrument < b.instrument ? -1 : 1));
  return { ...figuresOf(from, days, startBalance), instruments };
}
