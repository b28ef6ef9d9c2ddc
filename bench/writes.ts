/**
 * The write side: trades opened and closed per second through the writer (one transaction each, one writer lane
 * per account, as a bot per account would), the write capacity each costs as DynamoDB Local reports it, and
 * `npm run import` of a long JSON Lines history (rows per second, and the importer's peak memory, which must not grow
 * with the file).
 */
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { generateDataset } from '../scripts/demo/dataset';
import { localWriter } from '../scripts/support/load-data';
import { adminClient, ensureTables, localStore } from '../scripts/local-stack/local-db';
import { type BridgeResults, type IngestResults, measureBridge, measureIngest } from './bots';
import { type ExchangeResults, measureExchangeFeed } from './exchange';
import { type HummingbotResults, measureHummingbot } from './hummingbot';
import { startCommand } from './child-rpc';
import { note } from './progress';
import { round } from './stats';

export interface WriteResults {
  trades: number;
  accounts: number;
  opensPerSecond: number;
  closesPerSecond: number;
  /** Write capacity per call, summed over the transaction's items and indexes, as DynamoDB Local reports it. */
  wcuPerOpen: number;
  wcuPerClose: number;
  /** By table and index, per open and per close. */
  wcuByTarget: { open: Record<string, number>; close: Record<string, number> };
  import: { rows: number; seconds: number; rowsPerSecond: number; peakRssMb: number; startRssMb: number; summary: string };
  ingest: IngestResults;
  bridge: BridgeResults;
  hummingbot: HummingbotResults;
  exchange: ExchangeResults;
}

type Capacity = {
  TableName?: string;
  CapacityUnits?: number;
  Table?: { CapacityUnits?: number };
  GlobalSecondaryIndexes?: Record<string, { CapacityUnits?: number }>;
};

/** Sums the consumed capacity of every transaction made through `client` (a writer's), by table and index. */
function meterWrites(client: DynamoDBDocumentClient) {
  let byTarget: Record<string, number> = {};
  client.middlewareStack.add(
    (next) => async (args) => {
      const input = args.input as { TransactItems?: unknown; ReturnConsumedCapacity?: string };
      if (input.TransactItems) input.ReturnConsumedCapacity = 'INDEXES';
      const result = await next(args);
      for (const capacity of (result.output as { ConsumedCapacity?: Capacity[] }).ConsumedCapacity ?? []) {
        const table = (capacity.TableName ?? '?').replace(/^trading-bot-api-[^-]+-/, '');
        byTarget[table] = (byTarget[table] ?? 0) + (capacity.Table?.CapacityUnits ?? capacity.CapacityUnits ?? 0);
        for (const [index, used] of Object.entries(capacity.GlobalSecondaryIndexes ?? {})) {
          byTarget[`${table}/${index}`] = (byTarget[`${table}/${index}`] ?? 0) + (used.CapacityUnits ?? 0);
        }
      }
      return result;
    },
    { step: 'initialize', name: 'benchWriteMeter' },
  );
  return {
    take() {
      const taken = byTarget;
      byTarget = {};
      return taken;
    },
  };
}

const per = (totals: Record<string, number>, count: number) =>
  Object.fromEntries(Object.entries(totals).map(([target, units]) => [target, round(units / count, 2)]));
const sum = (totals: Record<string, number>) => Object.values(totals).reduce((a, b) => a + b, 0);

/** Peak resident memory of a running process, sampled every 100 ms from /proc. */
function sampleRss(pid: number) {
  let peak = 0;
  let first = 0;
  const read = () => {
    try {
      const kb = Number(/VmRSS:\s+(\d+)/.exec(require('node:fs').readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
      if (!first && kb) first = kb;
      peak = Math.max(peak, kb);
    } catch {
      // Exited.
    }
  };
  const timer = setInterval(read, 100);
  return {
    stop: () => {
      clearInterval(timer);
      return { peakMb: round(peak / 1024, 1), startMb: round(first / 1024, 1) };
    },
  };
}

export async function measureWrites(options: {
  endpoint: string;
  stage: string;
  trades: number;
  accounts: number;
  importRows: number;
  /** Fills of one market the exchange feed mirrors. */
  exchangeFills: number;
  workDir: string;
}): Promise<WriteResults> {
  const { endpoint, stage } = options;
  const admin = adminClient(endpoint);
  // No streams: the bots' writes are measured; DynamoDB Local slows with populated streams (local-db.ts).
  await ensureTables(admin, stage, { streams: false });
  admin.destroy();
  // Each writer writes through a client of the bench's own, metered.
  const clients = Array.from({ length: options.accounts }, () => localStore(endpoint, stage).client);
  const writers = clients.map((client) => localWriter(endpoint, { stage, client }));
  const meters = clients.map(meterWrites);
  const accounts = Array.from({ length: options.accounts }, (_, i) => `w-${i + 1}`);
  try {
    await Promise.all(
      accounts.map((id, i) => writers[i].upsertAccount({ id, name: id, currency: 'USD', broker: 'Bench', environment: 'paper' })),
    );
    for (const meter of meters) meter.take();
    const perAccount = Math.ceil(options.trades / options.accounts);
    const trade = (i: number) => ({
      id: `b-${i}`,
      instrument: 'EUR_USD',
      side: i % 2 ? ('sell' as const) : ('buy' as const),
      units: String(1000 * (1 + (i % 20))),
      openPrice: '1.08420',
      openTime: new Date(Date.UTC(2026, 10, 1) + i * 60_000).toISOString(),
      stopLoss: '1.07000',
    });

    note(`writes: opening ${perAccount * options.accounts} trades through the writer, ${options.accounts} accounts side by side`);
    let started = performance.now();
    await Promise.all(
      accounts.map(async (id, a) => {
        for (let i = 0; i < perAccount; i++) await writers[a].openTrade(id, trade(a * perAccount + i));
      }),
    );
    const openSeconds = (performance.now() - started) / 1000;
    const opens = perAccount * options.accounts;
    const openCapacity = meters
      .map((meter) => meter.take())
      .reduce((all, totals) => {
        for (const [target, units] of Object.entries(totals)) all[target] = (all[target] ?? 0) + units;
        return all;
      }, {});

    note(`writes: closing them`);
    started = performance.now();
    await Promise.all(
      accounts.map(async (id, a) => {
        for (let i = 0; i < perAccount; i++) {
          const n = a * perAccount + i;
          await writers[a].closeTrade(id, `b-${n}`, {
            closePrice: '1.08500',
            closeTime: new Date(Date.UTC(2026, 10, 2) + n * 60_000).toISOString(),
            realizedPL: n % 3 ? '8.0000' : '-4.5000',
          });
        }
      }),
    );
    const closeSeconds = (performance.now() - started) / 1000;
    const closeCapacity = meters
      .map((meter) => meter.take())
      .reduce((all, totals) => {
        for (const [target, units] of Object.entries(totals)) all[target] = (all[target] ?? 0) + units;
        return all;
      }, {});

    const imported = await measureImport({ ...options, endpoint, stage });
    const ingest = await measureIngest({ endpoint, stage, rows: options.importRows, workDir: options.workDir });
    const bridge = await measureBridge({ endpoint, stage, open: 20, closed: 1000, polls: 20 });
    const hummingbot = await measureHummingbot({ endpoint, stage, fills: options.trades });
    const exchange = await measureExchangeFeed({ endpoint, stage, fills: options.exchangeFills });
    return {
      trades: opens,
      accounts: options.accounts,
      opensPerSecond: round(opens / openSeconds, 0),
      closesPerSecond: round(opens / closeSeconds, 0),
      wcuPerOpen: round(sum(openCapacity) / opens, 2),
      wcuPerClose: round(sum(closeCapacity) / opens, 2),
      wcuByTarget: { open: per(openCapacity, opens), close: per(closeCapacity, opens) },
      import: imported,
      ingest,
      bridge,
      hummingbot,
      exchange,
    };
  } finally {
    for (const client of clients) client.destroy();
  }
}

/** Writes a JSON Lines history of `rows` trades and times `npm run import` of it into a new account. */
export async function measureImport(options: {
  endpoint: string;
  stage: string;
  importRows: number;
  workDir: string;
}): Promise<WriteResults['import']> {
  const file = join(options.workDir, 'history.jsonl');
  const dataset = generateDataset({ tradeCounts: [options.importRows], accountId: () => 'imported', seed: 4242 });
  await new Promise<void>((resolve, reject) => {
    const out = createWriteStream(file);
    out.on('error', reject);
    for (const { accountId: _account, ...trade } of dataset.trades) out.write(`${JSON.stringify(trade)}\n`);
    out.end(resolve);
  });
  note(`writes: npm run import of ${options.importRows.toLocaleString('en-US')} rows`);
  const started = performance.now();
  const child = startCommand('import', ['--account', 'imported', '--create', '--currency', 'USD'], options, file);
  const rss = sampleRss(child.pid!);
  let stdout = '';
  child.stdout?.on('data', (chunk) => (stdout += chunk));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  const seconds = (performance.now() - started) / 1000;
  const memory = rss.stop();
  const summary = stdout.trim().split('\n').pop() ?? '';
  if (code !== 0) throw new Error(`import exited with ${code}: ${stdout}`);
  return {
    rows: options.importRows,
    seconds: round(seconds, 1),
    rowsPerSecond: round(options.importRows / seconds, 0),
    peakRssMb: memory.peakMb,
    startRssMb: memory.startMb,
    summary,
  };
}
