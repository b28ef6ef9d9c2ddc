/**
 * Command line of `npm run bench`, and every knob derived from it (dataset sizes, repetition budgets, durations),
 * so the rest of the bench reads one settled object instead of re-checking flags.
 */
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { RepetitionSettings } from './measurement';
import { OPERATIONS, type Operation } from './queries';

export const ROOT = join(__dirname, '..');

/** The stage whose tables hold the full dataset (and that serverless offline runs as). */
export const STAGE = 'bench';

/** The stage whose tables hold the 1,000-trade dataset of the scale comparison. */
export const SMALL_STAGE = 'benchsmall';

/** The stage the write measurements write to. */
export const WRITE_STAGE = 'benchwrite';

/** One seed for every dataset, so two runs measure the same data. */
export const SEED = 20261121;

/**
 * The queried account's balance snapshots: one every 5 minutes for 3 days, twelve per hour, so the equity series
 * shows that it reads one item per point however often snapshots were recorded.
 */
export const EQUITY_HISTORY = { everyMinutes: 5, days: 3, accounts: 1 };

/** The parts `--only` can run alone. */
const ONLY = ['bundles', 'hummingbot', 'exchange', 'fleet', 'draw', 'import', 'queries'] as const;
type Only = (typeof ONLY)[number];

export interface BenchOptions {
  accounts: number;
  tradesPerAccount: number;
  /** Trades in total in the small dataset of the scale comparison, spread evenly over the same accounts. */
  smallTrades: number;
  quick: boolean;
  /** Only this part, its results printed and no results file written (`--only bundles`, `--only queries`, …). */
  only?: Only;
  /** `--only queries`: the operations whose queries are measured (every one by default). */
  operations: readonly Operation[];
  /** `--only queries`: how many times the query phase runs over the same loaded data, each printed (its spread is the noise). */
  rounds: number;
  /** Where the query workers write V8 CPU profiles (node --cpu-prof), if anywhere. */
  cpuProfDir?: string;
  out: string;
  skipHttp: boolean;
  /** Timed calls per query and dataset: see RepetitionSettings. */
  reps: RepetitionSettings;
  /** Pages of limit=500 followed through cursors for the deep-page queries. */
  deepPages: number;
  /** Fresh `node` processes per bundle for the import time. */
  importSamples: number;
  /** Pages of limit=500 the peak-RSS process serves. */
  rssPages: number;
  http: {
    durationS: number;
    connections: number;
    warmupRequests: number;
    breakdownSamples: number;
    concurrent: { connections: number; durationS: number };
  };
  /** Trades opened then closed through the writer, and rows imported by `npm run import`. */
  writes: { trades: number; importRows: number; exchangeFills: number };
  /** The fleet phase: bots in the small and the large fleet, and polls timed per kind and fleet. */
  fleet: { sizes: number[]; samples: number };
}

const USAGE = `Usage: npm run bench -- [options]
  --accounts N     accounts in the dataset (default 20; quick 3)
  --trades M       trades per account (default 5000; quick 200)
  --quick          tiny dataset, few repetitions, short HTTP runs (the smoke test uses it)
  --out PATH       where to write the JSON results (default bench/results.json)
  --skip-http      leave out the serverless offline + autocannon phase
  --fleet N        bots in the large fleet of the fleet phase (default 1000; quick 200), beside a fleet of 5
  --only bundles   only the deploy bundles' sizes and import times against the baseline (no database), printed,
                   no results file
  --only hummingbot  only the hummingbot bridge's writes per fill (2000 fills; quick 80), printed, no results file
  --only exchange  only the exchange feed over a fake Binance (10000 fills; quick 1200): fills/s, request weight per
                   1,000 fills against Binance's 6,000 a minute, printed, no results file
  --only fleet     only the fleet phase (polls and write costs at 5 bots and --fleet), printed, no results file
  --only draw      only the dashboard drawing a fleet of --fleet bots (default 1000) in Chromium: its first page's
                   time over 7 fresh loads (quick 2), printed, no results file
  --only import    only \`npm run import\` of a JSON Lines history of --import-rows trades (rows/s, peak RSS), printed,
                   no results file
  --import-rows N  rows of the imported history (default 100000; quick 2000)
  --only queries   only the query phase (both datasets loaded, each query timed against its raw floor), printed, no
                   results file: a few minutes, most of them loading the data; to iterate on a floor ratio
  --operations A,B with --only queries: only these operations' queries (e.g. all-status,metrics)
  --rounds N       with --only queries: the query phase N times over the same data, each round's floor ratios
                   printed, then their median (default 1): the spread between rounds is the machine's noise
  --cpu-prof DIR   the query workers write V8 CPU profiles (.cpuprofile, node --cpu-prof) into DIR when they end
  --help           this text`;

function positiveInteger(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  if (!/^[1-9]\d*$/.test(raw)) throw new Error(`--${name} must be a positive whole number, got "${raw}"`);
  return Number(raw);
}

/** Parses argv; prints usage and exits on --help, throws on a malformed option. */
export function parseOptions(argv: string[]): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      accounts: { type: 'string' },
      trades: { type: 'string' },
      quick: { type: 'boolean', default: false },
      out: { type: 'string' },
      'skip-http': { type: 'boolean', default: false },
      fleet: { type: 'string' },
      only: { type: 'string' },
      'import-rows': { type: 'string' },
      operations: { type: 'string' },
      rounds: { type: 'string' },
      'cpu-prof': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const quick = values.quick ?? false;
  const only = values.only;
  if (only !== undefined && !(ONLY as readonly string[]).includes(only)) throw new Error(`--only takes ${ONLY.join(', ')}, got "${only}"`);
  // A partial query phase writes no results file: results.json always holds every query.
  for (const name of ['operations', 'rounds'] as const) {
    if (values[name] !== undefined && only !== 'queries') throw new Error(`--${name} goes with --only queries`);
  }
  const operations = values.operations?.split(',').map((name) => name.trim()) ?? [...OPERATIONS];
  const unknown = operations.filter((name) => !(OPERATIONS as readonly string[]).includes(name));
  if (unknown.length || !operations.length)
    throw new Error(`--operations takes operations among ${OPERATIONS.join(', ')}; got "${values.operations}"`);
  return {
    ...(only ? { only: only as Only } : {}),
    operations: operations as Operation[],
    rounds: positiveInteger('rounds', values.rounds, 1),
    ...(values['cpu-prof'] ? { cpuProfDir: resolve(values['cpu-prof']) } : {}),
    accounts: positiveInteger('accounts', values.accounts, quick ? 3 : 20),
    tradesPerAccount: positiveInteger('trades', values.trades, quick ? 200 : 5000),
    smallTrades: 1000,
    quick,
    out: values.out ?? join(ROOT, 'bench', 'results.json'),
    skipHttp: values['skip-http'] ?? false,
    // Defaults: ~1.2 s per query and dataset in three passes, so 43 queries × 2 datasets take about two and a half
    // minutes; at least 40 samples so p95 is not just the maximum (p99 of a few hundred samples is still rough).
    reps: quick ? { budgetMs: 30, min: 3, max: 6, warmup: 1, passes: 1 } : { budgetMs: 1200, min: 40, max: 400, warmup: 2, passes: 3 },
    deepPages: 20,
    importSamples: quick ? 2 : 10,
    rssPages: quick ? 10 : 100,
    writes: {
      trades: quick ? 80 : 2000,
      exchangeFills: quick ? 1200 : 10_000,
      importRows: positiveInteger('import-rows', values['import-rows'], quick ? 2000 : 100_000),
    },
    fleet: { sizes: [5, positiveInteger('fleet', values.fleet, quick ? 200 : 1000)], samples: quick ? 20 : 200 },
    http: quick
      ? { durationS: 1, connections: 10, warmupRequests: 20, breakdownSamples: 30, concurrent: { connections: 50, durationS: 2 } }
      : { durationS: 10, connections: 10, warmupRequests: 300, breakdownSamples: 300, concurrent: { connections: 50, durationS: 30 } },
  };
}
