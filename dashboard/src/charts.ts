/**
 * The two charts, drawn with uPlot (small and fast: canvas, no framework). Plotting needs numbers, so amounts are
 * converted here and only here; every figure shown as text elsewhere stays the API's exact string.
 *
 * Each chart's x axis spans the window its note states (chart-data.ts, chartWindow: the API's `from` to now),
 * whatever the number of points, and labels its times in UTC like the rest of the page. What it drew is written on
 * its container for the browser tests: `data-x-min` and `data-x-max` (the x scale, seconds), `data-x-ticks` (the
 * labelled times, seconds), `data-from` and `data-to` (the window, ISO), `data-plot-left` and `data-plot-width` (the
 * plot's box in canvas pixels), `data-y-label` and `data-y-values` (the left axis's title and its ticks as written,
 * `|`-separated), and for the equity chart `data-gaps` and `data-dots` (canvas pixels).
 *
 * The y axes are amounts of the account's currency: the axis's title names it, and its ticks are written as that
 * currency is (format.ts, tickText: a fiat currency's fractional ticks at its minor units, a crypto's at the places
 * the step needs, at most 8), each axis as wide as its longest tick, so none is cut.
 */
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { isolated, seconds, sharedZeroRanges, withGaps } from './chart-data';
import { tickText } from './format';

function size(container: HTMLElement): { width: number; height: number } {
  return { width: Math.max(280, container.clientWidth), height: 260 };
}

/**
 * A uPlot chart in `container`, at its width and the page's clock (UTC), without legend or drag-zoom; redrawn at the
 * container's width when the window changes size.
 */
function plotIn(container: HTMLElement, options: Omit<uPlot.Options, 'width' | 'height'>, data: uPlot.AlignedData): Chart {
  const plot = new uPlot(
    { ...size(container), tzDate: utcDate, legend: { show: false }, cursor: { drag: { x: false, y: false } }, ...options },
    data,
    container,
  );
  const observer = new ResizeObserver(() => plot.setSize(size(container)));
  observer.observe(container);
  return () => {
    observer.disconnect();
    plot.destroy();
  };
}

/** A chart drawn: called, it lets go of its canvas and its resize observer. */
export type Chart = () => void;

const axisStroke = '#3d4451';
const grid = { stroke: '#e3e6ea', width: 1 };
const utcDate = (ts: number) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC');

/** The axes' font (uPlot's default face), set so that a tick's width can be measured before it is drawn. */
const AXIS_FONT = '12px system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif';
let measuring: CanvasRenderingContext2D | null | undefined;

/** Width in CSS pixels of the widest of `texts` in the axes' font. */
function widest(texts: string[]): number {
  measuring ??= document.createElement('canvas').getContext('2d');
  if (!measuring) return 8 * Math.max(0, ...texts.map((text) => text.length));
  measuring.font = AXIS_FONT;
  return Math.max(0, ...texts.map((text) => measuring!.measureText(text).width));
}

/**
 * A y axis of amounts in `currency`: titled `title` and the code, its ticks written as that currency is, as wide as
 * its widest tick (ticks 10 px and gap 5 px, uPlot's, and a margin). With `container`, its title and ticks as written
 * go on it (`data-y-label`, `data-y-values`).
 */
function moneyAxis(currency: string, title: string, options: uPlot.Axis, container?: HTMLElement): uPlot.Axis {
  const label = `${title} (${currency})`;
  if (container) container.dataset.yLabel = label;
  return {
    stroke: axisStroke,
    grid,
    font: AXIS_FONT,
    label,
    labelSize: 22,
    labelFont: AXIS_FONT,
    values: (_u, splits, _axis, _space, step) => {
      const values = splits.map((split) => (split === null ? '' : tickText(split, step, currency)));
      if (container) container.dataset.yValues = values.join('|');
      return values;
    },
    size: (_u, values) => Math.ceil(10 + 5 + widest(values ?? []) + 6),
    ...options,
  };
}

/**
 * The x scale and axis of a chart over `range`, and a hook that writes on `container` what was drawn: the scale as
 * uPlot settled it and the times it labelled (an axis filter sees every labelled split, after uPlot chose them).
 */
function timeAxis(container: HTMLElement, range: [number, number]) {
  let ticks: number[] = [];
  const iso = (value: number) => new Date(value * 1000).toISOString();
  return {
    scale: { time: true, range: (): uPlot.Range.MinMax => range },
    axis: {
      stroke: axisStroke,
      grid,
      filter: (_u: uPlot, splits: number[]) => {
        ticks = splits.filter((split) => split !== null);
        return splits;
      },
    },
    mark: (u: uPlot) => {
      Object.assign(container.dataset, {
        from: iso(range[0]),
        to: iso(range[1]),
        xMin: String(u.scales.x.min),
        xMax: String(u.scales.x.max),
        xTicks: ticks.join(' '),
        plotLeft: String(u.bbox.left),
        plotWidth: String(u.bbox.width),
      });
    },
  };
}

/**
 * NAV and balance over time, in buckets of `step` seconds, across `range` (chartWindow's). A snapshot with no other
 * beside it (the only one, or one between gaps) is drawn as a dot: a line needs two points.
 */
export function equityChart(
  container: HTMLElement,
  points: { time: string; balance: string; nav: string }[],
  step: number,
  range: [number, number],
  currency: string,
): Chart {
  const { data, gaps } = withGaps(
    points.map((p) => seconds(p.time)),
    [points.map((p) => Number(p.nav)), points.map((p) => Number(p.balance))],
    step,
  );
  const x = timeAxis(container, range);
  // uPlot shows every point of a sparse series by itself; of a dense one, none unless a filter names them.
  const lone = (u: uPlot, series: number, show: boolean) => {
    if (show) return null;
    const found = isolated(u.data[series] as (number | null)[]);
    return found.length ? found : null;
  };
  // Where the gaps and the lone NAV points are, in the canvas's own pixels (device pixels, plot offset included).
  const mark = (u: uPlot) => {
    x.mark(u);
    const pixel = (value: number, scale: string) => u.valToPos(value, scale, true).toFixed(1);
    container.dataset.gaps = gaps.map((gap) => pixel(gap, 'x')).join(' ');
    container.dataset.dots = isolated(u.data[1] as (number | null)[])
      .map((i) => `${pixel(u.data[0][i], 'x')},${pixel(u.data[1][i] as number, 'y')}`)
      .join(' ');
  };
  return plotIn(
    container,
    {
      scales: { x: x.scale },
      hooks: { draw: [mark] },
      axes: [x.axis, moneyAxis(currency, 'NAV and balance', {}, container)],
      series: [
        {},
        { label: 'NAV', stroke: '#1f5fbf', width: 2, points: { size: 8, space: 16, fill: '#1f5fbf', filter: lone } },
        // A smaller dot, so that where balance and NAV are equal (no open trade) both show; the same spacing, so
        // both series show their points, or only their lone ones, together.
        { label: 'Balance', stroke: '#7a4b00', width: 1.5, dash: [6, 4], points: { size: 5, space: 16, fill: '#7a4b00', filter: lone } },
      ],
    },
    data,
  );
}

/**
 * Realized P&L per day as bars (left axis), and its running total since the window's start as a line (right axis),
 * across `range` (chartWindow's). The two axes share their zero line (sharedZeroRanges), written on the container as
 * `data-zero-left` and `data-zero-right` (canvas pixels) for the browser tests.
 */
export function pnlChart(
  container: HTMLElement,
  points: { start: string; realizedPL: string }[],
  range: [number, number],
  currency: string,
): Chart {
  let total = 0;
  const cumulative = points.map((p) => (total += Number(p.realizedPL)));
  const values = points.map((p) => Number(p.realizedPL));
  // Gains and losses as two bar series, so each has its colour.
  const data: uPlot.AlignedData = [
    points.map((p) => seconds(p.start)),
    values.map((v) => (v >= 0 ? v : null)),
    values.map((v) => (v < 0 ? v : null)),
    cumulative,
  ];
  const x = timeAxis(container, range);
  const bars = uPlot.paths.bars!({ size: [0.7, 40] });
  const [plRange, totalRange] = sharedZeroRanges(values, cumulative);
  const mark = (u: uPlot) => {
    x.mark(u);
    container.dataset.zeroLeft = u.valToPos(0, 'pl', true).toFixed(1);
    container.dataset.zeroRight = u.valToPos(0, 'total', true).toFixed(1);
  };
  return plotIn(
    container,
    {
      scales: { x: x.scale, pl: { range: () => plRange }, total: { range: () => totalRange } },
      hooks: { draw: [mark] },
      axes: [
        x.axis,
        moneyAxis(currency, 'Per day, bars', { scale: 'pl' }, container),
        moneyAxis(currency, 'Running total, line', { scale: 'total', side: 1, stroke: '#1f5fbf', grid: { show: false } }),
      ],
      series: [
        {},
        { label: 'Gain', scale: 'pl', fill: 'rgba(46, 125, 50, 0.6)', stroke: '#1e6b22', paths: bars, points: { show: false } },
        { label: 'Loss', scale: 'pl', fill: 'rgba(179, 38, 30, 0.55)', stroke: '#b3261e', paths: bars, points: { show: false } },
        { label: 'Cumulative', scale: 'total', stroke: '#1f5fbf', width: 2 },
      ],
    },
    data,
  );
}
