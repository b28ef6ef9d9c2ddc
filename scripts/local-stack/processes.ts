/**
 * Child processes of `npm start`, the tests and the benchmark, and the loopback ports they listen on.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { delimiter, join } from 'node:path';

const SUPERVISE = join(__dirname, 'supervise.cjs');

/**
 * Starts `command` under supervise.cjs (beside this file), which stops it when this process ends in any way,
 * including SIGKILL: nothing started here can outlive its parent and keep a port. Resolves once `ready()` answers
 * true; stops it and fails, with `describe` and its output, when it exits or `timeoutMs` passes first.
 */
export async function startSupervised(
  command: string,
  args: string[],
  options: {
    env?: NodeJS.ProcessEnv;
    cwd?: string;
    quiet?: boolean;
    onLine?: (line: string) => void;
    /** Folders the supervisor removes once the command has ended, however this process ended. */
    removeAfter?: string[];
    ready: () => Promise<boolean>;
    timeoutMs: number;
    describe: string;
  },
) {
  const piped = options.quiet || options.onLine !== undefined;
  const env = options.env ?? process.env;
  const child = spawn(process.execPath, [SUPERVISE, command, ...args], {
    cwd: options.cwd,
    env: options.removeAfter?.length ? { ...env, SUPERVISE_REMOVE_AFTER: options.removeAfter.join(delimiter) } : env,
    // stdin is the lifeline the supervisor watches: never written, closed by the kernel when we end.
    stdio: ['pipe', piped ? 'pipe' : 'inherit', piped ? 'pipe' : 'inherit'],
  });
  let output = '';
  for (const stream of [child.stdout, child.stderr]) {
    let partial = '';
    stream?.on('data', (chunk: Buffer) => {
      const text = chunk.toString();
      // Only the tail matters for an error message.
      output = (output + text).slice(-50_000);
      if (!options.onLine) return;
      const lines = (partial + text).split('\n');
      partial = lines.pop()!;
      for (const line of lines) options.onLine(line);
    });
  }
  const exited = once(child, 'exit');
  const supervised = {
    child,
    // Output collected when started with `quiet` or `onLine` (for error messages).
    output: () => output,
    // Stops the command and everything it started; resolves once it has exited.
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.stdin?.end();
      await exited;
    },
  };
  const { timeoutMs } = options;
  const describe = () => `${options.describe}\n${output}`;
  await waitUntil(options.ready, { timeoutMs, alive: () => child.exitCode === null, describe }).catch(async (error) => {
    await supervised.stop();
    throw error;
  });
  return supervised;
}

/** Listens on 127.0.0.1:`port` (0: one the OS chooses) and closes again: the port, or undefined when it is taken. */
function tryListen(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(undefined));
    probe.listen(port, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : undefined));
    });
  });
}

/** Resolves true when nothing listens on 127.0.0.1:`port`. */
export async function portIsFree(port: number): Promise<boolean> {
  return (await tryListen(port)) !== undefined;
}

/**
 * A free loopback port, drawn at random from below the kernel's ephemeral range. A port the OS hands out for
 * `listen(0)` comes from that range, which outgoing connections draw from too: in the seconds between choosing a port
 * and listening on it (npm start loads its demo data first), a client socket to DynamoDB Local could take it and the
 * listen fail with EADDRINUSE (seen in CI). Below the range only listeners compete, and a random draw keeps
 * concurrent callers (jest's workers) apart.
 */
export async function freePort(): Promise<number> {
  const low = ephemeralLow();
  const from = 10_000;
  for (let attempt = 0; low - from >= 1_000 && attempt < 50; attempt++) {
    const port = from + Math.floor(Math.random() * (low - from));
    if (await portIsFree(port)) return port;
  }
  // No range below the ephemeral one left: a port the OS chooses.
  const port = await tryListen(0);
  if (port === undefined) throw new Error('no free port on 127.0.0.1');
  return port;
}

/** The first port of the kernel's range for outgoing connections (Linux); the common default elsewhere. */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (Number.isInteger(low)) return low;
  } catch {
    // Not Linux: fall through.
  }
  return 32_768;
}

/** Polls `ready` until it resolves true, or fails with `describe()` once `timeoutMs` passed or `alive()` is false. */
export async function waitUntil(
  ready: () => Promise<boolean>,
  options: { timeoutMs: number; alive: () => boolean; describe: () => string },
): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    if (!options.alive()) throw new Error(`${options.describe()} (it exited)`);
    if (await ready().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`${options.describe()} (no answer within ${options.timeoutMs / 1000} s)`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
