/**
 * Request/response over the IPC channel of a forked TypeScript child (run through tsx). The bench keeps the
 * database servers and the measured handlers in processes of their own: each measured process loads the API with its
 * own configuration (api/config.ts reads it at module load), and the database never shares an event loop with what it
 * serves.
 */
import { type ChildProcess, execFile, fork } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { ROOT } from './options';

interface Envelope {
  seq: number;
  ok: boolean;
  result?: unknown;
  error?: string;
}

export interface Child {
  pid: number;
  /** Resolves with the child's first message (sent once it is ready). */
  ready: Promise<unknown>;
  call<T>(request: unknown): Promise<T>;
  /** Disconnects (the child exits on disconnect), then kills this child by pid if it lingers. */
  close(): Promise<void>;
}

/**
 * Forks `script` under tsx with `env`; the child's stdout goes to our stderr so stdout stays the results table.
 * `quiet` drops the child's stdout instead: measured handlers write an access log line per request (as deployed, so
 * its cost is in the numbers) and thousands of those would bury the progress lines. Warnings and errors go to stderr
 * and still show.
 */
export function startChild(script: string, env: NodeJS.ProcessEnv, nodeFlags: string[] = [], options: { quiet?: boolean } = {}): Child {
  const child: ChildProcess = fork(script, [], {
    execArgv: ['--import', 'tsx', ...nodeFlags],
    env,
    stdio: ['ignore', options.quiet ? 'ignore' : 2, 2, 'ipc'],
  });
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  let seq = 0;
  let exitError: Error | undefined;
  const exited = once(child, 'exit');
  child.once('exit', (code, signal) => {
    exitError = new Error(`${script} exited (${signal ?? code})`);
    for (const { reject } of pending.values()) reject(exitError);
    pending.clear();
  });
  const ready = new Promise<unknown>((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', () => reject(exitError));
  });
  // Only after the ready message: replies carry a sequence number.
  void ready
    .then(() =>
      child.on('message', (message: Envelope) => {
        const waiter = pending.get(message.seq);
        if (!waiter) return;
        pending.delete(message.seq);
        if (message.ok) waiter.resolve(message.result);
        else waiter.reject(new Error(`${script}: ${message.error}`));
      }),
    )
    .catch(() => {});
  return {
    pid: child.pid!,
    ready,
    call<T>(request: unknown) {
      if (exitError) return Promise.reject(exitError);
      return new Promise<T>((resolve, reject) => {
        const id = ++seq;
        pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
        child.send({ seq: id, request });
      });
    },
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      if (child.connected) child.disconnect();
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * Child side: announces readiness with `hello`, answers each request with `handle`, and exits when the parent
 * disconnects (or dies), after `onExit` has released what the child holds.
 */
export function serveParent(
  hello: unknown,
  handle: (request: any) => Promise<unknown>,
  onExit: () => Promise<void> = async () => {},
): void {
  if (!process.send) throw new Error('this script runs as a child of bench/bench.ts');
  process.on('message', async ({ seq, request }: { seq: number; request: unknown }) => {
    try {
      process.send!({ seq, ok: true, result: await handle(request) });
    } catch (error) {
      process.send!({ seq, ok: false, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    }
  });
  process.on('disconnect', () => {
    onExit().finally(() => process.exit(0));
  });
  process.send(hello);
}

/**
 * Starts one of the project's commands (`scripts/NAME.ts`, as `npm run NAME -- …` runs it) against the bench's
 * database: `args`, then the stage and endpoint, then `file`.
 */
export function startCommand(
  name: string,
  args: readonly string[],
  target: { stage: string; endpoint: string },
  file: string,
): ChildProcess {
  const argv = [
    '--import',
    'tsx',
    join(ROOT, 'scripts', `${name}.ts`),
    ...args,
    '--stage',
    target.stage,
    '--endpoint',
    target.endpoint,
    file,
  ];
  return execFile(process.execPath, argv, { cwd: ROOT, maxBuffer: 16 * 2 ** 20 });
}
