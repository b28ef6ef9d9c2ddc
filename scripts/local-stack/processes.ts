/**
 * Child processes of `npm start`, the tests and the benchmark, and the loopback ports they listen on.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { delimiter, join } from 'node:path';

const SUPERVISE = join(__dirname, 'supervise.cjs');

export interface Supervised {
  child: ChildProcess;
  /** Output collected when started with `quiet` (for error messages). */
  output(): string;
  /** Stops the command and everything it started; resolves once it has exited. */
  stop(): Promise<void>;
}

/**
 * Starts `command` under supervise.cjs (beside this file), which stops it when this process ends in any way,
 * including SIGKILL: nothing started here can outlive its parent and keep a port.
 */
export function spawnSupervised(
  command: string,
  args: string[],
  options: {
    env?: NodeJS.ProcessEnv;
    cwd?: string;
    quiet?: boolean;
    onLine?: (line: string) => void;
    /** Folders the supervisor removes once the command has ended, however this process ended. */
    removeAfter?: string[];
  } = {},
): Supervised {
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
  return {
    child,
    output: () => output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.stdin?.end();
      await exited;
    },
  };
}

/** Resolves true when nothing listens on 127.0.0.1:`port`. */
export function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
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
  if (low - from < 1_000) return osPort();
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = from + Math.floor(Math.random() * (low - from));
    if (await portIsFree(port)) return port;
  }
  return osPort();
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

/** A port chosen by the OS: the fallback when no range below the ephemeral one is left. */
function osPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
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
