/**
 * `npm start` as the README runs it (scripts/start.ts), on free ports with the database in memory, for the tests
 * that need the whole stack as an operator gets it (the end-to-end tests of npm start itself and of connecting a bot
 * to it, the dashboard in a browser); and what those tests look for in it: its lines, its log file, the processes it started
 * and that none outlives it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { freePort, portIsFree } from '../../scripts/local-stack/processes';
import { http } from './http';
import { until } from './until';

const ROOT = join(__dirname, '..', '..');

export interface Started {
  child: ChildProcess;
  ports: { PORT: number; DB_PORT: number; LAMBDA_PORT: number };
  output: () => string;
  env: NodeJS.ProcessEnv;
}

/**
 * Starts it; resolves once the API answers and the banner is printed. A port found free can be taken before npm start
 * listens on it (two stacks start at once in a run, each picking its ports at random): once it says so (EADDRINUSE
 * at a listen, seen in one run of many), it starts again on other ports, twice at most.
 */
export async function npmStart(extra: Record<string, string> = {}): Promise<Started> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(extra);
    } catch (error) {
      if (attempt >= 3 || !(error instanceof PortTaken)) throw error;
    }
  }
}

class PortTaken extends Error {}

async function startOnce(extra: Record<string, string>): Promise<Started> {
  const picked = new Set<number>();
  const pick = async () => {
    for (;;) {
      const port = await freePort();
      if (picked.has(port)) continue;
      picked.add(port);
      return port;
    }
  };
  const ports = { PORT: await pick(), DB_PORT: await pick(), LAMBDA_PORT: await pick() };
  // The demo bot and the probe are off unless asked for (`extra`): most tests want a still stack.
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DB: 'memory',
    DEMO_BOT: 'off',
    PROBE: 'off',
    ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])),
    ...extra,
  };
  for (const name of [
    'NODE_OPTIONS',
    'DYNAMODB_ENDPOINT',
    'CURSOR_SECRET',
    'AUTH_MODE',
    'CORS_ALLOWED_ORIGINS',
    'ACCOUNTS_TABLE',
    'BALANCES_TABLE',
    'TRADES_TABLE',
    'API_KEYS_TABLE',
  ])
    delete env[name];
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts', 'start.ts')], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) {
      // Said by npm start's check of its ports, or by a listen that lost the race after the check.
      const ErrorType = /EADDRINUSE|is already in use/.test(output) ? PortTaken : Error;
      throw new ErrorType(`npm start exited with ${child.exitCode}:\n${output}`);
    }
    const health = await http(`http://127.0.0.1:${ports.PORT}/api/health`).catch(() => undefined);
    if (health?.status === 200 && output.includes('is running')) break;
    if (Date.now() > deadline) throw new Error(`npm start did not come up:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return { child, ports, output: () => output, env };
}

/** Every process below `pid` (from /proc), so the test knows exactly what npm start started. */
function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // Gone meanwhile.
    }
  }
  const found: number[] = [];
  const visit = (id: number) => {
    for (const child of children.get(id) ?? []) {
      found.push(child);
      visit(child);
    }
  };
  visit(pid);
  return found;
}

/** The process below npm start whose program is `name` (DynamoDB Local's java, not the supervisor that started it). */
export function descendantRunning(started: Started, name: string): number {
  const found = descendants(started.child.pid!).filter((pid) => {
    try {
      return basename(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0]) === name;
    } catch {
      return false;
    }
  });
  expect(found).toHaveLength(1);
  return found[0];
}

/**
 * Runs `during` with `pid` paused (SIGSTOP), from the moment every one of its threads is seen stopped: the signal is
 * delivered to each thread as the kernel schedules it, and on a busy machine a thread of DynamoDB Local once answered a
 * request sent right after kill() returned.
 */
export async function whilePaused<T>(pid: number, during: () => Promise<T>): Promise<T> {
  process.kill(pid, 'SIGSTOP');
  try {
    const threads = () => readdirSync(`/proc/${pid}/task`).map((tid) => readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8'));
    const deadline = Date.now() + 10_000;
    while (!threads().every((stat) => stat.slice(stat.lastIndexOf(')') + 2)[0] === 'T')) {
      if (Date.now() > deadline) throw new Error(`process ${pid} was not stopped within 10 s of SIGSTOP`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return await during();
  } finally {
    process.kill(pid, 'SIGCONT');
  }
}

/** What `find` finds within 15 s (a line crosses two pipes before npm start writes it out). */
export function eventually<T>(find: () => T | undefined, what: string): Promise<T> {
  return until(find, what, { timeoutMs: 15_000, everyMs: 200 }) as Promise<T>;
}

/** The lines of `text` that carry the request id `id`. */
export function linesWith(text: string, id: string): string[] {
  return text.split('\n').filter((line) => line.includes(id));
}

/** The log file npm start's banner names. */
export function logFileOf(started: Started): string {
  const file = /Function logs: (?:here and in )?(\S+)/.exec(started.output())?.[1];
  expect(file).toBe(join(ROOT, '.data', 'logs', 'functions.log'));
  return file!;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    const state = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0];
    return state !== 'Z';
  } catch {
    return false;
  }
}

/** The private folders of serverless offline below npm start (its sockets'), as its environment names them. */
function offlineFolders(tree: number[]): string[] {
  const folders = new Set<string>();
  for (const pid of tree) {
    try {
      const socket = readFileSync(`/proc/${pid}/environ`, 'utf8')
        .split('\0')
        .find((entry) => entry.startsWith('OFFLINE_HTTP_SOCKET='));
      if (socket) folders.add(dirname(socket.slice('OFFLINE_HTTP_SOCKET='.length)));
    } catch {
      // Gone meanwhile.
    }
  }
  return [...folders];
}

/**
 * Ends npm start with `signal` and expects every process it started to be gone, every port free, and serverless
 * offline's private folder removed (by its supervisor, when npm start had no time to: SIGKILL).
 */
export async function expectNothingOutlives(started: Started, signal: NodeJS.Signals) {
  const tree = descendants(started.child.pid!);
  // The supervisors, DynamoDB Local (java) and serverless offline at least.
  expect(tree.length).toBeGreaterThanOrEqual(4);
  const folders = offlineFolders(tree);
  expect(folders).toHaveLength(1);
  started.child.kill(signal);
  const deadline = Date.now() + 20_000;
  let survivors = tree;
  let busy: number[] = Object.values(started.ports);
  let left = folders;
  while (Date.now() < deadline) {
    survivors = tree.filter(alive);
    busy = [];
    for (const port of Object.values(started.ports)) if (!(await portIsFree(port))) busy.push(port);
    left = folders.filter((folder) => existsSync(folder));
    if (!survivors.length && !busy.length && !left.length) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  expect({ survivors, busy, left }).toEqual({ survivors: [], busy: [], left: [] });
}
