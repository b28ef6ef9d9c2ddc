/**
 * Step 6: the API over HTTP. `serverless offline` (API Gateway emulation, esbuild bundles, the handlers) against
 * the full dataset's dynalite, loaded with autocannon on one trade listing and on the health check.
 * autocannon runs as a child process so its own CPU does not sit on the event loop of anything measured.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { localFunctionEnv } from '../scripts/support/local-db';
import { freePort, type Offline, startOffline } from '../scripts/support/offline';
import { note } from './progress';
import { ROOT, STAGE } from './options';
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
    errors: report.errors + report.timeouts,
  };
}

export async function measureHttp(options: {
  endpoint: string;
  cursorSecret: string;
  account: string;
  durationS: number;
  connections: number;
  warmupRequests: number;
  onOffline: (offline: Offline) => void;
}): Promise<HttpResults> {
  note('http: starting serverless offline (it bundles every function first)…');
  const started = Date.now();
  const offline = await startOffline({
    port: await freePort(),
    lambdaPort: await freePort(),
    stage: STAGE,
    env: localFunctionEnv(STAGE, options.endpoint, options.cursorSecret),
    auth: false,
    quiet: true,
    timeoutMs: 180_000,
  });
  options.onOffline(offline);
  note(`http: serverless offline answered after ${((Date.now() - started) / 1000).toFixed(1)} s`);
  try {
    const tradesUrl = `${offline.url}/api/${options.account}/trades?limit=50`;
    const healthUrl = `${offline.url}/api/health`;
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
    return {
      tradesRps: trades.rps,
      tradesP99Ms: trades.p99Ms,
      healthRps: health.rps,
      healthP99Ms: health.p99Ms,
      durationS: options.durationS,
      connections: options.connections,
      trades,
      health,
    };
  } finally {
    await offline.stop();
  }
}
