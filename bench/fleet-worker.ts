/**
 * Child process that measures the fleet polls against one stage's tables (endpoint and tables in the environment,
 * read by api/config at load), for /api/accounts, /api/all/status, /api/all/balance and /api/all/comparison, on the
 * parent's requests
 * (fleet-figures.ts): `warm` takes each answer's tag (and times the comparison's first, cold, poll); `unchanged` times polls with it (If-None-Match: a 304), in
 * rounds the parent alternates with another fleet's; `rest` times changed polls (one account changed through the
 * writer and projected just before: a 200), then polls without If-None-Match (every item: what every poll cost
 * before the fleet's summary), and measures the version items and what a bot's writes cost, its own and the
 * projector's (write-costs.ts); `metrics` times Prometheus scrapes of /api/metrics on the warm instance (1.4: no
 * If-None-Match, every heartbeat age moves). The fleet projector runs here, over the stage's streams, drained after
 * each write.
 */
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import type { APIGatewayProxyResult, Context } from 'aws-lambda';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { handler as accounts } from '../functions/accounts';
import { handler as allBalance } from '../functions/all-balance';
import { handler as allComparison } from '../functions/all-comparison';
import { handler as allStatus } from '../functions/all-status';
import { handler as metrics } from '../functions/metrics';
import { config } from '../api/config';
import { store } from '../api/database';
import { accountKey } from '@trading-bot-api/core/store/accounts-table';
import { getItem } from '@trading-bot-api/core/store/dynamodb';
import { eventFor } from '../test/kit/api-harness';
import { createWriter } from '@trading-bot-api/writer';
import { localStore } from '../scripts/local-stack/local-db';
import { startStreamPump } from '../scripts/local-stack/stream-pump';
import { serveParent } from './child-rpc';
import { FLEET_OPERATIONS, type FleetOperation, type FleetRequest, figures, type PollFigures, type PollRuns } from './fleet-figures';
import { ReadMeter, type ReadTally } from './read-meter';
import { measureWriteCosts } from './write-costs';

const HANDLERS: Record<FleetOperation, typeof accounts> = {
  accounts,
  'all-status': allStatus,
  'all-balance': allBalance,
  'all-comparison': allComparison,
};

const meter = new ReadMeter();
meter.attach(store.client);
// The writer writes through a client of the bench's own, metered apart from the API's.
const { client: writerClient } = localStore(config.dynamodbEndpoint!, config.stage);
const writer = createWriter({ tables: config.tables, client: writerClient });
const writerMeter = new ReadMeter();
writerMeter.attach(writerClient);
// The fleet projector, on a client of its own too, with the functions' stale threshold.
const projectorStore = localStore(config.dynamodbEndpoint!, config.stage);
const projectorMeter = new ReadMeter();
projectorMeter.attach(projectorStore.client);
const projector = startStreamPump({
  store: projectorStore,
  endpoint: config.dynamodbEndpoint!,
  stage: config.stage,
  env: { STALE_AFTER_SECONDS: String(config.staleAfterSeconds) },
  failedQueue: join(tmpdir(), `projector-failed-${config.stage}.jsonl`),
});
/** The window the write figures date their heartbeats in (a heartbeat into the next one moved a stamp before issue 44). */
const HEARTBEAT_WINDOW_SECONDS = 30;
const context = { awsRequestId: 'bench', functionName: 'bench', getRemainingTimeInMillis: () => 10_000 } as unknown as Context;

async function call(operation: FleetOperation, tag?: string): Promise<{ result: APIGatewayProxyResult; ms: number; reads: ReadTally }> {
  const event = eventFor(operation, { headers: tag ? { 'If-None-Match': tag } : {} });
  meter.reset();
  const started = performance.now();
  const result = (await HANDLERS[operation](event, context)) as APIGatewayProxyResult;
  const ms = performance.now() - started;
  return { result, ms, reads: meter.take() };
}

function runsOf(runs: { result: APIGatewayProxyResult; ms: number; reads: ReadTally }[]): PollRuns {
  return {
    ms: runs.map((run) => run.ms),
    statuses: runs.map((run) => run.result.statusCode),
    itemsRead: runs.map((run) => run.reads.itemsRead),
    rcu: runs.map((run) => run.reads.consumedRcu),
  };
}

/** One account changed as the operation shows it: a balance snapshot (the comparison's too), a bot message, a renamed profile. */
async function change(operation: FleetOperation, accountId: string, n: number): Promise<void> {
  if (operation === 'all-balance' || operation === 'all-comparison') {
    const time = new Date(Date.now() + n).toISOString();
    await writer.recordBalance(accountId, {
      balance: `${1000 + n}.5`,
      unrealizedPL: '0',
      nav: `${1000 + n}.5`,
      marginUsed: '0',
      marginAvailable: `${1000 + n}.5`,
      time,
    });
  } else if (operation === 'all-status') {
    await writer.heartbeat(accountId, { state: 'running', strategy: 'bench', message: `change ${n}` });
  } else {
    await writer.upsertAccount({ id: accountId, name: `Renamed ${n}`, currency: 'USD', broker: 'bench', environment: 'paper' });
  }
  await projector.drain();
}

/** The current tag of each answer: an unchanged poll sends it. */
const tags = new Map<FleetOperation, string>();

/**
 * Warms each answer (the instance's first poll reads everything, and fills what it keeps) and takes its tag. Returns
 * the comparison's first poll: what a cold instance (or a new UTC day) reads of every bot's window.
 */
async function warm(): Promise<PollRuns> {
  // The fleet as loaded, projected.
  await projector.drain();
  const first = [];
  for (const operation of FLEET_OPERATIONS) {
    const run = await call(operation);
    if (operation === 'all-comparison') first.push(run);
    tags.set(operation, (await call(operation)).result.headers!.ETag as string);
  }
  return runsOf(first);
}

/** `samples` scrapes of /api/metrics, as Prometheus sends them, on this warm instance. */
async function scrapes(samples: number): Promise<PollRuns> {
  const runs = [];
  for (let i = 0; i < samples; i++) {
    const event = eventFor('metrics');
    meter.reset();
    const started = performance.now();
    const result = (await metrics(event, context)) as APIGatewayProxyResult;
    runs.push({ result, ms: performance.now() - started, reads: meter.take() });
  }
  return runsOf(runs);
}

/** `samples` unchanged polls of `operation`: the parent alternates rounds of these between fleets (fleet.ts). */
async function unchanged(operation: FleetOperation, samples: number): Promise<PollRuns> {
  const runs = [];
  for (let i = 0; i < samples; i++) runs.push(await call(operation, tags.get(operation)));
  return runsOf(runs);
}

/**
 * The rest, once the unchanged polls are measured: the changed polls (one account changed just before each), the
 * unconditional polls, the version items' sizes and what a bot's writes cost.
 */
async function measureRest(request: { samples: number; changedAccounts: string[] }) {
  const result: Record<string, { changed: PollFigures; unconditional: PollFigures }> = {};
  for (const operation of FLEET_OPERATIONS) {
    let tag = tags.get(operation)!;
    const changed = [];
    for (let i = 0; i < Math.min(request.samples, request.changedAccounts.length); i++) {
      await change(operation, request.changedAccounts[i], i);
      const run = await call(operation, tag);
      tag = run.result.headers!.ETag as string;
      changed.push(run);
    }
    // What a poll cost before the fleet's summary, and costs a client that sends no tag: every item read.
    const unconditional = [];
    for (let i = 0; i < Math.max(3, Math.floor(request.samples / 4)); i++) unconditional.push(await call(operation));
    result[operation] = { changed: figures(runsOf(changed)), unconditional: figures(runsOf(unconditional)) };
  }
  // The version items' sizes: what a bot's change rewrites (DynamoDB bills a write by the item's size, 1 KB units).
  const versionSizes = (await scanItems(config.tables.fleet, (item) => item.part === 'version')).map(sizeOf).sort((a, b) => a - b);
  const costAccount = request.changedAccounts[request.changedAccounts.length - 1];
  const writes = await measureWriteCosts({
    writer,
    writerMeter,
    project: projector.drain,
    projector: projectorMeter,
    accountId: costAccount,
    currency: 'USD',
    windowSeconds: HEARTBEAT_WINDOW_SECONDS,
    start: new Date(),
  });
  const accountBytes = sizeOf((await getItem(store, config.tables.accounts, accountKey(costAccount)))!);
  return {
    polls: result,
    versionItemBytes: { max: versionSizes[versionSizes.length - 1], items: versionSizes.length },
    accountItemBytes: accountBytes,
    writes,
  };
}

/** An item's size about as DynamoDB counts it: its names and values, in bytes (a map's as JSON, a little over). */
function sizeOf(item: Record<string, unknown>): number {
  return Object.entries(item).reduce(
    (bytes, [name, value]) => bytes + name.length + (typeof value === 'object' ? JSON.stringify(value) : String(value)).length,
    0,
  );
}

/** A table's items that `keep` selects (one scan page: the fleet table is a few small items here). */
async function scanItems(table: string, keep: (item: Record<string, unknown>) => boolean): Promise<Record<string, unknown>[]> {
  const scanned = await store.client.send(new ScanCommand({ TableName: table }));
  return (scanned.Items ?? []).filter(keep);
}

serveParent(
  { ready: true },
  async (request: FleetRequest) => {
    if (request.type === 'warm') return warm();
    if (request.type === 'unchanged') return unchanged(request.operation, request.samples);
    if (request.type === 'metrics') return scrapes(request.samples);
    return measureRest(request);
  },
  async () => {
    await projector.stop();
    projectorStore.client.destroy();
    writerClient.destroy();
  },
);
