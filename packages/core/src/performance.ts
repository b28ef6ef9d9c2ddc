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
 * - holding time is closeTime − openTime; averages and the longest are in whole seconds, rounded half-even;
 * - fees paid (API 1.5) are the exact sum of the fees charged in the figures' currency (the account's) of the trades
 *   whose fees are known; the trades whose fees are unknown, and those that paid one in another currency (never
 *   converted, so left out of the sum), are counted.
 */
import {
  compareDecimals,
  decimalScale,
  decimalSign,
  divideDecimals,
  formatDecimal,
  negateDecimal,
  sumDecimals,
  trimDecimal,
} from './decimal';
import { feesIn } from './fees';
import { compareIds } from './ids';
import type { Drawdown, PerformanceFigures, Trade } from './types';

/** Digits after the point of every ratio (rounded half-even): the performance figures' and the comparison's return. */
export const RATIO_PLACES = 4;

/** A trade singled out (the best or the worst): its id, P&L and close time (the tie-break). */
type TradeMark = Pick<ClosedTrade, 'accountId' | 'id' | 'realizedPL' | 'closeTime'>;

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
  /** The fees charged in the figures' currency, of the trades whose fees are known (API 1.5); trailing zeros dropped. */
  feesPaid: string;
  /** Trades whose fees are unknown. */
  feesUnknown: number;
  /** Trades that paid a fee in another currency, left out of `feesPaid`. */
  feesElsewhere: number;
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
  feesPaid: '0',
  feesUnknown: 0,
  feesElsewhere: 0,
};

/** What a closed trade contributes. */
export type ClosedTrade = Pick<Trade, 'accountId' | 'id' | 'realizedPL' | 'openTime' | 'fees'> & { closeTime: string };

/** The figures of one closed trade of an account in `currency`. */
export function tradeStats(trade: ClosedTrade, currency: string): StatsFigures {
  const fees = feesIn(trade.fees, currency);
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
    feesPaid: trimDecimal(fees.paid),
    feesUnknown: fees.unknown ? 1 : 0,
    feesElsewhere: fees.elsewhere ? 1 : 0,
  };
}

/** Earlier close first, then the smaller id, then the smaller account id: the order that breaks ties of equal P&L. */
function tieOrder(a: TradeMark, b: TradeMark): number {
  return compareIds(a.closeTime, b.closeTime) || compareIds(a.id, b.id) || compareIds(a.accountId, b.accountId);
}

/** The better (`sign` 1: higher P&L) or worse (-1) of two trades; equal P&L: the first in tieOrder. */
function extreme(a: TradeMark | null, b: TradeMark | null, sign: 1 | -1): TradeMark | null {
  if (!a || !b) return a ?? b;
  const order = sign * compareDecimals(a.realizedPL, b.realizedPL);
  return order > 0 || (order === 0 && tieOrder(a, b) <= 0) ? a : b;
}

/** The figures that do not sum: the longest holding, the places and the extremes. */
type Extremes = Pick<StatsFigures, 'longestHoldingMs' | 'places' | 'best' | 'worst'>;

/** `a` with `b`'s sums added (`sign` 1) or taken out (-1), and `extremes`. */
function combine(a: StatsFigures, b: StatsFigures, sign: 1 | -1, extremes: Extremes): StatsFigures {
  const signed = sign > 0 ? (value: string) => value : negateDecimal;
  // One literal in the interface's order: objects of one shape keep the merges of a window fast.
  return {
    closedTrades: a.closedTrades + sign * b.closedTrades,
    wins: a.wins + sign * b.wins,
    losses: a.losses + sign * b.losses,
    breakEvens: a.breakEvens + sign * b.breakEvens,
    grossProfit: sumDecimals([a.grossProfit, signed(b.grossProfit)]),
    grossLoss: sumDecimals([a.grossLoss, signed(b.grossLoss)]),
    holdingMs: String(sign > 0 ? BigInt(a.holdingMs) + BigInt(b.holdingMs) : BigInt(a.holdingMs) - BigInt(b.holdingMs)),
    longestHoldingMs: extremes.longestHoldingMs,
    places: extremes.places,
    best: extremes.best,
    worst: extremes.worst,
    feesPaid: trimDecimal(sumDecimals([a.feesPaid, signed(b.feesPaid)])),
    feesUnknown: a.feesUnknown + sign * b.feesUnknown,
    feesElsewhere: a.feesElsewhere + sign * b.feesElsewhere,
  };
}

/** The figures of two disjoint sets of trades together. */
export function mergeStats(a: StatsFigures, b: StatsFigures): StatsFigures {
  return combine(a, b, 1, {
    longestHoldingMs: Math.max(a.longestHoldingMs, b.longestHoldingMs),
    places: Math.max(a.places, b.places),
    best: extreme(a.best, b.best, 1),
    worst: extreme(a.worst, b.worst, -1),
  });
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
      a === b || (a !== null && b !== null && a.realizedPL === b.realizedPL && tieOrder(a, b) === 0);
    // `after` holds everything `before` did at its extremes: nothing the total took from `before` is lost.
    if (
      kept.longestHoldingMs !== next.longestHoldingMs ||
      kept.places !== next.places ||
      !same(kept.best, next.best) ||
      !same(kept.worst, next.worst)
    )
      return undefined;
  }
  return combine(combine(total, before ?? NO_TRADES, -1, total), next, 1, mergeStats(total, next));
}

/**
 * How realized equity moved over a run of days (a period, or a window made of periods), counted from zero at its
 * `start`: what the maximum drawdown of any window made of such runs needs, without their days. Two consecutive runs
 * combine into the run of both (`composeRuns`, associative), so a year's drawdown is read from a dozen months.
 *
 * Amounts are exact integers of 10^-`scale` (the most places among the run's days' nets): a window composes dozens of
 * runs of a few instruments each, and decimal strings parsed at every step cost a read more than its items did.
 */
export interface EquityRun {
  start: string;
  scale: number;
  /** The realized P&L of the whole run. */
  net: bigint;
  /** The highest running total, 0 or more (0 at `start`), and when it was first reached (the end of that day). */
  high: bigint;
  highAt: string;
  /** The lowest running total at a day's end, and when it was first reached; null for a run of no days. */
  low: bigint | null;
  lowAt: string | null;
  /** The run's own largest fall: from `peak` (a running total) at `drawdownStart` to `drawdownEnd`; 0: none. */
  drawdown: bigint;
  drawdownStart: string | null;
  drawdownEnd: string | null;
  peak: bigint;
}

/** A day's net as an exact integer of 10^-`scale` (rollups.ts reads each stored net once). */
export interface DailyUnits {
  end: string;
  units: bigint;
}

/** The run of `days` (in order, each net in units of 10^-`scale`) from `start`; of no days, a run that moved nothing. */
export function runOfUnits(start: string, scale: number, days: readonly DailyUnits[]): EquityRun {
  const run: EquityRun = {
    start,
    scale,
    net: 0n,
    high: 0n,
    highAt: start,
    low: null,
    lowAt: null,
    drawdown: 0n,
    drawdownStart: null,
    drawdownEnd: null,
    peak: 0n,
  };
  for (const day of days) {
    run.net += day.units;
    if (run.low === null || run.net < run.low) [run.low, run.lowAt] = [run.net, day.end];
    if (run.net > run.high) {
      [run.high, run.highAt] = [run.net, day.end];
      continue;
    }
    const fall = run.high - run.net;
    if (fall > run.drawdown) Object.assign(run, { drawdown: fall, drawdownStart: run.highAt, drawdownEnd: day.end, peak: run.high });
  }
  return run;
}

/** 10^n as a BigInt, for the scales amounts have. */
const POWERS = Array.from({ length: 40 }, (_, n) => 10n ** BigInt(n));

/**
 * `value` (a decimal string of at most `scale` places) as an integer of 10^-`scale`. A window parses thousands of
 * days' nets: digits that a double holds exactly (15 or fewer) go through Number, three times faster than BigInt's
 * own parse of the text.
 */
export function unitsOf(value: string, scale: number): bigint {
  const point = value.indexOf('.');
  const places = point < 0 ? 0 : value.length - point - 1;
  const digits = point < 0 ? value : value.slice(0, point) + value.slice(point + 1);
  const units = digits.length <= 15 ? BigInt(Number(digits)) : BigInt(digits);
  return places === scale ? units : units * (POWERS[scale - places] ?? 10n ** BigInt(scale - places));
}

/**
 * `run` with its amounts in units of 10^-`scale`: more places, or fewer when its amounts have no digit there (a run
 * of several instruments' days is parsed at the most places among them; each instrument's is written at its own).
 */
function rescaled(run: EquityRun, scale: number): EquityRun {
  if (run.scale === scale) return run;
  const move =
    scale > run.scale
      ? (units: bigint) => units * 10n ** BigInt(scale - run.scale)
      : (units: bigint) => units / 10n ** BigInt(run.scale - scale);
  return {
    ...run,
    scale,
    net: move(run.net),
    high: move(run.high),
    low: run.low === null ? null : move(run.low),
    drawdown: move(run.drawdown),
    peak: move(run.peak),
  };
}

/**
 * The run of `a` followed by `b` (which starts where `a` ends), exactly as `runOfUnits` makes it from both's days. The
 * largest fall is `a`'s own, or from `a`'s high to `b`'s low, or `b`'s own; on equal amounts the earlier end wins, as
 * day by day: `a`'s fall ends before any of `b`'s, and when the fall from `a`'s high equals `b`'s own, `b`'s own
 * cannot end earlier (its trough would be `b`'s low, reached first at `lowAt`).
 */
export function composeRuns(first: EquityRun, second: EquityRun): EquityRun {
  const scale = Math.max(first.scale, second.scale);
  const [a, b] = [rescaled(first, scale), rescaled(second, scale)];
  const bHigh = a.net + b.high;
  const [high, highAt] = bHigh > a.high ? [bHigh, b.highAt] : [a.high, a.highAt];
  const bLow = b.low === null ? null : a.net + b.low;
  const [low, lowAt] = bLow !== null && (a.low === null || bLow < a.low) ? [bLow, b.lowAt] : [a.low, a.lowAt];
  let fall = { drawdown: a.drawdown, drawdownStart: a.drawdownStart, drawdownEnd: a.drawdownEnd, peak: a.peak };
  if (bLow !== null && a.high - bLow > fall.drawdown)
    fall = { drawdown: a.high - bLow, drawdownStart: a.highAt, drawdownEnd: b.lowAt, peak: a.high };
  if (b.drawdown > fall.drawdown)
    fall = { drawdown: b.drawdown, drawdownStart: b.drawdownStart, drawdownEnd: b.drawdownEnd, peak: a.net + b.peak };
  return { start: a.start, scale, net: a.net + b.net, high, highAt, low, lowAt, ...fall };
}

/**
 * The largest fall of realized equity over a run: the amount is exact; nothing fell: amount 0, no ratio, start or
 * end. The ratio is against the equity at the peak: `startBalance` (the balance at the run's start; null when
 * unknown) plus the realized P&L to the peak, so it is at most 1 while the account never went below zero. The amount
 * is written with `places` digits after the point (the trades' most; its days' nets have no digit beyond them).
 */
export function drawdownOf(run: EquityRun, startBalance: string | null = null, places = run.scale): Drawdown {
  const { drawdown, peak, scale } = rescaled(run, places);
  const amount = formatDecimal(drawdown, scale);
  const equityAtPeak = startBalance === null ? null : sumDecimals([startBalance, formatDecimal(peak, scale)]);
  const ratio =
    run.drawdownStart !== null && equityAtPeak !== null && decimalSign(equityAtPeak) > 0
      ? divideDecimals(amount, equityAtPeak, RATIO_PLACES)
      : null;
  return { amount, ratio, start: run.drawdownStart, end: run.drawdownEnd };
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
    // Whole seconds, rounded half-even, as the average's.
    longestHoldingSeconds: stats.closedTrades ? Number(divideDecimals(String(stats.longestHoldingMs), '1000', 0)) : null,
    maxDrawdown: { ...drawdown, amount: withPlaces(drawdown.amount, places) },
    feesPaid: stats.feesPaid,
    tradesWithUnknownFees: stats.feesUnknown,
    tradesWithOtherCurrencyFees: stats.feesElsewhere,
  };
}
