/**
 * `npm start` itself (scripts/start.ts, as the README runs it): it stops with one line when Java is missing; with
 * LOG_LEVEL=DEBUG its terminal shows every request's line as well as the log file its banner names; its probe sends
 * alerts; and nothing it starts outlives its crash. The rest of npm start's tests share a stack with tests that need
 * one like it, since each npm start costs a run some 30 CPU-seconds: AUTH=on (its tools, its log file, its database
 * door, the dashboard's key prompt, SIGKILL) in npm-start-keys.test.ts, and the demo bot trading, a package built
 * beside it and its terminal closing (SIGHUP) in connect-your-bot.test.ts.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../scripts/local-stack/processes';
import { FakeWebhook } from '../kit/fake-channels';
import { http } from '../kit/http';
import { eventually, expectNothingOutlives, linesWith, logFileOf, npmStart, type Started } from '../kit/npm-start';

jest.setTimeout(240_000);

const ROOT = join(__dirname, '..', '..');

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
