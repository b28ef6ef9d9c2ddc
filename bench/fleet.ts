/**
 * The fleet phase of `npm run bench`: a fleet of 5 bots and one of 1,000 (by default), each written through the
 * event-line ingester (packages/feeds/src/ingest: an account, a balance snapshot and a heartbeat per bot, as a bot's
 * own lines would be), then the fleet polls measured in a worker (fleet-worker.ts): unchanged (a 304), changed (one
 * account changed just before) and unconditional (no If-None-Match: what every poll cost before the fleet's summary).
 * Also what one open dashboard's fleet polls cost a month at on-demand prices.
 */
import { Readable } from 'node:stream';
import { join } from 'node:path';
import { ingest } from '@trading-bot-api/feeds/ingest/ingest';
import { streamLines } from '@trading-bot-api/feeds/ingest/source';
import { localWriter } from '../scripts/support/load-data';
import { adminClient, ensureTables } from '../scripts/local-stack/local-db';
import { type Child, startChild } from './child-rpc';
import { FLEET_OPERATIONS, type FleetOperation, type FleetRequest, figures, type PollFigures, type PollRuns } from './fleet-figures';
import { ROOT } from './options';
import { note } from './progress';
import { round } from './stats';
import type { WriteCost, WriteKind } from './write-costs';

/** On-demand prices of read and write request units, us-east-1 (USD per million; AWS's prices since 1 November 2024). */
const PRICE_PER_MILLION_READS = 0.125;
const PRICE_PER_MILLION_WRITES = 0.625;
/** The dashboard's fleet view polls /api/all/status and /api/all/balance every 5 s (dashboard/src/views/fleet.ts). */
const DASHBOARD_POLL_SECONDS = 5;
/**
 * How often each bot's heartbeat moved its stamp before the fleet's versions (issue 44: a stamp's window under the
 * deployed 300 s threshold): the month's figure of a heartbeat into a new window is priced at that rate.
 */
const HEARTBEAT_WINDOW_SECONDS = 240;
const SECONDS_PER_MONTH = 30 * 24 * 3600;

interface FleetSize {
  accounts: number;
  loadSeconds: number;
  polls: Record<FleetOperation, { unchanged: PollFigures; changed: PollFigures; unconditional: PollFigures }>;
  /** The comparison's (1.8) first poll on a cold instance: every bot's window read (as on each new UTC day). */
  comparisonFirst: PollFigures;
  /** Prometheus scrapes of /api/metrics (1.4) on a warm instance: a 200 every time, read as the fleet polls read. */
  metrics: PollFigures;
  /** The fleet table's items a bot's heartbeat, balance or profile may rewrite (the versions): the largest, and how many. */
  versionItemBytes: { max: number; items: number };
  /** Each kind of bot write, in write units as DynamoDB Local reports them: the bot's own, and the projector's for it (write-costs.ts). */
  writes: Record<WriteKind, WriteCost>;
  /** One open dashboard's fleet polls (status and balance every 5 s, all unchanged), per month. */
  dashboardMonth: { readUnits: number; usd: number; unconditionalReadUnits: number; unconditionalUsd: number };
  accountItemBytes: number;
  /** What the projector writes a month for every bot's heartbeat into a new window each HEARTBEAT_WINDOW_SECONDS, on demand. */
  heartbeatMonth: { writeUnits: number; usd: number };
}

export interface FleetResults {
  sizes: FleetSize[];
  pricePerMillionReads: number;
  pricePerMillionWrites: number;
  pollSeconds: number;
  heartbeatWindowSeconds: number;
}

const STATES = ['running', 'running', 'running', 'running', 'running', 'running', 'paused', 'stopped', 'error'] as const;

/** The event lines of `count` bots: each an account, a balance snapshot and a heartbeat. */
export function fleetLines(count: number, now: Date): string {
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const account = `bot-${String(i).padStart(4, '0')}`;
    const currency = i % 5 === 4 ? 'EUR' : 'USD';
    const balance = `${10_000 + ((i * 7919) % 5000)}.${String(i % 100).padStart(2, '0')}`;
    const state = STATES[i % STATES.length];
    lines.push(
      JSON.stringify({ type: 'account', account, name: `Bot ${i}`, currency, broker: 'bench', environment: 'paper' }),
      JSON.stringify({
        type: 'balance',
        account,
        balance,
        unrealizedPL: '0',
        nav: balance,
        marginUsed: '0',
        marginAvailable: balance,
        time: now.toISOString(),
      }),
      JSON.stringify({
        type: 'heartbeat',
        account,
        state,
        strategy: 'bench',
        ...(state === 'error' ? { message: 'broker refused the order' } : {}),
        time: now.toISOString(),
      }),
    );
  }
  return `${lines.join('\n')}\n`;
}

/** Unchanged polls are timed in this many rounds, alternating between the fleets (see measureFleet). */
const ROUNDS = 10;

/** One fleet's stage loaded through the ingester, and the worker that polls it. */
async function loadFleet(
  count: number,
  options: { endpoint: string; env: (stage: string) => NodeJS.ProcessEnv; onStarted: (close: () => Promise<void>) => void },
): Promise<{ count: number; loadSeconds: number; worker: Child; comparisonFirst: PollFigures }> {
  const stage = `benchfleet${count}`;
  const client = adminClient(options.endpoint);
  await ensureTables(client, stage);
  client.destroy();
  const writer = localWriter(options.endpoint, { stage });
  const started = Date.now();
  note(`fleet: ${count} bots through the event-line ingester`);
  try {
    const result = await ingest({
      writer,
      source: streamLines(Readable.from([fleetLines(count, new Date())])),
      report: (line) => note(`fleet: ${line}`),
      giveUpAfterMs: 60_000,
    });
    if (result.rejected || result.gaveUp || result.written !== 3 * count) {
      throw new Error(`fleet: the ingester wrote ${result.written} of ${3 * count} lines (${result.rejected} refused)`);
    }
  } finally {
    writer.close();
  }
  const loadSeconds = round((Date.now() - started) / 1000, 1);
  // Heartbeats at load time and the deployed stale threshold (300 s): no bot turns stale while it is measured.
  const worker = startChild(join(ROOT, 'bench', 'fleet-worker.ts'), { ...options.env(stage), STALE_AFTER_SECONDS: '300' }, [], {
    quiet: true,
  });
  options.onStarted(() => worker.close());
  await worker.ready;
  const comparisonFirst = figures(await worker.call<PollRuns>({ type: 'warm' } satisfies FleetRequest));
  return { count, loadSeconds, worker, comparisonFirst };
}

/**
 * Loads every fleet, then times their unchanged polls in alternating rounds (5 bots, 1,000 bots, 5 bots, …) so
 * that whatever the machine or DynamoDB Local does meanwhile weighs on both alike: the ratio of their p50s is the
 * target. Then, fleet by fleet, the changed polls, the unconditional ones and the write figures.
 */
export async function measureFleet(options: {
  endpoint: string;
  sizes: number[];
  samples: number;
  env: (stage: string) => NodeJS.ProcessEnv;
  onStarted: (close: () => Promise<void>) => void;
}): Promise<FleetResults> {
  const fleets = [];
  for (const count of options.sizes) fleets.push(await loadFleet(count, options));
  note(`fleet: timing the unchanged polls of ${options.sizes.join(' and ')} bots, alternating`);
  const empty = (): PollRuns => ({ ms: [], statuses: [], itemsRead: [], rcu: [] });
  const unchanged = fleets.map(() => Object.fromEntries(FLEET_OPERATIONS.map((operation) => [operation, empty()])));
  for (let round = 0; round < ROUNDS; round++) {
    for (const operation of FLEET_OPERATIONS) {
      for (const [f, fleet] of fleets.entries()) {
        const runs = await fleet.worker.call<PollRuns>({
          type: 'unchanged',
          operation,
          samples: Math.ceil(options.samples / ROUNDS),
        } satisfies FleetRequest);
        for (const key of ['ms', 'statuses', 'itemsRead', 'rcu'] as const) unchanged[f][operation][key].push(...runs[key]);
      }
    }
  }
  const sizes: FleetSize[] = [];
  for (const [f, { count, loadSeconds, worker, comparisonFirst }] of fleets.entries()) {
    note(`fleet: measuring the metrics scrapes of ${count} bots`);
    // The first scrape fills the instance's stamped caches, as a deployed instance's first does: not measured.
    await worker.call<PollRuns>({ type: 'metrics', samples: 1 } satisfies FleetRequest);
    const metrics = figures(
      await worker.call<PollRuns>({ type: 'metrics', samples: Math.max(3, Math.floor(options.samples / 4)) } satisfies FleetRequest),
    );
    note(`fleet: measuring the changed polls of ${count} bots`);
    // USD accounts only: the accounts poll's change renames a profile, and the currency never changes.
    const changedAccounts = Array.from({ length: count }, (_, i) => i)
      .filter((i) => i % 5 !== 4)
      .map((i) => `bot-${String(i).padStart(4, '0')}`);
    const rest = await worker.call<
      Pick<FleetSize, 'versionItemBytes' | 'writes' | 'accountItemBytes'> & {
        polls: Record<FleetOperation, { changed: PollFigures; unconditional: PollFigures }>;
      }
    >({ type: 'rest', samples: options.samples, changedAccounts } satisfies FleetRequest);
    await worker.close();
    const measured = {
      ...rest,
      polls: Object.fromEntries(
        FLEET_OPERATIONS.map((operation) => [operation, { unchanged: figures(unchanged[f][operation]), ...rest.polls[operation] }]),
      ) as FleetSize['polls'],
    };
    const pollsPerMonth = SECONDS_PER_MONTH / DASHBOARD_POLL_SECONDS;
    const refreshesPerMonth = (count * SECONDS_PER_MONTH) / HEARTBEAT_WINDOW_SECONDS;
    const heartbeatWrites = measured.writes.heartbeatNewWindow.projected * refreshesPerMonth;
    const month = (figure: 'unchanged' | 'unconditional') =>
      (['all-status', 'all-balance'] as const).reduce((sum, operation) => sum + measured.polls[operation][figure].rcu, 0) * pollsPerMonth;
    sizes.push({
      accounts: count,
      loadSeconds,
      ...measured,
      comparisonFirst,
      metrics,
      dashboardMonth: {
        readUnits: Math.round(month('unchanged')),
        usd: round((month('unchanged') / 1e6) * PRICE_PER_MILLION_READS, 2),
        unconditionalReadUnits: Math.round(month('unconditional')),
        unconditionalUsd: round((month('unconditional') / 1e6) * PRICE_PER_MILLION_READS, 2),
      },
      heartbeatMonth: { writeUnits: Math.round(heartbeatWrites), usd: round((heartbeatWrites / 1e6) * PRICE_PER_MILLION_WRITES, 2) },
    });
  }
  return {
    sizes,
    pricePerMillionReads: PRICE_PER_MILLION_READS,
    pricePerMillionWrites: PRICE_PER_MILLION_WRITES,
    pollSeconds: DASHBOARD_POLL_SECONDS,
    heartbeatWindowSeconds: HEARTBEAT_WINDOW_SECONDS,
  };
}
