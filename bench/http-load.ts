/**
 * Step 5: the API over HTTP, as `npm start` serves it (the local gateway in front of serverless offline), against the
 * full dataset, loaded with autocannon on one trade listing and on the health check; then 50 connections on the
 * listing for a while, sampling the memory of serverless offline (and everything it started) as it goes.
 * autocannon runs as a child process so its own CPU does not sit on the event loop of anything measured.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type LocalApi, startLocalApi } from '../scripts/support/local-stack';
import { note } from './progress';
import { ROOT } from './options';
import { round } from './stats';

const run = promisify(execFile);
const AUTOCANNON = join(ROOT, 'node_modules', 'autocannon', 'autocannon.js');

export interface LoadResult {
  url: string;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  non2xx: number;
  /** Answers with a 5xx status (the gateway never answers one without a problem body). */
  status5xx: number;
  /** Answers with 429 (the gateway's bound on requests in flight and queued). */
  status429: number;
  errors: number;
}

export interface HttpResults {
  tradesRps: number;
  tradesP99Ms: number;
  healthRps: number;
  healthP99Ms: number;
  durationS: number;
  connections: number;
  trades: LoadResult;
  health: LoadResult;
  /** 50 connections on the listing: serverless offline's memory while it lasted. */
  concurrent: LoadResult & { connections: number; durationS: number; offlineRssMb: { start: number; peak: number; end: number } };
}

async function autocannon(url: string, args: string[]): Promise<LoadResult> {
  const { stdout } = await run(process.execPath, [AUTOCANNON, '--json', ...args, url], { cwd: ROOT, maxBuffer: 16 * 2 ** 20 });
  const report = JSON.parse(stdout.trim().split('\n').pop()!);
  return {
    url,
    rps: round(report.requests.average, 1),
    p50Ms: report.latency.p50,
    p99Ms: report.latency.p99,
    requests: report.requests.total,
    non2xx: report.non2xx,
    status5xx: report['5xx'] ?? 0,
    status429: report.statusCodeStats?.['429']?.count ?? 0,
    errors: report.errors + report.timeouts,
  };
}

export async function measureHttp(options: {
  endpoint: string;
  stage: string;
  cursorSecret: string;
  account: string;
  durationS: number;
  connections: number;
  warmupRequests: number;
  concurrent: { connections: number; durationS: number };
  onStarted: (api: LocalApi) => void;
  /** Resident memory (MB) of a process and its descendants. */
  rssOf: (pid: number) => number;
}): Promise<HttpResults> {
  note('http: starting the local API (serverless offline bundles every function first)…');
  const started = Date.now();
  const api = await startLocalApi({ stage: options.stage, dbEndpoint: options.endpoint, cursorSecret: options.cursorSecret, port: 0, lambdaPort: 0, auth: false, quiet: true });
  options.onStarted(api);
  note(`http: the local API answered after ${((Date.now() - started) / 1000).toFixed(1)} s`);
  try {
    const tradesUrl = `${api.url}/api/${options.account}/trades?limit=50`;
    const healthUrl = `${api.url}/api/health`;
    const connections = String(options.connections);
    // Warm both routes first: the first requests load each function (cold starts are not what this measures).
    for (const url of [tradesUrl, healthUrl]) await autocannon(url, ['-c', connections, '-a', String(options.warmupRequests)]);
    const duration = String(options.durationS);
    note(`http: autocannon ${connections} connections × ${duration} s on ${tradesUrl}`);
    const trades = await autocannon(tradesUrl, ['-c', connections, '-d', duration]);
    note(`http: autocannon ${connections} connections × ${duration} s on ${healthUrl}`);
    const health = await autocannon(healthUrl, ['-c', connections, '-d', duration]);
    for (const result of [trades, health]) {
      if (result.non2xx || result.errors) throw new Error(`autocannon on ${result.url}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
    }

    const { connections: many, durationS } = options.concurrent;
    note(`http: autocannon ${many} connections × ${durationS} s on ${tradesUrl}, sampling serverless offline's memory`);
    const pid = api.offline.process.child.pid!;
    const rss = { start: options.rssOf(pid), peak: 0, end: 0 };
    const sampler = setInterval(() => (rss.peak = Math.max(rss.peak, options.rssOf(pid))), 250);
    let concurrent: LoadResult;
    try {
      concurrent = await autocannon(tradesUrl, ['-c', String(many), '-d', String(durationS)]);
    } finally {
      clearInterval(sampler);
    }
    rss.end = options.rssOf(pid);
    rss.peak = Math.max(rss.peak, rss.start, rss.end);
    return {
      tradesRps: trades.rps,
      tradesP99Ms: trades.p99Ms,
      healthRps: health.rps,
      healthP99Ms: health.p99Ms,
      durationS: options.durationS,
      connections: options.connections,
      trades,
      health,
      concurrent: { ...concurrent, connections: many, durationS, offlineRssMb: rss },
    };
  } finally {
    await api.stop();
  }
}
