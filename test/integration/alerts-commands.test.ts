/**
 * The two commands an operator runs, started as `npm run` starts them, against DynamoDB Local and the fake Telegram,
 * Discord, Slack and webhook servers (test/kit/fake-channels.ts), with a fake of SSM and Secrets Manager for
 * `--stage` (test/kit/fake-aws.ts):
 *
 * - `npm run alerts -- test` sends one test message to every configured channel and says, a line per channel, which
 *   answered: exit 0 when all did, 1 when one did not (the others still get theirs);
 * - `npm run digest` prints the digest, exactly as it is rendered from the API's figures, and sends nothing;
 *   `-- --send` prints it too and sends it once to each channel, the stage's own secret included.
 */
import { once } from 'node:events';
import type { AlertEvent } from '../../api/alerts/events';
import { type Harness, startHarness } from '../kit/api-harness';
import { FakeAws } from '../kit/fake-aws';
import { startFakeChannels } from '../kit/fake-channels';
import { startScript } from '../kit/scripts';
import { closedTrade } from '../kit/closed-trade';

/** What `npm run alerts -- test` prints when every channel takes its test message. */
const EVERY_CHANNEL_ANSWERED = ['telegram', 'discord', 'slack', 'webhook'].map((name) => `${name}: answered (the test message is there)`);

const DAY = 86_400_000;
/** The clock the trades are placed by: yesterday's are in the digest of `now`. */
const now = new Date();
let harness: Harness;
let aws: FakeAws;
let fakes: Awaited<ReturnType<typeof startFakeChannels>>;

beforeAll(async () => {
  [aws, fakes] = await Promise.all([new FakeAws().start(), startFakeChannels()]);
  harness = await startHarness();
  const iso = (ms: number) => new Date(ms).toISOString();
  const yesterday = Math.floor(now.getTime() / DAY) * DAY - DAY;
  for (const [id, name, currency] of [
    ['cmd-usd-a', 'Trend USD', 'USD'],
    ['cmd-usd-b', 'Scalper USD', 'USD'],
    ['cmd-eur', 'Carry EUR', 'EUR'],
  ] as const)
    await harness.writer.upsertAccount({ id, name, currency, broker: 'OANDA', environment: 'paper', createdAt: iso(yesterday - 30 * DAY) });
  let n = 0;
  for (const [accountId, hour, realizedPL] of [
    ['cmd-usd-a', 9, '12.50'],
    ['cmd-usd-b', 11, '-3.75'],
    ['cmd-eur', 14, '4.20'],
  ] as const) {
    const closeMs = yesterday + hour * 3_600_000;
    await harness.writer.recordTrades(accountId, [closedTrade(`${accountId}-t${n++}`, closeMs, realizedPL)]);
  }
  await harness.writer.heartbeat('cmd-usd-a', { state: 'running' });
  await harness.writer.heartbeat('cmd-usd-b', { state: 'error', message: 'Order rejected: insufficient margin' });
  await harness.writer.heartbeat('cmd-eur', { state: 'stopped', message: 'Stopped by its operator' });
});
afterAll(async () => {
  await fakes?.close();
  await aws?.close();
  await harness?.close();
});

/** Runs `scripts/<name>.ts` to its end: its exit code and everything it printed. */
async function run(name: string, args: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const { child, output } = startScript(name, args, { ...process.env, ...aws.env, ...env });
  const [code] = await once(child, 'exit');
  return { code, output: output() };
}

const unescapeHtml = (text: string) => text.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&');

/**
 * What each fake has taken so far (Telegram, Discord, Slack, webhook), as plain text: each channel's markup (its
 * title in bold, its escapes) taken off again.
 */
const taken = () => [
  fakes.telegram.texts.map((html) => unescapeHtml(html.replace(/<\/?b>/g, ''))),
  fakes.discord.contents.map((content) => content.replace(/^\*\*(.*)\*\*$/m, '$1').replace(/\\(.)/g, '$1')),
  fakes.slack.texts.map((mrkdwn) => unescapeHtml(mrkdwn.replace(/^\*(.*)\*$/m, '$1'))),
  fakes.webhook.bodies.map((body) => body.text),
];

it('`npm run alerts -- test` says which channels answered: exit 0 when all did, 1 when one did not', async () => {
  // Two operators at once: one with every channel right, one whose Discord webhook was deleted.
  const [all, wrong] = await Promise.all([
    run('alerts', ['test'], fakes.values),
    run('alerts', ['test'], { ...fakes.values, ALERT_DISCORD_WEBHOOK_URL: `${fakes.discord.base}/api/webhooks/1/deleted` }),
  ]);
  expect(all.output.trim().split('\n')).toEqual(EVERY_CHANNEL_ANSWERED);
  expect(all.code).toBe(0);
  // Discord says so; the others still answer, and the command fails.
  expect(wrong.output.trim().split('\n')).toEqual([
    'telegram: answered (the test message is there)',
    'discord: did not answer: HTTP 404: Unknown Webhook',
    'slack: answered (the test message is there)',
    'webhook: answered (the test message is there)',
  ]);
  expect(wrong.code).toBe(1);
  // One test message from each run that reached the channel, nothing else.
  expect(taken().map((texts) => texts.length)).toEqual([2, 1, 2, 2]);
  for (const text of taken().flat()) expect(text).toMatch(/^\[local\] ✅ Test message from the Trading Bot API\n/);
  expect(fakes.webhook.bodies.map((body) => [body.type, body.stage])).toEqual([
    ['test', 'local'],
    ['test', 'local'],
  ]);
});

it('`npm run digest` prints the digest as rendered from the API’s figures; `-- --send` also sends it once to each channel', async () => {
  const { buildDigest } = await import('../../api/alerts/digest');
  const { digestEvent } = await import('../../api/alerts/digest-text');
  const args = ['--stage', harness.stage, '--endpoint', harness.db.endpoint];
  /** The digest as the command renders it at `at`; the command's clock is its own, so both ends of its run count. */
  const rendered = async (at: Date) => digestEvent(await buildDigest(at), harness.stage, at.toISOString(), undefined).text;
  const dayOf = (at: Date) => Math.floor(at.getTime() / DAY);
  const printed = async (work: () => Promise<{ code: number | null; output: string }>) => {
    const before = new Date();
    const result = await work();
    const after = new Date();
    return { ...result, expected: await Promise.all((dayOf(before) === dayOf(after) ? [before] : [before, after]).map(rendered)) };
  };
  const before = taken().map((texts) => texts.length);
  // Projected, as a deployed stage's streams are within a second: the digest reads the fleet's summary.
  await harness.projector.drain();

  const shown = await printed(() => run('digest', args, {}));
  expect(shown.code).toBe(0);
  expect(shown.expected).toContain(shown.output.replace(/\n$/, ''));
  // It is the digest of this file's fleet: the figures and bots written above (as of the clock they were written by).
  const ours = dayOf(now) === dayOf(new Date()) ? shown.expected[0] : await rendered(now);
  for (const line of [
    `[${harness.stage}] 📊 Daily digest for`,
    'USD (2 accounts)',
    'Yesterday: +8.75 realized, 2 trades closed, win rate 50 %',
    'Best bot: Trend USD (cmd-usd-a) +12.50; worst: Scalper USD (cmd-usd-b) −3.75',
    'Only bot that closed a trade: Carry EUR (cmd-eur) +4.20',
    'In error: Scalper USD (cmd-usd-b): Order rejected: insufficient margin',
    'Stopped: Carry EUR (cmd-eur)',
    'Sent on demand (npm run digest).',
  ])
    expect(ours).toContain(line);
  expect(taken().map((texts) => texts.length)).toEqual(before);

  // --send: Telegram, Discord and Slack from the environment, the webhook from the stage's secret.
  aws.secrets.set(`trading-bot-api/${harness.stage}/alerts`, JSON.stringify({ ALERT_WEBHOOK_URL: fakes.webhook.url }));
  const { ALERT_WEBHOOK_URL: _fromTheSecret, ...fromTheEnvironment } = fakes.values;
  const sent = await printed(() => run('digest', [...args, '--send'], fromTheEnvironment));
  expect(sent.code).toBe(0);
  const [text, channels] = sent.output.split('\n\n');
  expect(sent.expected).toContain(text);
  expect(channels.trim().split('\n')).toEqual(['telegram: sent', 'discord: sent', 'slack: sent', 'webhook: sent']);
  expect(aws.calls).toContain('GetSecretValue');
  // Once at each: the printed text is what each channel shows, in its markup.
  expect(taken().map((texts, i) => texts.length - before[i])).toEqual([1, 1, 1, 1]);
  expect(taken().map((texts) => texts[texts.length - 1])).toEqual([text, text, text, text]);
  const body = fakes.webhook.bodies[fakes.webhook.bodies.length - 1] as AlertEvent;
  expect(body).toMatchObject({ type: 'digest', stage: harness.stage, title: text.split('\n')[0] });
  expect((body.digest as { day: string }).day).toBe(
    new Date(Math.floor(Date.parse(body.time) / DAY) * DAY - DAY).toISOString().slice(0, 10),
  );
});

it('`npm run alerts -- test --stage` reads that stage’s parameters and secret as its notifier does, and says why AWS refused', async () => {
  const stage = `${harness.stage}x`;
  const path = `/trading-bot-api/${stage}/alerts`;
  const { ALERT_WEBHOOK_URL, ...inParameters } = fakes.values;
  for (const [name, value] of Object.entries(inParameters)) if (value) aws.parameters.set(`${path}/${name}`, value);
  aws.secrets.set(`trading-bot-api/${stage}/alerts`, JSON.stringify({ ALERT_WEBHOOK_URL }));
  const before = taken().map((texts) => texts.length);
  const read = await run('alerts', ['test', '--stage', stage], {});
  expect(read.output.trim().split('\n')).toEqual(EVERY_CHANNEL_ANSWERED);
  expect(read.code).toBe(0);
  // Every page of the parameters (the fake answers two a page) and the secret.
  const pages = aws.inputs.filter((call) => call.action === 'GetParametersByPath' && call.input.Path === path);
  expect(pages.length).toBe(Math.ceil(Object.keys(inParameters).length / aws.parametersPerPage));
  expect(aws.inputs).toContainEqual({ action: 'GetSecretValue', input: { SecretId: `trading-bot-api/${stage}/alerts` } });

  // A read AWS refuses (the role may not read the secret): the command says which and why, sends nothing, shows no value.
  aws.fail('GetSecretValue', 'AccessDeniedException');
  const refused = await run('alerts', ['test', '--stage', stage], {});
  expect(refused.code).toBe(1);
  expect(refused.output).toMatch(
    /^alerts: the secret trading-bot-api\/\w+\/alerts could not be read: Secrets Manager refused GetSecretValue: AccessDeniedException: /,
  );
  expect(taken().map((texts, i) => texts.length - before[i])).toEqual([1, 1, 1, 1]);
  for (const value of Object.values(fakes.values)) if (value) expect(refused.output).not.toContain(value);
});
