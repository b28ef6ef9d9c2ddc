/// <reference lib="dom" />
/**
 * `AUTH=on npm start`, keys required as on a deployed stage, as an operator runs it for a fleet of their own
 * (docs/operations.md): with `DEMO=off` it starts with no account and no demo bot, and opened to a reverse proxy's Host
 * name (ALLOWED_HOSTS) it answers that name as well as the loopback ones, and no other. Then, with this file's own
 * accounts written as a bot writes them: the keys CLI and `serverless invoke local` reach its database through
 * DB_PORT; the commands its banner prints make a key that works; its database door serves local programs only; its
 * terminal shows warnings but not every request, whose lines go to the log file its banner names; the dashboard asks
 * for a key (in Chromium); and nothing it started outlives it when it is killed (SIGKILL).
 *
 * One stack for both (it was two files until issue 44: an npm start costs a run some 10 to 30 CPU-seconds, the demo
 * data's load much of it); the demo data itself is loaded, and tried, by the dashboard's stack
 * (test/browser/dashboard.test.ts).
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { LOCAL_AWS_ENV } from '../../scripts/local-stack/local-db';
import { localWriter } from '../../scripts/support/load-data';
import { ConsoleErrors, launchChromium, shot } from '../kit/browser';
import { http } from '../kit/http';
import { SCRATCH_BUILDS } from '../kit/packaged';
import { until } from '../kit/until';
import {
  descendantRunning,
  eventually,
  expectNothingOutlives,
  linesWith,
  logFileOf,
  npmStart,
  type Started,
  whilePaused,
} from '../kit/npm-start';

jest.setTimeout(240_000);

const ROOT = join(__dirname, '..', '..');
const run = promisify(execFile);

let started: Started;
beforeAll(async () => {
  started = await npmStart({ DEMO: 'off', AUTH: 'on', ALLOWED_HOSTS: 'bots.example.com' });
});
afterAll(() => {
  if (started?.child.exitCode === null) started.child.kill('SIGKILL');
});

// First, before this file writes any account.
it('starts with zero accounts, no demo bot, and a Host name the operator allowed', async () => {
  expect(started.output()).toContain('  Demo: off (DEMO=off)');
  expect(started.output()).toContain(`listening on 127.0.0.1:${started.ports.PORT}, answering the Host names localhost, bots.example.com`);
  const keys = await run(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'scripts', 'keys.ts'), 'create', '--accounts', '*', '--label', 'proxy', '--quiet'],
    { cwd: ROOT, env: started.env },
  );
  expect(keys.stderr).toBe(`keys: writing to stage local on DynamoDB Local at http://127.0.0.1:${started.ports.DB_PORT}\n`);
  const key = keys.stdout.trim();
  const url = `http://127.0.0.1:${started.ports.PORT}/api/accounts`;
  // As a reverse proxy forwards it: the public name in Host.
  const accounts = await http(url, { headers: { 'x-api-key': key, host: 'bots.example.com' } });
  expect([accounts.status, accounts.body.accounts]).toEqual([200, []]);
  expect((await http(url, { headers: { host: 'bots.example.com' } })).status).toBe(401);
  expect((await http(url, { headers: { 'x-api-key': key, host: 'other.example.com' } })).status).toBe(421);
});

describe('with accounts written by bots', () => {
  beforeAll(async () => {
    // The accounts the tests below read, written through the writer package through DB_PORT as a bot's would be: a
    // USD account with a balance and two open trades (the banner's curl lists its open trades), two more for the
    // dashboard's scoped key.
    const writer = localWriter(`http://127.0.0.1:${started.ports.DB_PORT}`, { stage: 'local' });
    try {
      const now = Date.now();
      for (const [id, name, currency] of [
        ['primary-usd', 'Primary USD', 'USD'],
        ['euro-swing', 'Euro Swing', 'EUR'],
        ['gold-desk', 'Gold Desk', 'USD'],
      ] as const) {
        await writer.upsertAccount({ id, name, currency, broker: 'OANDA', environment: 'paper' });
        await writer.recordBalance(id, {
          balance: '10000.00',
          unrealizedPL: '0.00',
          nav: '10000.00',
          marginUsed: '0.00',
          marginAvailable: '10000.00',
          time: new Date(now - 60_000).toISOString(),
        });
        await writer.heartbeat(id, { state: 'running', time: new Date(now - 30_000).toISOString() });
      }
      for (const [id, instrument, openPrice] of [
        ['k-1', 'EUR_USD', '1.08500'],
        ['k-2', 'USD_JPY', '151.250'],
      ] as const) {
        await writer.openTrade('primary-usd', {
          id,
          instrument,
          side: 'buy',
          units: '1000',
          openPrice,
          openTime: new Date(now - 120_000).toISOString(),
        });
      }
    } finally {
      writer.close();
    }
  });

  it('the keys CLI and serverless invoke local reach its database through DB_PORT', async () => {
    const keys = await run(
      process.execPath,
      ['--import', 'tsx', join(ROOT, 'scripts', 'keys.ts'), 'create', '--accounts', 'primary-usd', '--label', 'e2e'],
      { cwd: ROOT, env: started.env },
    );
    const key = keys.stdout.trim().split('\n').pop()!;
    // The fleet's answers follow the tables through the stream projector, a moment behind the writes above.
    const accounts = await until(async () => {
      const answer = await http(`http://127.0.0.1:${started.ports.PORT}/api/accounts`, { headers: { 'x-api-key': key } });
      return answer.body.accounts?.length && answer;
    }, 'the account written in the fleet');
    expect(accounts.body.accounts.map((a: { id: string }) => a.id)).toEqual(['primary-usd']);

    const invoked = await run(
      process.execPath,
      [
        join(ROOT, 'node_modules', 'serverless', 'bin', 'serverless.js'),
        'invoke',
        'local',
        '--stage',
        'local',
        '--function',
        'account-balance',
        '--path',
        'events/account-balance.json',
      ],
      // As the README shows it: DB_PORT finds the database; DynamoDB Local takes any credentials.
      {
        cwd: ROOT,
        env: {
          ...started.env,
          ...LOCAL_AWS_ENV,
          CURSOR_SECRET: 'a-secret-only-this-invocation-uses-0123456789',
          SLS_TELEMETRY_DISABLED: '1',
          // Not in .esbuild, which a package built meanwhile would delete.
          ESBUILD_WORK_FOLDER: `${SCRATCH_BUILDS}/invoke-test`,
        },
      },
    );
    // The function's access line comes first (one line of JSON), then the result, pretty-printed.
    const [accessLine] = invoked.stdout.split('\n').filter((line) => line.startsWith('{"level"'));
    expect(JSON.parse(accessLine)).toMatchObject({ message: 'request', route: '/api/{account}/balance', status: 200, stage: 'local' });
    const result = JSON.parse(invoked.stdout.slice(invoked.stdout.search(/^\{$/m)));
    expect(result.statusCode).toBe(200);
    expect(JSON.parse(result.body)).toMatchObject({ accountId: 'primary-usd', currency: 'USD' });
  });

  it('prints commands that, pasted into another shell, make a key and get a 200 with it', async () => {
    const banner = started.output().split('\n');
    const header = banner.findIndex((line) => line.startsWith('  Try it in another shell'));
    const commands = banner.slice(header + 1, banner.indexOf('Press Ctrl-C to stop.')).map((line) => line.trim());
    expect(header).toBeGreaterThan(0);
    expect(commands).toEqual([
      `KEY=$(DB_PORT=${started.ports.DB_PORT} npm run --silent keys -- create --accounts '*' --label me --quiet)`,
      expect.stringMatching(/^curl -H "x-api-key: \$KEY" '/),
    ]);
    // Another shell in the project's folder: none of npm start's variables, its ports among them.
    const shell = await run('/bin/sh', ['-c', commands.join('\n')], { cwd: ROOT, env: { PATH: process.env.PATH, HOME: process.env.HOME } });
    const body = JSON.parse(shell.stdout);
    // A trade listing, not a problem: a 200.
    expect(body.type).toBeUndefined();
    expect(body.trades.length).toBeGreaterThan(0);
    expect(body.trades.filter((trade: { accountId: string; status: string }) => trade.status !== 'open')).toEqual([]);
  });

  it('its database door serves local programs only, not web pages', async () => {
    const db = `http://127.0.0.1:${started.ports.DB_PORT}/`;
    const request = {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'DynamoDB_20120810.ListTables' },
    };
    const pageHeaders: Record<string, string>[] = [
      { origin: 'https://evil.example' },
      { 'sec-fetch-site': 'cross-site' },
      { host: `attacker.example:${started.ports.DB_PORT}` },
    ];
    for (const headers of pageHeaders) {
      const answer = await http(db, { ...request, headers: { ...request.headers, ...headers } });
      expect(answer.status).toBe(403);
      expect(answer.text).not.toContain('trading-bot-api');
    }
  });

  it('writes each request’s access line to the log file its banner names, not to the terminal; a warning reaches the terminal', async () => {
    const base = `http://127.0.0.1:${started.ports.PORT}`;
    const file = logFileOf(started);
    const answer = await http(`${base}/api/health`);
    expect(answer.status).toBe(200);
    const id = answer.headers['x-request-id'];
    const [logged] = await eventually(() => {
      const lines = linesWith(readFileSync(file, 'utf8'), id);
      return lines.length ? lines : undefined;
    }, `request ${id} in ${file}`);
    expect(JSON.parse(logged)).toMatchObject({ level: 'INFO', message: 'request', route: '/api/health', status: 200, request_id: id });
    // No access line reached the terminal: not this one, nor start-up's health checks, nor the other tests' requests.
    expect(started.output()).not.toContain('"message":"request"');

    // The database stops answering (DynamoDB Local paused): /api/health is a 503, whose access line is a warning.
    const down = await whilePaused(descendantRunning(started, 'java'), () => http(`${base}/api/health`));
    expect(down.status).toBe(503);
    // Two warnings under its request id: why (the SDK's or the network's word), then its access line.
    const warnings = await eventually(() => {
      const lines = linesWith(started.output(), down.headers['x-request-id']);
      return lines.length >= 2 ? lines : undefined;
    }, 'the 503 on the terminal');
    expect(warnings.map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({
        level: 'WARN',
        message: 'health: the database did not answer',
        fault: 'unavailable',
        reason: expect.any(String),
      }),
      expect.objectContaining({ level: 'WARN', message: 'request', route: '/api/health', status: 503 }),
    ]);
    expect(linesWith(readFileSync(file, 'utf8'), down.headers['x-request-id'])).toEqual(warnings);
    expect((await http(`${base}/api/health`)).status).toBe(200);
  });

  it('the dashboard asks for a key, keeps it for the browser session only, and shows what the key may see', async () => {
    const key = (
      await run(
        process.execPath,
        ['--import', 'tsx', join(ROOT, 'scripts', 'keys.ts'), 'create', '--accounts', 'euro-swing,gold-desk', '--label', 'browser'],
        { cwd: ROOT, env: started.env },
      )
    ).stdout
      .trim()
      .split('\n')
      .pop()!;
    const base = `http://localhost:${started.ports.PORT}`;
    const browser = await launchChromium();
    const consoleErrors = new ConsoleErrors();
    /** The dashboard in a new browser session (a context of its own), once it asks for a key. */
    const prompted = async () => {
      const tab = await (await browser.newContext()).newPage();
      consoleErrors.watch(tab);
      // The refused first request is the browser's own console line, not the page's: expected here.
      consoleErrors.expecting = true;
      await tab.goto(`${base}/`);
      await tab.waitForSelector('#api-key');
      return tab;
    };
    try {
      const tab = await prompted();
      await shot(tab, 'key-prompt');
      // The prompt shows the whole command, and that command, pasted into a shell in the project's folder, makes a
      // key this stack takes.
      const shown = await tab.textContent('[data-testid=key-command]');
      expect(shown).toBe("npm run keys -- create --accounts '*' --label dashboard");
      const made = (await run('/bin/sh', ['-c', shown!], { cwd: ROOT, env: started.env })).stdout.trim().split('\n').pop()!;
      expect((await fetch(`${base}/api/accounts`, { headers: { 'x-api-key': made } })).status).toBe(200);
      await tab.fill('#api-key', key);
      await tab.keyboard.press('Enter');
      await tab.waitForFunction(() => document.querySelectorAll('[data-testid=fleet] article').length === 2);
      consoleErrors.expecting = false;
      expect(await tab.evaluate(() => Object.keys(sessionStorage))).toEqual(['trading-bot-api-key']);
      expect(await tab.evaluate(() => Object.keys(localStorage))).toEqual([]);
      // Another session (a new browser context) has no key.
      await prompted();
      consoleErrors.expecting = false;
      expect(consoleErrors.seen).toEqual([]);
    } finally {
      await browser.close();
    }
  });

  it('leaves nothing behind when killed with SIGKILL', async () => {
    await expectNothingOutlives(started, 'SIGKILL');
  });
});
