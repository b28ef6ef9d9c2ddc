/**
 * How soon the dashboard draws a large fleet's first page: a fleet of `bots` written through the event-line ingester
 * (as in the fleet phase), the local API as `npm start` runs it (serverless offline behind the local gateway, the
 * projector fed from the streams), and Chromium loading `/` afresh `samples` times. Each load is timed by the page's
 * own clock, from the navigation's start to the first page of cards drawn with the whole fleet counted. A target of
 * the bench, not of a test: under `npm test` the two cores are shared with other files, and a time judged there fails
 * on a slow hour rather than on a slow dashboard.
 */
import { Readable } from 'node:stream';
import type { Browser } from 'playwright-core';
import { ingest } from '@trading-bot-api/feeds/ingest/ingest';
import { streamLines } from '@trading-bot-api/feeds/ingest/source';
import { launchChromium } from '../test/kit/browser';
import { adminClient, ensureTables } from '../scripts/local-stack/local-db';
import { startLocalApi } from '../scripts/local-stack/local-api';
import { localWriter } from '../scripts/support/load-data';
import { fleetLines } from './fleet';
import { note } from './progress';
import { median, round } from './stats';

export interface DashboardDraw {
  bots: number;
  /** Each fresh load's time to the first page of cards, by the page's clock (performance.now()). */
  firstPageMs: number[];
  p50Ms: number;
  maxMs: number;
}

/** The stage the fleet is written to (tables with streams, as a deployed stage's). */
const DRAW_STAGE = 'benchdraw';

export async function measureDashboardDraw(options: {
  endpoint: string;
  bots: number;
  samples: number;
  cursorSecret: string;
  onStarted: (close: () => Promise<void>) => void;
}): Promise<DashboardDraw> {
  const { endpoint, bots } = options;
  const admin = adminClient(endpoint);
  await ensureTables(admin, DRAW_STAGE);
  admin.destroy();
  note(`dashboard draw: ${bots} bots through the event-line ingester`);
  const writer = localWriter(endpoint, { stage: DRAW_STAGE });
  try {
    const result = await ingest({ writer, source: streamLines(Readable.from([fleetLines(bots, new Date())])), report: () => undefined });
    if (result.rejected || result.written !== 3 * bots)
      throw new Error(`dashboard draw: the ingester wrote ${result.written} of ${3 * bots} lines`);
  } finally {
    writer.close();
  }
  // The API answers once everything written so far is projected into the fleet's summary. Heartbeats at load time
  // and the deployed stale threshold: no bot turns stale while it is measured.
  const api = await startLocalApi({
    stage: DRAW_STAGE,
    dbEndpoint: endpoint,
    cursorSecret: options.cursorSecret,
    port: 0,
    lambdaPort: 0,
    auth: false,
    quiet: true,
    env: { STALE_AFTER_SECONDS: '300' },
  });
  let browser: Browser | undefined;
  // Once, whether the measurement ends or the bench is interrupted meanwhile (its cleanups call it too).
  let closed: Promise<void> | undefined;
  const close = () =>
    (closed ??= (async () => {
      await browser?.close();
      await api.stop();
    })());
  options.onStarted(close);
  const firstPageMs: number[] = [];
  try {
    browser = await launchChromium();
    // The first load warms what a user's first load finds warm on a deployed stage (the functions' instances); not counted.
    for (let sample = 0; sample <= options.samples; sample++) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      await page.goto(`${api.url}/`);
      // A string, not a function: tsx names the functions it compiles with a helper the page does not have.
      const drawnAt = await page.evaluate<number>(`new Promise((resolve) => {
        const check = () => {
          const summary = document.querySelector('[data-testid=summary]')?.textContent ?? '';
          if (summary.startsWith('${bots} bots') && document.querySelectorAll('[data-testid=fleet] article').length > 0)
            resolve(performance.now());
          else requestAnimationFrame(check);
        };
        check();
      })`);
      await context.close();
      if (sample > 0) firstPageMs.push(round(drawnAt, 0));
      note(`dashboard draw: load ${sample}${sample === 0 ? ' (warm-up)' : ''} drew the first page in ${Math.round(drawnAt)} ms`);
    }
  } finally {
    await close();
  }
  return { bots, firstPageMs, p50Ms: median(firstPageMs), maxMs: Math.max(...firstPageMs) };
}
