/**
 * `npm start` as the README runs it (scripts/start.ts), on free ports with the database in memory, for the tests
 * that need the whole stack as an operator gets it (the end-to-end test of npm start itself, the dashboard in a
 * browser). Resolves once the API answers and the banner is printed.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { freePort } from '../../scripts/local-stack/processes';
import { http } from './http';

const ROOT = join(__dirname, '..', '..');

export interface Started {
  child: ChildProcess;
  ports: { PORT: number; DB_PORT: number; LAMBDA_PORT: number };
  output: () => string;
  env: NodeJS.ProcessEnv;
}

export async function npmStart(extra: Record<string, string> = {}): Promise<Started> {
  const ports = { PORT: await freePort(), DB_PORT: await freePort(), LAMBDA_PORT: await freePort() };
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
    if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}:\n${output}`);
    const health = await http(`http://127.0.0.1:${ports.PORT}/api/health`).catch(() => undefined);
    if (health?.status === 200 && output.includes('is running')) break;
    if (Date.now() > deadline) throw new Error(`npm start did not come up:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return { child, ports, output: () => output, env };
}
