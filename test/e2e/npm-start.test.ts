/**
 * `npm start` itself (scripts/start.ts, as the README runs it) where it needs no stack: it stops with one line when
 * Java is missing, and the README's snippets are the examples' own lines.
 *
 * Each npm start costs a run some 15 to 30 CPU-seconds, so the tests that need a running one share the two stacks
 * the run starts: the dashboard's (test/browser/dashboard.test.ts, with LOG_LEVEL=DEBUG and its probe alerting a
 * webhook) also runs "Connect your bot" as the README tells it (the TypeScript example, the Python example through
 * `npm run ingest`, the freqtrade bridge), its alerts and terminal lines, a deploy's package built beside it, and its
 * end when its terminal closes (SIGHUP); AUTH=on's (test/e2e/npm-start-keys.test.ts, started DEMO=off with ALLOWED_HOSTS:
 * an operator's own fleet) the API keys, the log file
 * without a terminal copy, a paused database, and its end by SIGKILL, which leaves the supervisors what any crash
 * leaves them (SIGABRT, tried on a stack of its own until issue 31, ended npm start the same way).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../scripts/local-stack/processes';

jest.setTimeout(60_000);

const ROOT = join(__dirname, '..', '..');

/** The lines of `file` between two marker comments, without their common indentation. */
function between(file: string, start: string, end: string): string {
  const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
  const from = lines.findIndex((line) => line.trim() === start);
  const to = lines.findIndex((line, index) => index > from && line.trim() === end);
  const part = lines.slice(from + 1, to);
  const indent = Math.min(...part.filter((line) => line.trim()).map((line) => line.match(/^ */)![0].length));
  return part.map((line) => line.slice(indent)).join('\n');
}

it('stops with one line naming the install command when Java is missing', async () => {
  const empty = mkdtempSync(join(tmpdir(), 'no-java-'));
  try {
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts', 'start.ts')], {
      cwd: ROOT,
      env: {
        ...process.env,
        PATH: empty,
        DB: 'memory',
        PORT: String(await freePort()),
        DB_PORT: String(await freePort()),
        LAMBDA_PORT: String(await freePort()),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    const code = await new Promise((resolve) => child.on('exit', resolve));
    expect(code).toBe(1);
    const lines = stderr
      .trim()
      .split('\n')
      .filter((line) => !/NodeVersionSupportWarning|^\s*$/.test(line));
    expect(lines).toEqual([expect.stringMatching(/^npm start: Java 17 or later is needed .*apt-get install -y openjdk-17-jre-headless/)]);
  } finally {
    rmSync(empty, { recursive: true, force: true });
  }
});

it("the README's snippets are the examples' own lines", () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  expect(readme).toContain(between('examples/typescript-bot/bot.ts', '// --- account', '// --- end'));
  expect(readme).toContain(between('examples/python/bot.py', '# --- events', '# --- end'));
});
