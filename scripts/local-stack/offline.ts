/**
 * Runs `serverless offline` (the real handlers in their esbuild bundles, with serverless offline's API Gateway and
 * Lambda emulation) as a supervised child process. It listens only on two Unix sockets in a private folder: the local
 * gateway (gateway/gateway.ts) is the one door to it, so nothing it answers reaches a web page or another machine
 * unchecked. Used by `npm start`, the end-to-end tests and the benchmark.
 */
import { mkdtempSync } from 'node:fs';
import { type Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSupervised } from './processes';
import { functionName } from './service-definition';

const ROOT = join(__dirname, '..', '..');

/** serverless offline started: its API Gateway emulation's socket, its Lambda Invoke API's, its process. */
export type Offline = Awaited<ReturnType<typeof startOffline>>;

export interface SocketResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** One HTTP request over a Unix socket (its path), or to a host and port over TCP (0: no time limit). */
export function requestOverSocket(
  to: string | { host: string; port: string; agent: Agent },
  options: {
    method: string;
    path: string;
    headers?: Record<string, string | string[] | undefined>;
    body?: Buffer | string;
    timeoutMs?: number;
  },
): Promise<SocketResponse> {
  const where = typeof to === 'string' ? { socketPath: to } : to;
  return new Promise((resolve, reject) => {
    const outgoing = request(
      { ...where, method: options.method, path: options.path, headers: options.headers, timeout: options.timeoutMs ?? 30_000 },
      async (response) => {
        const chunks: Buffer[] = [];
        try {
          for await (const chunk of response) chunks.push(chunk as Buffer);
        } catch (error) {
          reject(error);
          return;
        }
        resolve({ status: response.statusCode ?? 502, headers: response.headers, body: Buffer.concat(chunks) });
      },
    );
    outgoing.on('timeout', () =>
      outgoing.destroy(new Error(`no answer from ${typeof to === 'string' ? to : to.host} within ${options.timeoutMs ?? 30_000} ms`)),
    );
    outgoing.on('error', reject);
    outgoing.end(options.body);
  });
}

/**
 * Invokes the function `functionKey` of `stage` with `event` through serverless offline's Lambda API: what it returned,
 * or (`failed`) what it threw. Lambda answers a failed invocation with 200 and the x-amz-function-error header, its
 * error in the body; "Unauthorized" passed to the callback arrives as the bare string.
 */
export async function invokeFunction(
  offline: Pick<Offline, 'lambdaSocket'>,
  stage: string,
  functionKey: string,
  event: unknown,
): Promise<{ status: number; failed: boolean; result: unknown }> {
  const answer = await requestOverSocket(offline.lambdaSocket, {
    method: 'POST',
    path: `/2015-03-31/functions/${functionName(stage, functionKey)}/invocations`,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(event),
  });
  const failed = answer.headers['x-amz-function-error'] !== undefined || answer.status !== 200;
  return { status: answer.status, failed, result: JSON.parse(answer.body.toString() || 'null') };
}

/**
 * Where running stacks keep their bundles: beside `.esbuild`, not in it, because `serverless package` and `deploy`
 * empty `.esbuild` when they start, which would take the bundles from under a running `npm start`.
 */
const WORK_FOLDERS = '.esbuild-offline';
// An instance's work folder is removed by its supervisor once serverless offline has ended, however it ended
// (supervise.cjs): no sweep of folders left by ended processes is needed at start.

/**
 * Starts serverless offline for `stage` with `env` added to this process's environment, with every authorizer off
 * (the local gateway runs the authorizer, as API Gateway does) and schedules off, and resolves once /api/health
 * answers. `quiet` keeps its output out of the terminal unless it fails to start.
 */
export async function startOffline(options: {
  stage: string;
  env: Record<string, string>;
  quiet?: boolean;
  /** Receives each line serverless offline prints (instead of the terminal). */
  onLine?: (line: string) => void;
}) {
  const sockets = mkdtempSync(join(tmpdir(), 'trading-bot-offline-'));
  const httpSocket = join(sockets, 'http.sock');
  const lambdaSocket = join(sockets, 'lambda.sock');
  // One esbuild work folder per instance, so instances started side by side (tests, bench) never share one.
  const workFolder = `${WORK_FOLDERS}/offline-${process.pid}-${sockets.slice(-6)}`;
  const child = await startSupervised(
    process.execPath,
    [join(ROOT, 'node_modules', 'serverless', 'bin', 'serverless.js'), 'offline', 'start', '--stage', options.stage, '--noAuth'],
    {
      cwd: ROOT,
      quiet: options.quiet,
      onLine: options.onLine,
      env: {
        ...process.env,
        ...options.env,
        OFFLINE_HTTP_SOCKET: httpSocket,
        OFFLINE_LAMBDA_SOCKET: lambdaSocket,
        SCHEDULES: 'false',
        ESBUILD_WORK_FOLDER: workFolder,
        SLS_TELEMETRY_DISABLED: '1',
      },
      // Removed by the supervisor once serverless offline has ended, however it ended: a stop(), or this process
      // killed before it could run one (npm start, SIGKILL).
      removeAfter: [sockets, join(ROOT, workFolder)],
      ready: async () => (await requestOverSocket(httpSocket, { method: 'GET', path: '/api/health', timeoutMs: 5000 })).status > 0,
      timeoutMs: 90_000,
      describe: 'serverless offline did not start',
    },
  );
  // The supervisor exits after removing the folders, and child.stop() waits for its exit.
  return { httpSocket, lambdaSocket, process: child, stop: () => child.stop() };
}
