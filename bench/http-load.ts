/**
 * Step 5: the API over HTTP, as `npm start` serves it (the local gateway in front of serverless offline), against the
 * full dataset, loaded with autocannon on one trade listing and on the health check; where one such request spends
 * its time, layer by layer; then 50 connections on the
 * listing for a while, sampling the memory of serverless offline (and everything it started) as it goes.
 * autocannon runs as a child process so its own CPU does not sit on the event loop of anything measured.
 */
import { execFile } from 'node:child_process';
import { Agent, get } from 'node:http';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { requestOverSocket } from '../scripts/local-stack/offline';
import { type LocalApi, startLocalApi } from '../scripts/local-stack/local-api';
import { note } from './progress';
import { type BenchOptions, ROOT } from './options';
import { percentile, round } from './stats';

const run = promisify(execFile);
const AUTOCANNON = join(ROOT, 'node_modules', 'autocannon', 'autocannon.js');

interface LoadResult {
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
  /** Where one trades request spends its time, one request at a time (see Breakdown). */
  breakdown: Breakdown;
  /** 50 connections on the listing: serverless offline's memory while it lasted. */
  concurrent: LoadResult & { connections: number; durationS: number; offlineRssMb: { start: number; peak: number; end: number } };
}

/**
 * Where a local trades request (`limit=50`) spends its time, from p50 latencies of one request at a time: through
 * the local gateway; straight to serverless offline's socket (no gateway); the handler's bundle invoked in-process and
 * the raw SDK read on DynamoDB Local (both from the query phase, same query, same data). Each layer's share is the
 * difference between two of them; health, whose handler reads nothing, shows the fixed cost of the two servers.
 */
interface Breakdown {
  query: string;
  samples: number;
  p50Ms: { gateway: number; offline: number; handlerInProcess: number; rawRead: number; healthGateway: number; healthOffline: number };
  shareMs: { localGateway: number; serverlessOffline: number; handlerCode: number; dynamoDbLocal: number };
}

/** p50 of `samples` sequential calls of `once`, after 20 unmeasured. */
async function sequentialP50(samples: number, once: () => Promise<number>): Promise<number> {
  for (let i = 0; i < 20; i++) await once();
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const started = performance.now();
    const status = await once();
    if (status !== 200) throw new Error(`breakdown: answer ${status}`);
    times.push(performance.now() - started);
  }
  return round(percentile(times, 50), 2);
}

async function breakdown(
  api: LocalApi,
  path: string,
  inProcess: { handlerP50Ms: number; rawP50Ms: number },
  samples: number,
): Promise<Breakdown> {
  // As autocannon asks: one kept-alive connection, no compression asked for (gzip would be a cost of its own).
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const viaGateway = (target: string) => () =>
    new Promise<number>((resolve, reject) => {
      get(`${api.url}${target}`, { agent }, (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      }).on('error', reject);
    });
  const direct = (target: string) => async () =>
    (await requestOverSocket(api.offline.httpSocket, { method: 'GET', path: target, headers: { host: 'localhost' } })).status;
  const p50Ms = {
    gateway: await sequentialP50(samples, viaGateway(path)),
    offline: await sequentialP50(samples, direct(path)),
    handlerInProcess: inProcess.handlerP50Ms,
    rawRead: inProcess.rawP50Ms,
    healthGateway: await sequentialP50(samples, viaGateway('/api/health')),
    healthOffline: await sequentialP50(samples, direct('/api/health')),
  };
  agent.destroy();
  return {
    query: path,
    samples,
    p50Ms,
    shareMs: {
      localGateway: round(p50Ms.gateway - p50Ms.offline, 2),
      serverlessOffline: round(p50Ms.offline - p50Ms.handlerInProcess, 2),
      handlerCode: round(p50Ms.handlerInProcess - p50Ms.rawRead, 2),
      dynamoDbLocal: p50Ms.rawRead,
    },
  };
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

export async function measureHttp(
  options: BenchOptions['http'] & {
    endpoint: string;
    stage: string;
    cursorSecret: string;
    account: string;
    /** The same listing measured in-process by the query phase: the handler's bundle and the raw SDK read. */
    inProcess: { handlerP50Ms: number; rawP50Ms: number };
    onStarted: (api: LocalApi) => void;
    /** Resident memory (MB) of a process and its descendants. */
    rssOf: (pid: number) => number;
  },
): Promise<HttpResults> {
  note('http: starting the local API (serverless offline bundles every function first)…');
  const started = Date.now();
  const api = await startLocalApi({
    stage: options.stage,
    dbEndpoint: options.endpoint,
    cursorSecret: options.cursorSecret,
    port: 0,
    lambdaPort: 0,
    auth: false,
    quiet: true,
    // The query phase's tables have no streams (bench.ts): nothing to project, the fleet answers read the tables.
    projector: false,
  });
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
      if (result.non2xx || result.errors)
        throw new Error(`autocannon on ${result.url}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
    }
    note(`http: where one trades request spends its time (${options.breakdownSamples} sequential requests per layer)`);
    const layers = await breakdown(api, `/api/${options.account}/trades?limit=50`, options.inProcess, options.breakdownSamples);

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
      breakdown: layers,
      concurrent: { ...concurrent, connections: many, durationS, offlineRssMb: rss },
    };
  } finally {
    await api.stop();
  }
}
