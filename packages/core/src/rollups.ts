/**
 * The performance statistics' roll-ups (issue 29): the figures of closed trades kept per UTC day, per block of a month
 * and per UTC month, each period one item holding every instrument's figures, so a window of any length reads its
 * whole months, then whole blocks, then days only at its ragged edges: a year is about 30 items, not a day per
 * instrument traded.
 *
 * A block is a month's days 1–7, 8–14, 15–21, 22–28, or 29 to its end: blocks nest in months, so a window's edge
 * inside a month is at most 4 blocks and 6 days.
 *
 * A period's item holds, per instrument, the summable figures (performance.ts's StatsFigures) and each of its days'
 * net realized P&L: the days' nets are what the period's equity run (performance.ts's EquityRun: net, highest and
 * lowest running totals, its own largest fall) is computed from when read, so the maximum drawdown of a window is
 * the composition of its periods' runs, exact, without reading their days.
 */
import { compareDecimals, negateDecimal, sumDecimals } from './decimal';
import {
  type ClosedTrade,
  composeRuns,
  type DailyUnits,
  drawdownOf,
  type EquityRun,
  mergeStats,
  NO_TRADES,
  performanceOf,
  replaceContribution,
  runOfUnits,
  type StatsFigures,
  tradeStats,
  unitsOf,
} from './performance';
import { periodStart, shiftPeriodStart, timestamp } from './time';
import type { InstrumentPerformance, PerformanceFigures } from './types';

export type StatsUnit = 'day' | 'block' | 'month';

/** The units a closed trade counts in: each of its day's. */
const STATS_UNITS: readonly StatsUnit[] = ['day', 'block', 'month'];

const DAY = 86_400_000;
/** The days of a block, and the last block's first day of the month (29th): it runs to the month's end. */
const BLOCK_DAYS = 7;
const LAST_BLOCK_FROM = 4 * BLOCK_DAYS + 1;

/** The start of the unit holding the time `ms`. */
export function unitStart(ms: number, unit: StatsUnit): number {
  const day = periodStart(ms, 'day');
  if (unit === 'day') return day;
  const month = periodStart(day, 'month');
  if (unit === 'month') return month;
  const block = Math.min(4, Math.floor((new Date(day).getUTCDate() - 1) / BLOCK_DAYS));
  return month + block * BLOCK_DAYS * DAY;
}

/** The start of the day after the last of the unit starting at `start`. */
export function unitEnd(start: number, unit: StatsUnit): number {
  if (unit === 'day') return start + DAY;
  const monthEnd = shiftPeriodStart(periodStart(start, 'month'), 'month', 1);
  if (unit === 'month') return monthEnd;
  return new Date(start).getUTCDate() >= LAST_BLOCK_FROM ? monthEnd : Math.min(monthEnd, start + BLOCK_DAYS * DAY);
}

/** A period of the roll-ups: its unit and start (a stored time). */
export interface PeriodKey {
  unit: StatsUnit;
  start: string;
}

/**
 * The periods a window of whole UTC days [`firstDay`, `lastDay`] (day starts, ms) is read from, in order, each whole
 * inside the window: a month where one fits, else a block, else a day. They cover every day of the window once.
 */
export function windowPeriods(firstDay: number, lastDay: number): PeriodKey[] {
  const periods: PeriodKey[] = [];
  const end = lastDay + DAY;
  for (let at = firstDay; at < end; ) {
    const unit =
      (['month', 'block'] as const).find((candidate) => unitStart(at, candidate) === at && unitEnd(at, candidate) <= end) ?? 'day';
    periods.push({ unit, start: timestamp(at) });
    at = unitEnd(at, unit);
  }
  return periods;
}

/** One instrument's figures over a period, and the net realized P&L of each of its days that had a close ("01"–"31"). */
interface InstrumentPeriod extends StatsFigures {
  nets: Record<string, string>;
}

/** The figures of one period, per instrument (an instrument with no close in it is absent). */
export type PeriodFigures = Record<string, InstrumentPeriod>;

/**
 * `period` with the closed trades `trades` (each of its `instrument`, of an account in `currency`) counted in, in order: a new object, `period`
 * unchanged. Each instrument's figures and nets are copied once, not once per trade: a writer's transaction counts
 * dozens of trades into the same month (issue 29: the importer's copies of a month's every instrument per trade).
 */
export function withTrades(
  period: PeriodFigures,
  trades: readonly (ClosedTrade & { instrument: string })[],
  currency: string,
): PeriodFigures {
  const next: PeriodFigures = { ...period };
  const copied = new Set<string>();
  for (const trade of trades) {
    const { nets: heldNets, ...figures } = next[trade.instrument] ?? { ...NO_TRADES, nets: {} };
    const nets = copied.has(trade.instrument) ? heldNets : { ...heldNets };
    copied.add(trade.instrument);
    // The day of the month of its close, as a period's nets are keyed.
    const day = trade.closeTime.slice(8, 10);
    nets[day] = sumDecimals([nets[day] ?? '0', trade.realizedPL]);
    next[trade.instrument] = { ...mergeStats(figures, tradeStats(trade, currency)), nets };
  }
  return next;
}

/** A period's id among an owner's: `<unit>#<start>`. */
export function periodId(key: PeriodKey): string {
  return `${key.unit}#${key.start}`;
}

/** The periods of every unit a trade closed at `closeTime` counts in. */
export function periodsOfClose(closeTime: string): PeriodKey[] {
  return STATS_UNITS.map((unit) => ({ unit, start: timestamp(unitStart(Date.parse(closeTime), unit)) }));
}

/** Two owners' figures of the same period together (the fleet's: its accounts' merged, their days' nets summed). */
export function mergePeriods(a: PeriodFigures, b: PeriodFigures): PeriodFigures {
  const merged: PeriodFigures = { ...a };
  for (const [instrument, theirs] of Object.entries(b)) {
    const ours = merged[instrument];
    if (!ours) {
      merged[instrument] = theirs;
      continue;
    }
    const nets = { ...ours.nets };
    for (const [day, net] of Object.entries(theirs.nets)) nets[day] = sumDecimals([nets[day] ?? '0', net]);
    // mergeStats reads the figures alone: each instrument's `nets` are left out of what it makes.
    merged[instrument] = { ...mergeStats(ours, theirs), nets };
  }
  return merged;
}

/**
 * `total` (several owners' figures of one period merged) with one owner's `before` replaced by `after` (null: none),
 * exactly as merging the owners' again would make it; undefined when that cannot be told from the three (an
 * instrument's best or worst trade, longest holding or places that `after` drops: performance.ts's replaceContribution).
 * The days' nets move by the difference.
 */
export function replacePeriod(total: PeriodFigures, before: PeriodFigures | null, after: PeriodFigures | null): PeriodFigures | undefined {
  const next: PeriodFigures = { ...total };
  for (const instrument of new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])) {
    const [was, now] = [before?.[instrument] ?? null, after?.[instrument] ?? null];
    // replaceContribution, as mergeStats, reads the figures alone and makes new ones without the `nets`.
    const figures = replaceContribution(total[instrument] ?? NO_TRADES, was, now);
    if (!figures) return undefined;
    const nets = { ...total[instrument]?.nets };
    for (const day of new Set([...Object.keys(was?.nets ?? {}), ...Object.keys(now?.nets ?? {})])) {
      // A day left with no close keeps a net of 0, which moves no running total: the same run as without it.
      nets[day] = sumDecimals([nets[day] ?? '0', negateDecimal(was?.nets[day] ?? '0'), now?.nets[day] ?? '0']);
    }
    if (figures.closedTrades === 0) delete next[instrument];
    else next[instrument] = { ...figures, nets };
  }
  return next;
}

/** A period read for a window: its key and its figures (empty: no close in it, or no item). */
export interface ReadPeriod extends PeriodKey {
  figures: PeriodFigures;
}

/** The end of each day of the month starting `month` (`YYYY-MM-`), by day ("01"–"31"): computed once per process. */
const dayEnds = new Map<string, string>();

function dayEnd(month: string, day: string): string {
  const key = `${month}${day}`;
  if (!dayEnds.has(key)) dayEnds.set(key, timestamp(Date.parse(`${key}T00:00:00.000Z`) + DAY));
  return dayEnds.get(key)!;
}

/**
 * A period's days as exact integers of 10^-`scale`, read once per window: each instrument's figures and days, and the
 * days of every instrument together (a day's nets summed), each list in order.
 */
interface ParsedPeriod {
  start: string;
  days: DailyUnits[];
  instruments: Map<string, { figures: StatsFigures; days: DailyUnits[] }>;
}

/** The periods' figures with every day's net as an integer of 10^-`scale` (the most places among them). */
function parsePeriods(periods: readonly ReadPeriod[]): { scale: number; parsed: ParsedPeriod[] } {
  let scale = 0;
  // Places counted from the text: the stored nets are plain decimals (the writer's sums), parsed once below.
  for (const period of periods)
    for (const { nets } of Object.values(period.figures))
      for (const net of Object.values(nets)) scale = Math.max(scale, net.includes('.') ? net.length - net.indexOf('.') - 1 : 0);
  const parsed = periods.map((period) => {
    const month = period.start.slice(0, 8);
    const endOf = (day: string) => dayEnd(month, day);
    const instruments = new Map<string, { figures: StatsFigures; days: DailyUnits[] }>();
    const together = new Map<string, bigint>();
    for (const [instrument, { nets, ...figures }] of Object.entries(period.figures)) {
      const days = Object.keys(nets)
        .sort()
        .map((day) => {
          const units = unitsOf(nets[day], scale);
          together.set(day, (together.get(day) ?? 0n) + units);
          return { end: endOf(day), units };
        });
      instruments.set(instrument, { figures, days });
    }
    const days = [...together.keys()].sort().map((day) => ({ end: endOf(day), units: together.get(day)! }));
    return { start: period.start, days, instruments };
  });
  return { scale, parsed };
}

/** The equity run over the parsed periods, in order, of the days `daysOf` picks in each: their runs composed. */
function runOver(parsed: readonly ParsedPeriod[], scale: number, daysOf: (period: ParsedPeriod) => readonly DailyUnits[]): EquityRun {
  let run = runOfUnits(parsed[0].start, scale, []);
  for (const period of parsed) run = composeRuns(run, runOfUnits(period.start, scale, daysOf(period)));
  return run;
}

/**
 * The performance of a window from the periods it is read from (windowPeriods, in order, each with its figures): the
 * whole, and each instrument's, sorted by net realized P&L (highest first; ties by instrument). `startBalance` is the
 * balance at the window's start that drawdown ratios are measured against (an instrument's: that balance plus its own
 * realized P&L to its peak); null when unknown.
 */
export function periodsPerformance(
  periods: readonly ReadPeriod[],
  startBalance: string | null = null,
): PerformanceFigures & { instruments: InstrumentPerformance[] } {
  const { scale, parsed } = parsePeriods(periods);
  const summary = (stats: StatsFigures, run: EquityRun) => performanceOf(stats, drawdownOf(run, startBalance, stats.places));
  const names = [...new Set(parsed.flatMap((period) => [...period.instruments.keys()]))];
  // Each instrument's figures are summed once, and the whole's are theirs together: mergeStats is associative and
  // commutative, so the grouping changes nothing (summing every period's again for the whole took as long).
  const figures = names.map((instrument) =>
    parsed.reduce((sum, period) => {
      const held = period.instruments.get(instrument);
      return held ? mergeStats(sum, held.figures) : sum;
    }, NO_TRADES),
  );
  const instruments = names.map((instrument, i) => {
    const run = runOver(parsed, scale, (period) => period.instruments.get(instrument)?.days ?? []);
    return { instrument, ...summary(figures[i], run) };
  });
  instruments.sort((a, b) => compareDecimals(b.netRealizedPL, a.netRealizedPL) || (a.instrument < b.instrument ? -1 : 1));
  const whole = figures.reduce((sum, each) => mergeStats(sum, each), NO_TRADES);
  const run = runOver(parsed, scale, (period) => period.days);
  return { ...summary(whole, run), instruments };
}
