/**
 * The two charts, drawn with uPlot (small and fast: canvas, no framework). Plotting needs numbers, so amounts are
 * converted here and only here; every figure shown as text elsewhere stays the API's exact string.
 */
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

const seconds = (time: string) => Date.parse(time) / 1000;

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

/**
 * The x values and series of `points` with a null wherever a bucket of `step` seconds has no point: uPlot breaks the
 * line there (its spanGaps is off), so an interval without a snapshot shows as a gap, never as a straight line that
 * invents values across it. Returns the gaps' middles too.
 */
export function withGaps(times: number[], series: number[][], step: number): { data: uPlot.AlignedData; gaps: number[] } {
  const xs: number[] = [];
  const ys: (number | null)[][] = series.map(() => []);
  const gaps: number[] = [];
  times.forEach((time, i) => {
    const previous = times[i - 1];
    if (previous !== undefined && time - previous > step * 1.5) {
      xs.push(previous + step);
      for (const y of ys) y.push(null);
      gaps.push((previous + time) / 2);
    }
    xs.push(time);
    series.forEach((values, s) => {
      ys[s].push(values[i]);
    });
  });
  return { data: [xs, ...ys], gaps };
}

/** NAV and balance over time, in buckets of `step` seconds. */
export function equityChart(container: HTMLElement, points: { time: string; balance: string; nav: string }[], step: number): Chart {
  const { data, gaps } = withGaps(
    points.map((p) => seconds(p.time)),
    [points.map((p) => Number(p.nav)), points.map((p) => Number(p.balance))],
    step,
  );
  // Where the gaps are, in the canvas's own pixels (device pixels, plot offset included): what the browser tests look at.
  const mark = (u: uPlot) => (container.dataset.gaps = gaps.map((gap) => u.valToPos(gap, 'x', true).toFixed(1)).join(' '));
  const plot = new uPlot(
    {
      ...size(container),
      legend: { show: false },
      cursor: { drag: { x: false, y: false } },
      scales: { x: { time: true } },
      hooks: { ready: [mark], setSize: [mark] },
      axes: [
        { stroke: axisStroke, grid },
        { stroke: axisStroke, grid, size: 80 },
      ],
      series: [{}, { label: 'NAV', stroke: '#1f5fbf', width: 2 }, { label: 'Balance', stroke: '#7a4b00', width: 1.5, dash: [6, 4] }],
    },
    data,
    container,
  );
  return { destroy: followWidth(plot, container) };
}

/** Realized P&L per day as bars, and its running total as a line on its own scale. */
export function pnlChart(container: HTMLElement, points: { start: string; realizedPL: string }[]): Chart {
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
  const bars = uPlot.paths.bars!({ size: [0.7, 40] });
  const plot = new uPlot(
    {
      ...size(container),
      legend: { show: false },
      cursor: { drag: { x: false, y: false } },
      scales: { x: { time: true }, pl: {}, total: {} },
      axes: [
        { stroke: axisStroke, grid },
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
