/**
 * `npm run bench`: how the API's reads scale and what they cost.
 *
 *  1. Builds every function with the deploy esbuild settings and times its import against a DocumentClient-only
 *     baseline (first, while nothing else runs on the machine).
 *  2. Starts DynamoDB Local in memory and loads a deterministic dataset (N accounts × M trades) into one stage's
 *     tables, and a 1,000-trade dataset over the same accounts into another's, through the writer
 *     (scripts/support/load-data).
 *  3. For each query, a worker process per dataset invokes the real handler in-process and the raw SDK floor, and
 *     meters items read and capacity. The two datasets are measured query by query, alternately, in several passes
 *     over the list whose samples are pooled, so drift or a stall of the machine does not bias one query or ratio.
 *  4. Peak RSS of a node process serving 100 pages of limit=500 through the bundled all-trades function.
 *  5. autocannon against the local API (`npm start`'s gateway and serverless offline) on a trade listing and on the
 *     health check, then 50 connections on the listing while the memory of serverless offline is sampled.
 *  6. The writer's opens and closes, and the importer.
 *  7. The fleet polls (/api/accounts, /api/all/status, /api/all/balance) at 5 bots and at 1,000, loaded through the
 *     event-line ingester: unchanged, changed, and as they were before the fleet's stamps (bench/fleet.ts).
 *  8. Prints the tables and the targets, writes the JSON results.
 *
 * Exit status is non-zero only when something could not be measured; missed targets are reported, not thrown.
 */
import '../scripts/support/quiet-sdk';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { type Dataset, DEFAULT_ANCHOR, generateDataset } from '../scripts/demo/dataset';
import { DYNAMODB_LOCAL, type LocalDb, startDynamoDbLocal } from '../scripts/local-stack/dynamodb-local';
import { loadDataset, localWriter } from '../scripts/support/load-data';
import { adminClient, ensureTables, LOCAL_AWS_ENV, localFunctionEnv, localStore } from '../scripts/local-stack/local-db';
import { rebuildFleet } from '../api/projector/rebuild';
import type { LocalApi } from '../scripts/local-stack/local-api';
import { buildBundles, measureImports } from './bundles';
import { type Child, startChild } from './child-rpc';
import { measureDashboardDraw } from './dashboard-draw';
import { measureDashboard } from './dashboard-size';
import { measureFleet } from './fleet';
import { measureExchangeFeed } from './exchange';
import { measureHummingbot } from './hummingbot';
import { type HttpResults, measureHttp } from './http-load';
import { pool, type QueryPass } from './measurement';
import { type BenchOptions, EQUITY_HISTORY, parseOptions, ROOT, SEED, SMALL_STAGE, STAGE, WRITE_STAGE } from './options';
import { note, progress } from './progress';
import { benchQueries, DEEP_LIMIT, type QuerySpec } from './queries';
import {
  bundleTargets,
  dashboardDrawTarget,
  comparisonTarget,
  fleetTarget,
  exchangeTarget,
  hummingbotPasses,
  importTarget,
  judge,
  perOperation,
  printBundles,
  printedDraw,
  printFleet,
  printQueries,
  printReport,
  queryRow,
  TARGETS,
} from './report';
import { median, round } from './stats';
import { measureImport, measureWrites } from './writes';

const run = promisify(execFile);

/** Things to stop on the way out, newest first, whether the run ends normally, fails or is interrupted. */
const cleanups: (() => Promise<void> | void)[] = [];
async function cleanUp(): Promise<void> {
  while (cleanups.length) {
    try {
      await cleanups.pop()!();
    } catch (error) {
      note(`cleanup: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

let cursorSecret = '';

/** The environment of a process that runs the functions against `stage`'s tables (api/config reads it at load). */
function functionEnv(endpoint: string, stage: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...localFunctionEnv(stage, endpoint, cursorSecret), AUTH_MODE: 'off' };
  // Plain `node` children must not inherit a loader or flags from whoever started the bench.
  delete env.NODE_OPTIONS;
  return env;
}

interface LoadedDb {
  label: string;
  endpoint: string;
  stage: string;
  trades: number;
  loadSeconds: number;
}

/** Resident memory (MB) of a process and every process below it, from /proc. */
export function treeRssMb(pid: number): number {
  const children = new Map<number, number[]>();
  const rss = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = readFileSync(`/proc/${entry}/status`, 'utf8');
      const parent = Number(/^PPid:\s+(\d+)/m.exec(status)?.[1]);
      rss.set(Number(entry), Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0));
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // Gone meanwhile.
    }
  }
  const total = (id: number): number => (rss.get(id) ?? 0) + (children.get(id) ?? []).reduce((sum, child) => sum + total(child), 0);
  return round(total(pid) / 1024, 1);
}

/** Creates `stage`'s tables in the bench's DynamoDB Local and writes `dataset` into them through the writer. */
async function loadDatabase(db: LocalDb, stage: string, label: string, dataset: Dataset): Promise<LoadedDb> {
  const trades = dataset.trades.length;
  const { endpoint } = db;
  const client = adminClient(endpoint);
  const writer = localWriter(endpoint, { stage });
  try {
    // No streams: the query phase reads what the writer wrote, and the summary rebuilt from it; only the fleet phase
    // runs the projector (fleet.ts).
    await ensureTables(client, stage, { streams: false });
    const bar = progress(`load ${label} through the writer`, trades, 'trades');
    const started = Date.now();
    await loadDataset(writer, dataset, (done) => bar.update(done));
    bar.finish();
    // The fleet's summary, as `npm run backfill` builds it when a stage is deployed: the fleet answers read it (their
    // versions, the currencies' roll-ups and P&L).
    await rebuildFleet(localStore(endpoint, stage));
    const loadSeconds = round((Date.now() - started) / 1000, 1);
    return { label, endpoint, stage, trades, loadSeconds };
  } finally {
    writer.close();
    client.destroy();
  }
}

/** `total` trades spread as evenly as possible over `accounts` accounts. */
function spread(total: number, accounts: number): number[] {
  return Array.from({ length: accounts }, (_, i) => Math.floor(total / accounts) + (i < total % accounts ? 1 : 0));
}

async function peakRss(db: LoadedDb, bundleFile: string, pages: number) {
  const { stdout } = await run(
    process.execPath,
    [join(ROOT, 'bench', 'serve-pages.cjs'), bundleFile, join(ROOT, 'events', 'all-trades.json'), String(pages), String(DEEP_LIMIT)],
    { env: functionEnv(db.endpoint, db.stage), cwd: ROOT, maxBuffer: 64 * 2 ** 20 },
  );
  // The handler's access log lines come first (it logs as deployed); the report is the last line.
  const report = JSON.parse(stdout.trim().split('\n').pop()!) as {
    pages: number;
    trades: number;
    restarts: number;
    maxRssKb: number;
    heapUsedMb: number;
  };
  return {
    peakRssMb: round(report.maxRssKb / 1024, 1),
    pages: report.pages,
    limit: DEEP_LIMIT,
    trades: report.trades,
    function: 'all-trades',
    heapUsedMb: round(report.heapUsedMb, 1),
  };
}

/** Builds every function and the baseline into `work`, and times their imports: the bench's first phase. */
async function measureBundles(options: BenchOptions, work: string) {
  note('bundles: building functions/*.ts and the baseline with the deploy esbuild settings');
  const built = await buildBundles(work);
  const bar = progress('bundles: import samples', built.length * options.importSamples, 'samples');
  // No database is needed to load a bundle; the configuration still has to be valid.
  const rows = await measureImports(built, options.importSamples, functionEnv('http://127.0.0.1:9', STAGE), (done) => bar.update(done));
  bar.finish();
  return { bundles: built, bundleRows: rows };
}

/** `--only bundles`: the bundles' table and their two targets, in a minute rather than the whole bench's hour. */
async function onlyBundles(options: BenchOptions): Promise<void> {
  cursorSecret = randomBytes(32).toString('hex');
  Object.assign(process.env, LOCAL_AWS_ENV);
  const work = mkdtempSync(join(tmpdir(), 'trading-bot-bench-'));
  cleanups.push(() => rmSync(work, { recursive: true, force: true }));
  const { bundleRows } = await measureBundles(options, work);
  printBundles(console.log, bundleRows);
  for (const target of bundleTargets(bundleRows)) console.log(`${target.pass ? 'PASS' : 'MISS'} ${target.target}: ${target.detail}`);
}

/** A fresh DynamoDB Local with the write stage's tables (no streams), closed when the bench ends. */
async function freshWriteDatabase(): Promise<{ endpoint: string }> {
  Object.assign(process.env, LOCAL_AWS_ENV);
  const db = await startDynamoDbLocal({ log: note });
  cleanups.push(() => db.close());
  const admin = adminClient(db.endpoint);
  await ensureTables(admin, WRITE_STAGE, { streams: false });
  admin.destroy();
  return db;
}

/** `--only hummingbot`: the hummingbot bridge's writes per fill on a fresh DynamoDB Local, printed with its target. */
async function onlyHummingbot(options: BenchOptions): Promise<void> {
  const db = await freshWriteDatabase();
  const result = await measureHummingbot({ endpoint: db.endpoint, stage: WRITE_STAGE, fills: options.writes.trades });
  const pass = hummingbotPasses(result);
  console.log(JSON.stringify(result, null, 2));
  console.log(`${pass ? 'PASS' : 'MISS'} at most 2 write requests per fill, none for a fill given again`);
}

/** `--only exchange`: the exchange feed's first sync and an idle one on a fresh DynamoDB Local, printed with its target. */
async function onlyExchange(options: BenchOptions): Promise<void> {
  const db = await freshWriteDatabase();
  const result = await measureExchangeFeed({ endpoint: db.endpoint, stage: WRITE_STAGE, fills: options.writes.exchangeFills });
  console.log(JSON.stringify(result, null, 2));
  const target = exchangeTarget(result);
  console.log(`${target.pass ? 'PASS' : 'MISS'} ${target.target}: ${target.detail}`);
}

/** `--only fleet`: the fleet phase alone on a fresh DynamoDB Local (its polls and write costs), printed with its target. */
async function onlyFleet(options: BenchOptions): Promise<void> {
  Object.assign(process.env, LOCAL_AWS_ENV);
  cursorSecret = randomBytes(32).toString('hex');
  const db = await startDynamoDbLocal({ log: note });
  cleanups.push(() => db.close());
  const fleet = await measureFleet({
    endpoint: db.endpoint,
    ...options.fleet,
    env: (stage) => functionEnv(db.endpoint, stage),
    onStarted: (close) => cleanups.push(close),
  });
  printFleet(console.log, fleet);
  for (const target of [fleetTarget(fleet), comparisonTarget(fleet)])
    console.log(`${target.pass ? 'PASS' : 'MISS'} ${target.target}: ${target.detail}`);
}

/** The dashboard's first page at the large fleet's size (`--fleet`), as many fresh loads as quick or full runs take. */
function drawFleet(endpoint: string, options: BenchOptions) {
  return measureDashboardDraw({
    endpoint,
    bots: options.fleet.sizes[options.fleet.sizes.length - 1],
    samples: options.quick ? 2 : 7,
    cursorSecret,
    onStarted: (close) => cleanups.push(close),
  });
}

/** `--only draw`: the dashboard's first page at --fleet bots (default 1,000), printed with its target. */
async function onlyDraw(options: BenchOptions): Promise<void> {
  Object.assign(process.env, LOCAL_AWS_ENV);
  cursorSecret = randomBytes(32).toString('hex');
  const db = await startDynamoDbLocal({ log: note });
  cleanups.push(() => db.close());
  const draw = await drawFleet(db.endpoint, options);
  console.log(printedDraw(draw));
  const target = dashboardDrawTarget(draw);
  console.log(`${target.pass ? 'PASS' : target.pass === null ? 'SKIP' : 'MISS'} ${target.target}: ${target.detail}`);
}

/** `--only import`: `npm run import` of --import-rows rows into a fresh DynamoDB Local, printed with its target. */
async function onlyImport(options: BenchOptions): Promise<void> {
  Object.assign(process.env, LOCAL_AWS_ENV);
  const work = mkdtempSync(join(tmpdir(), 'trading-bot-bench-'));
  cleanups.push(() => rmSync(work, { recursive: true, force: true }));
  const db = await startDynamoDbLocal({ log: note });
  cleanups.push(() => db.close());
  const admin = adminClient(db.endpoint);
  await ensureTables(admin, WRITE_STAGE, { streams: false });
  admin.destroy();
  const imported = await measureImport({ endpoint: db.endpoint, stage: WRITE_STAGE, importRows: options.writes.importRows, workDir: work });
  console.log(JSON.stringify(imported, null, 2));
  const target = importTarget(imported);
  console.log(`${target.pass ? 'PASS' : 'MISS'} ${target.target}: ${target.detail}`);
}

/** The full dataset and the 1k one of the scale comparison, loaded into two stages of `db`; the account and instrument queried. */
async function loadDatasets(db: LocalDb, options: BenchOptions) {
  const fullDataset = generateDataset({
    tradeCounts: Array(options.accounts).fill(options.tradesPerAccount),
    seed: SEED,
    history: EQUITY_HISTORY,
    mirror: true,
  });
  const account = fullDataset.accounts[0].account.id;
  // An instrument the chosen account has an open trade in, so status=open&instrument=… pages are not empty.
  const accountTrades = fullDataset.trades.filter((trade) => trade.accountId === account);
  const instrument = (accountTrades.find((trade) => trade.status === 'open') ?? accountTrades[0])?.instrument ?? 'EUR_USD';
  const full = await loadDatabase(db, STAGE, `${options.accounts}×${options.tradesPerAccount}`, fullDataset);
  const smallDataset = generateDataset({
    tradeCounts: spread(options.smallTrades, options.accounts),
    seed: SEED,
    history: EQUITY_HISTORY,
    mirror: true,
  });
  const small = await loadDatabase(db, SMALL_STAGE, `1k (${options.smallTrades} over ${options.accounts} accounts)`, smallDataset);
  return { full, small, account, instrument };
}

/** A query worker per dataset (full first), each with every query of `specs` prepared (deep pages' cursors followed). */
async function startQueryWorkers(datasets: LoadedDb[], specs: QuerySpec[], options: BenchOptions): Promise<Child[]> {
  const profile = options.cpuProfDir ? ['--cpu-prof', '--cpu-prof-dir', options.cpuProfDir] : [];
  const workers = datasets.map((loaded) => {
    const worker = startChild(
      join(ROOT, 'bench', 'query-worker.ts'),
      functionEnv(loaded.endpoint, loaded.stage),
      ['--expose-gc', ...profile],
      { quiet: true },
    );
    cleanups.push(() => worker.close());
    return worker;
  });
  await Promise.all(workers.map((worker) => worker.ready));
  note(`queries: ${specs.length} per dataset; following cursors for the deep pages`);
  await Promise.all(workers.map((worker) => worker.call({ type: 'prepare', queries: specs })));
  return workers;
}

/**
 * Every query of `specs` on both datasets (`workers`: full, then 1k), alternately, query by query, in several passes
 * over the list whose samples are pooled: a disturbance lasting seconds (another process, a stall of the database)
 * hits a part of each query's samples, not all of one query's.
 */
async function measureQueries(workers: Child[], specs: QuerySpec[], options: BenchOptions) {
  const { passes } = options.reps;
  const bar = progress('queries', specs.length * passes, 'query passes (both datasets)');
  const collected = new Map(
    specs.map((spec) => [spec.id, { reps: undefined as number | undefined, full: [] as QueryPass[], small: [] as QueryPass[] }]),
  );
  let done = 0;
  for (let pass = 0; pass < passes; pass++) {
    for (const spec of specs) {
      const entry = collected.get(spec.id)!;
      // The first pass calibrates the count on the full dataset; later passes alternate which dataset goes first.
      for (const dataset of pass % 2 ? (['small', 'full'] as const) : (['full', 'small'] as const)) {
        const worker = workers[dataset === 'full' ? 0 : 1];
        const result = await worker.call<QueryPass>({ type: 'measure', id: spec.id, reps: entry.reps, settings: options.reps });
        // Same number of samples on both datasets, so both percentiles are equally rough.
        entry.reps ??= result.reps;
        entry[dataset].push(result);
      }
      bar.update(++done);
    }
  }
  bar.finish();
  return specs.map((spec) => ({ full: pool(collected.get(spec.id)!.full), small: pool(collected.get(spec.id)!.small) }));
}

/**
 * `--only queries`: the datasets and the query phase alone, for the chosen operations, `--rounds` times over the same
 * data; each round's query table, then each operation's floor ratio per round and their median, with the target.
 */
async function onlyQueries(options: BenchOptions): Promise<void> {
  Object.assign(process.env, LOCAL_AWS_ENV);
  cursorSecret = randomBytes(32).toString('hex');
  const db = await startDynamoDbLocal({ log: note });
  cleanups.push(() => db.close());
  const { full, small, account, instrument } = await loadDatasets(db, options);
  const specs = benchQueries(account, instrument, options.deepPages, DEFAULT_ANCHOR).filter((spec) =>
    options.operations.includes(spec.operation),
  );
  const workers = await startQueryWorkers([full, small], specs, options);
  const perRound: ReturnType<typeof perOperation>[] = [];
  for (let turn = 1; turn <= options.rounds; turn++) {
    const rows = (await measureQueries(workers, specs, options)).map((pair) => queryRow(pair.full, pair.small));
    const floor = perOperation(rows, (row) => row.floorRatio);
    perRound.push(floor);
    console.log(`\nRound ${turn} of ${options.rounds}`);
    const scale = perOperation(rows, (row) => (row.scaleComparable ? row.scaleRatio : undefined));
    const rawScale = perOperation(rows, (row) => (row.scaleComparable ? row.rawScaleRatio : undefined));
    printQueries(console.log, rows, floor, scale, rawScale);
  }
  // The workers write their CPU profiles as they exit.
  await Promise.all(workers.map((worker) => worker.close()));
  console.log(`\nFloor ratio per operation (worst query), round by round, and the median of the rounds`);
  for (const operation of options.operations) {
    const values = perRound.map((floor) => floor.worst[operation]);
    const middle = median(values);
    const verdict = middle <= TARGETS.floorRatio ? 'PASS' : 'MISS';
    console.log(`  ${verdict}  ${operation}: ${values.map((value) => value.toFixed(2)).join(', ')} → median ${middle.toFixed(2)}`);
  }
}

async function main(options: BenchOptions): Promise<void> {
  if (options.only === 'bundles') return onlyBundles(options);
  if (options.only === 'import') return onlyImport(options);
  if (options.only === 'hummingbot') return onlyHummingbot(options);
  if (options.only === 'exchange') return onlyExchange(options);
  if (options.only === 'fleet') return onlyFleet(options);
  if (options.only === 'draw') return onlyDraw(options);
  if (options.only === 'queries') return onlyQueries(options);
  const started = Date.now();
  cursorSecret = randomBytes(32).toString('hex');
  Object.assign(process.env, LOCAL_AWS_ENV);
  const work = mkdtempSync(join(tmpdir(), 'trading-bot-bench-'));
  cleanups.push(() => rmSync(work, { recursive: true, force: true }));
  const phases: Record<string, number> = {};
  const phase = async <T>(name: string, body: () => Promise<T>): Promise<T> => {
    const at = Date.now();
    try {
      return await body();
    } finally {
      phases[name] = round((Date.now() - at) / 1000, 1);
    }
  };

  // 1. Bundles, while the machine is otherwise idle.
  const { bundles, bundleRows } = await phase('bundles', () => measureBundles(options, work));

  // The dashboard's built files and what a first load transfers.
  const dashboard = await phase('dashboard', async () => measureDashboard());

  // 2. Datasets, in one DynamoDB Local: two stages, so two sets of tables.
  const db = await startDynamoDbLocal({ log: note });
  cleanups.push(() => db.close());
  const { full, small, account, instrument } = await phase('load', () => loadDatasets(db, options));

  // 3. Queries: both datasets, alternately, query by query.
  const measured = await phase('queries', async () => {
    const specs = benchQueries(account, instrument, options.deepPages, DEFAULT_ANCHOR);
    const workers = await startQueryWorkers([full, small], specs, options);
    const pairs = await measureQueries(workers, specs, options);
    await Promise.all(workers.map((worker) => worker.close()));
    return pairs;
  });
  const dbRssMb = treeRssMb(db.process.child.pid!);

  // 4. Peak RSS of a warm function serving many large pages.
  const rss = await phase('peakRss', () => {
    note(`peak RSS: bundled all-trades serving ${options.rssPages} pages of limit=${DEEP_LIMIT}`);
    return peakRss(full, bundles.find((bundle) => bundle.name === 'all-trades')!.file, options.rssPages);
  });

  // 5. HTTP through serverless offline.
  let http: HttpResults | undefined;
  if (!options.skipHttp) {
    const listing = measured.find(({ full: row }) => row.request === `/api/${account}/trades?limit=50`)?.full;
    if (!listing) throw new Error(`the query phase measured no /api/${account}/trades?limit=50 to break the HTTP request down against`);
    http = await phase('http', () =>
      measureHttp({
        endpoint: full.endpoint,
        stage: STAGE,
        cursorSecret,
        account,
        ...options.http,
        inProcess: { handlerP50Ms: listing.handler.p50Ms, rawP50Ms: listing.raw.p50Ms },
        onStarted: (api: LocalApi) => cleanups.push(() => api.stop()),
        rssOf: treeRssMb,
      }),
    );
  }
  // 6. Writes: the writer's opens and closes, their capacity, and the importer.
  const writes = await phase('writes', () =>
    measureWrites({
      endpoint: db.endpoint,
      stage: WRITE_STAGE,
      trades: options.writes.trades,
      accounts: 4,
      importRows: options.writes.importRows,
      exchangeFills: options.writes.exchangeFills,
      workDir: work,
    }),
  );

  // 7. The fleet polls at 5 bots and at 1,000, loaded through the event-line ingester.
  const fleet = await phase('fleet', () =>
    measureFleet({
      endpoint: db.endpoint,
      ...options.fleet,
      env: (stage) => functionEnv(db.endpoint, stage),
      onStarted: (close) => cleanups.push(close),
    }),
  );

  // 8. The dashboard drawing the large fleet's first page, in Chromium.
  const dashboardDraw = await phase('dashboardDraw', () => drawFleet(db.endpoint, options));

  // 9. Report.
  const rows = measured.map(({ full: fullRow, small: smallRow }) => queryRow(fullRow, smallRow));
  const floor = perOperation(rows, (row) => row.floorRatio);
  const scale = perOperation(rows, (row) => (row.scaleComparable ? row.scaleRatio : undefined));
  const rawScale = perOperation(rows, (row) => (row.scaleComparable ? row.rawScaleRatio : undefined));
  await db.close();
  const targets = judge({
    rows,
    floor,
    scale,
    bundles: bundleRows,
    peakRssMb: rss.peakRssMb,
    http,
    writes,
    dashboard,
    dashboardDraw,
    fleet,
  });
  const durationSeconds = round((Date.now() - started) / 1000, 1);
  const machine = `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB`;
  const meta = {
    command: `npm run bench --${process.argv.slice(2).length ? ` ${process.argv.slice(2).join(' ')}` : ''}`,
    startedAt: new Date(started).toISOString(),
    durationSeconds,
    phasesSeconds: phases,
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    machine,
    dataset: `${options.accounts} accounts × ${options.tradesPerAccount.toLocaleString('en-US')} trades = ${full.trades.toLocaleString('en-US')} trades`,
    smallDataset: `${small.trades.toLocaleString('en-US')} trades over the same ${options.accounts} accounts`,
    accounts: options.accounts,
    tradesPerAccount: options.tradesPerAccount,
    trades: full.trades,
    smallTrades: small.trades,
    queriedAccount: account,
    queriedInstrument: instrument,
    loadSeconds: full.loadSeconds,
    smallLoadSeconds: small.loadSeconds,
    loadTradesPerSecond: round(full.trades / full.loadSeconds, 0),
    engine: `DynamoDB Local ${DYNAMODB_LOCAL.version} in memory`,
    databaseRssMbAfterQueries: dbRssMb,
    quick: options.quick,
    repetitions: options.reps,
    importSamples: options.importSamples,
    importTimeMethod: 'median over fresh node processes of process.hrtime around require() of the bundle, inside the child',
    floorRatioMethod: 'per operation: the largest handler p50 ÷ raw p50 over its queries (median also given)',
    scaleRatioMethod:
      'per operation: the largest p50(full) ÷ p50(1k) over its queries that return the same number of items in both datasets',
  };
  const results = {
    meta,
    queries: rows,
    floorRatio: floor.worst,
    floorRatioMedian: floor.median,
    scaleRatio: scale.worst,
    scaleRatioMedian: scale.median,
    rawScaleRatio: rawScale.worst,
    bundles: bundleRows,
    peakRssMb: rss.peakRssMb,
    peakRss: rss,
    dashboard,
    dashboardDraw,
    writes,
    fleet,
    ...(http ? { http } : {}),
    targets,
  };
  const out = resolve(options.out);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
  printReport({
    meta,
    rows,
    floor,
    scale,
    rawScale,
    bundles: bundleRows,
    peakRss: rss,
    dashboard,
    dashboardDraw,
    http,
    writes,
    fleet,
    targets,
    out,
  });
}

let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    interrupted = true;
    note(`bench: ${signal}, stopping…`);
    void cleanUp().finally(() => process.exit(130));
  });
}

let options: BenchOptions;
try {
  options = parseOptions(process.argv.slice(2));
} catch (error) {
  console.error(`bench: ${error instanceof Error ? error.message : String(error)} (--help for usage)`);
  process.exit(2);
}

main(options)
  .then(async () => {
    await cleanUp();
    process.exit(0);
  })
  .catch(async (error) => {
    if (interrupted) return;
    console.error('bench failed:', error);
    await cleanUp();
    process.exit(1);
  });
