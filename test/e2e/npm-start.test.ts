/**
 * `npm start` itself (scripts/start.ts, as the README runs it), and "Connect your bot" as the README tells it against
 * it. It stops with one line when Java is missing. On a stack with LOG_LEVEL=DEBUG and its probe sending alerts to a
 * webhook: the alerts come, and every request's line shows on the terminal as well as in the log file its banner
 * names; the TypeScript example through the writer package, the Python example's event lines through `npm run
 * ingest`, and the freqtrade bridge (against a fake freqtrade) write what the API then answers over HTTP, and the
 * README's snippets are the examples' own lines; a deploy's package built beside it leaves it answering; and nothing
 * it started outlives its crash (SIGABRT).
 *
 * Each npm start costs a run some 20 to 30 CPU-seconds, so the tests that need one share it: AUTH=on's tests (and
 * SIGKILL) are on the stack of npm-start-keys.test.ts, and the demo bot's trades appearing and the terminal closing
 * (SIGHUP) on the dashboard's (test/browser/dashboard.test.ts).
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../../scripts/local-stack/processes';
import { FakeWebhook } from '../kit/fake-channels';
import { FakeFreqtrade } from '../kit/fake-freqtrade';
import { http } from '../kit/http';
import { eventually, expectNothingOutlives, linesWith, logFileOf, npmStart, type Started } from '../kit/npm-start';
import { packageBeside } from '../kit/packaged';
import { writerBuilt } from '../kit/writer-build';

jest.setTimeout(240_000);

const ROOT = join(__dirname, '..', '..');
const TSX = join(ROOT, 'node_modules', '.bin', 'tsx');
const run = promisify(execFile);
let started: Started;
/** The environment of a program run in another shell: npm start's database found through DB_PORT. */
let env: NodeJS.ProcessEnv;

const get = async (path: string) => {
  const answer = await http(`http://127.0.0.1:${started.ports.PORT}${path}`);
  expect([path, answer.status]).toEqual([path, 200]);
  return answer.body;
};

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

describe('with LOG_LEVEL=DEBUG, and alerts to a webhook', () => {
  let webhook: FakeWebhook;
  beforeAll(async () => {
    // The TypeScript example imports the package as a bot's repository would: its built files.
    await writerBuilt();
    webhook = await new FakeWebhook().start();
    // The probe's first run comes at once; the next not before the test ends.
    started = await npmStart({ LOG_LEVEL: 'DEBUG', PROBE: 'on', PROBE_SECONDS: '3600', ALERT_WEBHOOK_URL: webhook.url });
    env = { ...process.env, DB_PORT: String(started.ports.DB_PORT) };
    delete env.STAGE;
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

  describe('connect your bot, as the README tells it', () => {
    it('the TypeScript example runs as written and the API shows what it wrote', async () => {
      // From the example's folder (its own tsconfig.json): the repository's paths would map the package to its sources.
      const { stdout } = await run(TSX, ['bot.ts'], { cwd: join(ROOT, 'examples', 'typescript-bot'), env });
      expect(stdout).toMatch(
        /^refused as expected: TRADE_CLOSED\nwrote account example-ts and trade ex-\d+\nDone trying it\? npm run accounts -- retire example-ts takes it out of the fleet; its history stays\.\n$/,
      );
      const [trade] = (await get('/api/example-ts/trades')).trades;
      expect(trade).toMatchObject({ instrument: 'EUR_USD', status: 'closed', closePrice: '1.08610', realizedPL: '19.00' });
      expect(await get('/api/example-ts/balance')).toMatchObject({ nav: '10019.00', currency: 'USD' });
      expect(await get('/api/example-ts/status')).toMatchObject({ state: 'running', strategy: 'example' });
    });

    it('the Python example, piped into npm run ingest, shows up too', async () => {
      const python = spawn('python3', [join(ROOT, 'examples', 'python', 'bot.py'), '-'], { cwd: ROOT });
      const ingest = spawn(TSX, [join(ROOT, 'scripts', 'ingest.ts'), '-'], { cwd: ROOT, env });
      python.stdout.pipe(ingest.stdin);
      let output = '';
      ingest.stdout.on('data', (chunk) => (output += chunk));
      ingest.stderr.on('data', (chunk) => (output += chunk));
      expect(await new Promise((resolve) => ingest.on('exit', resolve))).toBe(0);
      expect(output).toMatch(/^ingest: 6 lines read, 6 written, 0 unchanged, 0 rejected/m);
      const [trade] = (await get('/api/example-py/trades')).trades;
      expect(trade).toMatchObject({ instrument: 'BTC_USDT', units: '0.015', status: 'closed', realizedPL: '3.75' });
      expect(await get('/api/example-py/balance')).toMatchObject({ nav: '1003.75', currency: 'USDT' });
    });

    it('a test bot retired as the examples say leaves the fleet, its history readable by id', async () => {
      const fleet = async () => (await get('/api/all/status')).accounts.map((status: { accountId: string }) => status.accountId);
      expect(await fleet()).toEqual(expect.arrayContaining(['example-py', 'example-ts']));
      const { stdout } = await run(TSX, [join(ROOT, 'scripts', 'accounts.ts'), 'retire', 'example-py', 'example-ts'], { cwd: ROOT, env });
      expect(stdout).toMatch(/^example-py: retired: .*\nexample-ts: retired: .*\n$/);
      expect(await fleet()).not.toEqual(expect.arrayContaining(['example-py']));
      expect(await fleet()).not.toEqual(expect.arrayContaining(['example-ts']));
      expect((await get('/api/example-py/trades')).trades).toHaveLength(1);
      expect(await get('/api/example-py/status')).toMatchObject({ retiredAt: expect.any(String) });
    });

    it('the freqtrade bridge mirrors a bot into the running stack', async () => {
      const bot = await new FakeFreqtrade().start();
      try {
        bot.open({ pair: 'BTC/USDT', amount: 0.01, rate: 60000.5, at: Date.now() - 60_000 });
        await run(
          TSX,
          [join(ROOT, 'scripts', 'bridge.ts'), 'freqtrade', '--url', bot.url, '--username', bot.username, '--account', 'ft-e2e', '--once'],
          {
            cwd: ROOT,
            env: { ...env, FREQTRADE_PASSWORD: bot.password },
          },
        );
        expect((await get('/api/ft-e2e/trades')).trades).toMatchObject([
          // At the exchange's precision freqtrade reports (0.00001 BTC, 0.01 USDT).
          { instrument: 'BTC_USDT', units: '0.01000', openPrice: '60000.50', status: 'open' },
        ]);
        expect(await get('/api/ft-e2e/status')).toMatchObject({ state: 'running', strategy: 'SampleStrategy', stale: false });
      } finally {
        await bot.stop();
      }
    });
  });

  it('keeps answering while a deploy’s package is built beside it', async () => {
    // As a user would run it from a clean shell (serverless-esbuild's default work folder, which it empties first):
    // the running stack keeps answering, during the build and after it. The build is the run's one, which the
    // packaged template's test then reads (test/kit/packaged.ts).
    const base = `http://127.0.0.1:${started.ports.PORT}`;
    const answers: string[] = [];
    let packaging = true;
    const poll = (async () => {
      while (packaging) {
        for (const path of ['/api/health', '/api/primary-usd/trades?limit=2', '/'])
          answers.push(`${path} ${(await http(`${base}${path}`)).status}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    try {
      await packageBeside();
    } finally {
      packaging = false;
      await poll;
    }
    for (const path of ['/api/health', '/api/primary-usd/trades?limit=2', '/'])
      answers.push(`${path} ${(await http(`${base}${path}`)).status}`);
    expect(answers.length).toBeGreaterThan(6);
    expect(answers.filter((answer) => !answer.endsWith(' 200'))).toEqual([]);
  });

  it('leaves nothing behind when it crashes (SIGABRT)', async () => {
    await expectNothingOutlives(started, 'SIGABRT');
  });
});
