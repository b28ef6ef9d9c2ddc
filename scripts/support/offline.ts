/**
 * Runs `serverless offline` (the real API Gateway emulation over the real handlers) as a child process, and
 * waits until it answers. Used by `npm start`, the end-to-end tests and the benchmark.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

export interface Offline {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

const ROOT = join(__dirname, '..', '..');

/** Resolves true when nothing listens on 127.0.0.1:`port`. */
export function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

/** A free loopback port chosen by the OS. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/**
 * Starts `serverless offline` for `stage` on `port` with `env` added to this process's environment, and resolves
 * once /api/health answers (any status). `quiet` keeps its output out of the terminal unless it fails to start.
 */
export async function startOffline(options: {
  port: number;
  lambdaPort: number;
  stage: string;
  env: Record<string, string>;
  /** Run the API-key authorizer in front of the data routes, as deployed stages do (default: off). */
  auth?: boolean;
  quiet?: boolean;
  timeoutMs?: number;
}): Promise<Offline> {
  const workFolder = `.esbuild/offline-${options.port}`;
  const child = spawn(
    process.execPath,
    [join(ROOT, 'node_modules', 'serverless', 'bin', 'serverless.js'), 'offline', 'start', '--stage', options.stage, ...(options.auth ? [] : ['--noAuth'])],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        ...options.env,
        AUTH_MODE: options.auth ? 'required' : 'off',
        // One esbuild work folder per instance, so instances started side by side (tests, bench) never share one.
        ESBUILD_WORK_FOLDER: workFolder,
        PORT: String(options.port), LAMBDA_PORT: String(options.lambdaPort), SLS_TELEMETRY_DISABLED: '1' },
      stdio: options.quiet ? ['ignore', 'pipe', 'pipe'] : ['ignore', 'inherit', 'inherit'],
      detached: true,
    },
  );
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${options.port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        // Already gone.
      }
      const timer = setTimeout(() => {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }, 5000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(join(ROOT, workFolder), { recursive: true, force: true });
  };
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  for (;;) {
    if (child.exitCode !== null) throw new Error(`serverless offline exited with ${child.exitCode}\n${output}`);
    try {
      await fetch(`${url}/api/health`, { signal: AbortSignal.timeout(2000) });
      return { url, child, stop };
    } catch {
      if (Date.now() > deadline) {
        await stop();
        throw new Error(`serverless offline did not answer within the time limit\n${output}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}
