/**
 * The two charts, drawn with uPlot (small and fast: canvas, no framework). Plotting needs numbers, so amounts are
 * converted here and only here; every figure shown as text elsewhere stays the API's exact string.
 *
 * Each chart's x axis spans the window its note states (chart-data.ts, chartWindow: the API's `from` to now),
 * whatever the number of points, and labels its times in UTC like the rest of the page. What it drew is written on
 * its container for the browser tests: `data-x-min` and `data-x-max` (the x scale, seconds), `data-x-ticks` (the
 * labelled times, seconds), `data-from` and `data-to` (the window, ISO), `data-plot-left` and `data-plot-width` (the
 * plot's box in canvas pixels), and for the equity chart `data-gaps` and `data-dots` (canvas pixels).
 */
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { isolated, seconds, withGaps } from './chart-data';

function size(container: HTMLElement): { width: number; height: number } {
  return { width: Math.max(280, container.clientWidth), height: 260 };
}

/** Redraws at the container's width when the window changes size; returns a stop function. */
function followWidth(plot: uPlot, container: HTMLElement): () => void {
  const observer = new ResizeObserver(() => plot.setSize(size(container)));
  observer.observe(container);
  return () => {
    observer.disconnect();
    plot.destroy();
  };
}

export interface Chart {
  destroy(): void;
}

const axisStroke = '#3d4451';
const grid = { stroke: '#e3e6ea', width: 1 };
const utcDate = (ts: number) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC');

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
  const plot = new uPlot(
    {
      ...size(container),
      tzDate: utcDate,
      legend: { show: false },
      cursor: { drag: { x: false, y: false } },
      scales: { x: x.scale },
      hooks: { draw: [mark] },
      axes: [x.axis, { stroke: axisStroke, grid, size: 80 }],
      series: [
        {},
        { label: 'NAV', stroke: '#1f5fbf', width: 2, points: { size: 8, space: 16, fill: '#1f5fbf', filter: lone } },
        // A smaller dot, so that where balance and NAV are equal (no open trade) both show; the same spacing, so
        // both series show their points, or only their lone ones, together.
        { label: 'Balance', stroke: '#7a4b00', width: 1.5, dash: [6, 4], points: { size: 5, space: 16, fill: '#7a4b00', filter: lone } },
      ],
    },
    data,
    container,
  );
  return { destroy: followWidth(plot, container) };
}

/** Realized P&L per day as bars, and its running total as a line on its own scale, across `range` (chartWindow's). */
export function pnlChart(container: HTMLElement, points: { start: string; realizedPL: string }[], range: [number, number]): Chart {
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
  const plot = new uPlot(
    {
      ...size(container),
      tzDate: utcDate,
      legend: { show: false },
      cursor: { drag: { x: false, y: false } },
      scales: { x: x.scale, pl: {}, total: {} },
      hooks: { draw: [x.mark] },
      axes: [
        x.axis,
        { scale: 'pl', stroke: axisStroke, grid, size: 70 },
        { scale: 'total', side: 1, stroke: '#1f5fbf', grid: { show: false }, size: 80 },
      ],
      series: [
        {},
        { label: 'Gain', scale: 'pl', fill: 'rgba(46, 125, 50, 0.6)', stroke: '#1e6b22', paths: bars, points: { show: false } },
        { label: 'Loss', scale: 'pl', fill: 'rgba(179, 38, 30, 0.55)', stroke: '#b3261e', paths: bars, points: { show: false } },
        { label: 'Cumulative', scale: 'total', stroke: '#1f5fbf', width: 2 },
      ],
    },
    data,
    container,
  );
  return { destroy: followWidth(plot, container) };
}
