/**
 * `npm start` itself (scripts/start.ts, as the README runs it): it stops with one line when Java is missing; the
 * project's tools reach its database through DB_PORT; its terminal shows warnings and errors but not every request,
 * whose lines go to the log file its banner names (and to the terminal too with LOG_LEVEL=DEBUG); `serverless package`
 * beside it leaves it answering; and nothing it starts outlives it, however it ends: SIGKILL, SIGHUP (its terminal
 * closing) or a crash.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { LOCAL_AWS_ENV } from '../../scripts/local-stack/local-db';
import { freePort, portIsFree } from '../../scripts/local-stack/processes';
import { FakeWebhook } from '../kit/fake-channels';
import { http } from '../kit/http';
import { npmStart, type Started } from '../kit/npm-start';

jest.setTimeout(240_000);

const ROOT = join(__dirname, '..', '..');
const run = promisify(execFile);

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
function descendantRunning(started: Started, name: string): number {
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

/** What `find` finds within 15 s (a line crosses two pipes before npm start writes it out). */
async function eventually<T>(find: () => T | undefined, what: string): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const found = find();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`not found within 15 s: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The lines of `text` that carry the request id `id`. */
function linesWith(text: string, id: string): string[] {
  return text.split('\n').filter((line) => line.includes(id));
}

/** The log file npm start's banner names. */
function logFileOf(started: Started): string {
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

/** Ends npm start with `signal` and expects every process it started to be gone and every port free. */
async function expectNothingOutlives(started: Started, signal: NodeJS.Signals) {
  const tree = descendants(started.child.pid!);
  // The supervisors, DynamoDB Local (java) and serverless offline at least.
  expect(tree.length).toBeGreaterThanOrEqual(4);
  started.child.kill(signal);
  const deadline = Date.now() + 20_000;
  let survivors = tree;
  let busy: number[] = Object.values(started.ports);
  while (Date.now() < deadline) {
    survivors = tree.filter(alive);
    busy = [];
    for (const port of Object.values(started.ports)) if (!(await portIsFree(port))) busy.push(port);
    if (!survivors.length && !busy.length) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  expect({ survivors, busy }).toEqual({ survivors: [], busy: [] });
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

describe('with AUTH=on', () => {
  let started: Started;
  beforeAll(async () => {
    started = await npmStart({ AUTH: 'on' });
  });
  afterAll(() => {
    if (started?.child.exitCode === null) started.child.kill('SIGKILL');
  });

  it('the keys CLI and serverless invoke local reach its database through DB_PORT', async () => {
    const keys = await run(
      process.execPath,
      ['--import', 'tsx', join(ROOT, 'scripts', 'keys.ts'), 'create', '--accounts', 'primary-usd', '--label', 'e2e'],
      { cwd: ROOT, env: started.env },
    );
    const key = keys.stdout.trim().split('\n').pop()!;
    const accounts = await http(`http://127.0.0.1:${started.ports.PORT}/api/accounts`, { headers: { 'x-api-key': key } });
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
          ESBUILD_WORK_FOLDER: '.esbuild/invoke-test',
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
    const java = descendantRunning(started, 'java');
    process.kill(java, 'SIGSTOP');
    let down: Awaited<ReturnType<typeof http>>;
    try {
      down = await http(`${base}/api/health`);
    } finally {
      process.kill(java, 'SIGCONT');
    }
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

  it('leaves nothing behind when killed with SIGKILL', async () => {
    await expectNothingOutlives(started, 'SIGKILL');
  });
});

it('shows a living system: the demo bot’s trades and heartbeats appear within seconds; a package built beside it does not stop it; SIGHUP leaves nothing behind', async () => {
  const started = await npmStart({ DEMO_BOT: 'on' });
  const base = `http://127.0.0.1:${started.ports.PORT}`;
  const deadline = Date.now() + 60_000;
  let live: { id: string } | undefined;
  while (!live && Date.now() < deadline) {
    live = (await http(`${base}/api/all/trades?limit=5`)).body.trades.find((trade: { id: string }) => trade.id.includes('-live-'));
    if (!live) await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  expect(live).toBeDefined();
  expect((await http(`${base}/api/primary-usd/status`)).body).toMatchObject({ state: 'running', stale: false });

  // A deploy's package built beside it, as a user would run it (serverless-esbuild's default work folder, which it
  // empties first): the running stack keeps answering, during the build and after it.
  const answers: string[] = [];
  let packaging = true;
  const poll = (async () => {
    while (packaging) {
      for (const path of ['/api/health', '/api/primary-usd/trades?limit=2', '/'])
        answers.push(`${path} ${(await http(`${base}${path}`)).status}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  const out = mkdtempSync(join(tmpdir(), 'package-beside-start-'));
  const { ESBUILD_WORK_FOLDER: _own, ...env } = started.env;
  try {
    await run(
      process.execPath,
      [join(ROOT, 'node_modules', 'serverless', 'bin', 'serverless.js'), 'package', '--stage', 'prod', '--package', out],
      { cwd: ROOT, env: { ...env, SLS_TELEMETRY_DISABLED: '1' } },
    );
  } finally {
    packaging = false;
    await poll;
    rmSync(out, { recursive: true, force: true });
  }
  for (const path of ['/api/health', '/api/primary-usd/trades?limit=2', '/'])
    answers.push(`${path} ${(await http(`${base}${path}`)).status}`);
  expect(answers.length).toBeGreaterThan(6);
  expect(answers.filter((answer) => !answer.endsWith(' 200'))).toEqual([]);

  // Closing its terminal ends it, and everything it started.
  await expectNothingOutlives(started, 'SIGHUP');
});

describe('with LOG_LEVEL=DEBUG, and alerts to a webhook', () => {
  let started: Started;
  let webhook: FakeWebhook;
  beforeAll(async () => {
    webhook = await new FakeWebhook().start();
    // The probe's first run comes at once; the next not before the test ends.
    started = await npmStart({ LOG_LEVEL: 'DEBUG', PROBE: 'on', PROBE_SECONDS: '3600', ALERT_WEBHOOK_URL: webhook.url });
  });
  afterAll(async () => {
    if (started?.child.exitCode === null) started.child.kill('SIGKILL');
    await webhook?.close();
  });

  it('sends the demo fleet’s bots in error and stopped from its probe, with links to its dashboard', async () => {
    expect(started.output()).toContain('  Alerts: sent to webhook on each change');
    const bodies = await eventually(() => (webhook.bodies.length >= 2 ? webhook.bodies : undefined), 'two alerts at the webhook');
    const byType = Object.fromEntries(bodies.map((body) => [body.type, body]));
    expect(byType.bot_error).toMatchObject({
      stage: 'local',
      state: 'error',
      url: expect.stringMatching(new RegExp(`^http://localhost:${started.ports.PORT}/#/account/`)),
    });
    expect(byType.bot_stopped).toMatchObject({ stage: 'local', accountId: 'gold-desk', state: 'stopped' });
    await eventually(
      () => (started.output().includes('alerts: bot_stopped gold-desk sent to webhook') ? true : undefined),
      'the line saying so',
    );
  });

  it('prints each request’s access line on the terminal as well as in the log file', async () => {
    const file = logFileOf(started);
    const answer = await http(`http://127.0.0.1:${started.ports.PORT}/api/primary-usd/balance`);
    expect(answer.status).toBe(200);
    const id = answer.headers['x-request-id'];
    const [shown] = await eventually(() => {
      const lines = linesWith(started.output(), id);
      return lines.length ? lines : undefined;
    }, `request ${id} on the terminal`);
    expect(JSON.parse(shown)).toMatchObject({ level: 'INFO', message: 'request', route: '/api/{account}/balance', status: 200 });
    await eventually(() => (linesWith(readFileSync(file, 'utf8'), id).length ? true : undefined), `request ${id} in ${file}`);
  });

  it('leaves nothing behind when it crashes (SIGABRT)', async () => {
    await expectNothingOutlives(started, 'SIGABRT');
  });
});
