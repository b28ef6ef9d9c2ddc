/**
 * The alerts end to end against DynamoDB Local and fake Telegram, Discord, Slack and webhook servers that answer as
 * the services do (test/kit/fake-channels.ts), and a fake of SNS, SSM and Secrets Manager reached through the
 * SDK's own endpoint variables (test/kit/fake-aws.ts):
 *
 * - bots turning error, stopped, stale and back: one message per change on every channel, naming the bot and why;
 *   probes that see nothing new send nothing; runs racing each other announce a change once;
 * - the deployed path: the probe function publishes to the topic, the notifier function sends what SNS hands it
 *   (and CloudWatch's alarms) to channels whose secrets it reads from SSM and Secrets Manager; a change the topic
 *   refused is announced by the next run;
 * - a 429 is waited out for exactly the time asked, and the message arrives once; a long message arrives whole, in
 *   parts each within the service's limit;
 * - a failing channel does not stop the others, is logged once with its reason (no secret in any line), counted,
 *   and fails the invocation so the event goes to the on-failure queue; a service that quotes back its URL, its
 *   path or a token, whole, cut short or escaped, leaks no part of it into a line, the error or the queue;
 * - `npm start`'s probe watch sends the probe's alerts, and the database's changes, which only it can tell locally.
 *
 * No test waits for real: the delivery's `sleep` is replaced, and the probe's clock is passed in.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { Context, SNSEvent } from 'aws-lambda';
import type { AlertEvent } from '../../api/alerts/events';
import { type PnlRules, pnlRulesOf } from '../../api/alerts/pnl';
import { type Harness, startHarness } from '../kit/api-harness';
import { FakeAws } from '../kit/fake-aws';
import { channelSettings, FakeDiscord, FakeQuoter, FakeSlack, FakeTelegram, FakeWebhook, startFakeChannels } from '../kit/fake-channels';
import { printedWhile } from '../kit/printed';
import { until } from '../kit/until';

const ROOT = join(__dirname, '..', '..');
const DASHBOARD = 'https://abc123.execute-api.us-east-1.amazonaws.com/prod/';
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
const validEvent = ajv.compile(JSON.parse(readFileSync(join(ROOT, 'api', 'alerts', 'webhook.schema.json'), 'utf8')));

let harness: Harness;
let aws: FakeAws;
let fakes: Awaited<ReturnType<typeof startFakeChannels>>;
let parametersPath: string;

beforeAll(async () => {
  aws = await new FakeAws().start();
  harness = await startHarness({ STALE_AFTER_SECONDS: '300', DASHBOARD_URL: DASHBOARD, ...aws.env });
  parametersPath = `/trading-bot-api/${harness.stage}/alerts`;
  Object.assign(process.env, {
    ALERTS_TOPIC_ARN: `arn:aws:sns:us-east-1:123456789012:trading-bot-api-${harness.stage}-alerts`,
    ALERT_PARAMETERS_PATH: parametersPath,
    ALERT_SECRET_ID: `trading-bot-api/${harness.stage}/alerts`,
  });
  fakes = await startFakeChannels();
});
afterAll(async () => {
  await fakes?.close();
  await aws?.close();
  await harness?.close();
});

/** A delivery `sleep` that records each wait and returns at once. */
function recordingSleep() {
  const waits: number[] = [];
  return { waits, sleep: async (ms: number) => void waits.push(ms) };
}

async function account(id: string, name: string, state: 'running' | 'error' | 'stopped' = 'running', message: string | null = null) {
  await harness.writer.upsertAccount({ id, name, currency: 'USD', broker: 'OANDA', environment: 'paper' });
  await harness.writer.heartbeat(id, { state, message });
}

/** One probe at `now` as the probe function makes it (its fleet, then the alerts it records), sent to every fake. */
async function probeAndSend(now: Date, rules?: PnlRules): Promise<AlertEvent[]> {
  const { probeFleet } = await import('../../api/operations/probe');
  const { alertOnFleet } = await import('../../api/alerts/probe-alerts');
  const { store } = await import('../../api/database');
  const { channelsOf } = await import('../../api/alerts/settings');
  const { deliverAlerts } = await import('../../api/alerts/delivery');
  const { fleet } = await probeFleet(now);
  const events = await alertOnFleet(
    fleet!.accounts.filter((status) => status.accountId.startsWith('al-')),
    now,
    {
      store,
      table: process.env.ALERTS_TABLE!,
      stage: harness.stage,
      staleAfterSeconds: 300,
      probeIntervalSeconds: 300,
      dashboardUrl: DASHBOARD,
      rules,
    },
  );
  const reports = await deliverAlerts(events, channelsOf(fakes.values).channels, { sleep: recordingSleep().sleep });
  for (const report of reports) expect([report.channel, report.failed]).toEqual([report.channel, []]);
  return events;
}

const later = (seconds: number) => new Date(Date.now() + seconds * 1000);
/** What each channel has taken so far. */
const counts = () => [fakes.telegram.texts.length, fakes.discord.contents.length, fakes.slack.texts.length, fakes.webhook.bodies.length];

describe('bots turning error, stopped, stale and back', () => {
  it('send one message per change to every channel, naming the bot and why; unchanged probes send nothing', async () => {
    for (const id of ['al-a', 'al-b', 'al-c']) await account(id, `Bot ${id.slice(3).toUpperCase()}`);
    expect(await probeAndSend(later(1))).toEqual([]);

    await harness.writer.heartbeat('al-a', { state: 'error', message: 'Broker API rejected orders: margin' });
    await harness.writer.heartbeat('al-c', { state: 'stopped', message: 'stopped by its operator' });
    const first = await probeAndSend(later(2));
    expect(first.map((event) => [event.type, event.accountId])).toEqual([
      ['bot_error', 'al-a'],
      ['bot_stopped', 'al-c'],
    ]);
    expect(await probeAndSend(later(3))).toEqual([]);

    // Six minutes on, al-b (running, last heard from at the start) is stale; al-a is in error, not stale.
    const stale = await probeAndSend(later(360));
    expect(stale.map((event) => [event.type, event.accountId, event.heartbeatAgeSeconds! >= 355])).toEqual([['bot_stale', 'al-b', true]]);
    expect(await probeAndSend(later(390))).toEqual([]);

    await harness.writer.heartbeat('al-a', { state: 'running' });
    await harness.writer.heartbeat('al-b', { state: 'running' });
    const back = await probeAndSend(later(5));
    expect(back.map((event) => [event.type, event.accountId, event.previous])).toEqual([
      ['bot_recovered', 'al-a', 'error'],
      ['bot_recovered', 'al-b', 'stale'],
    ]);
    expect(await probeAndSend(later(6))).toEqual([]);

    // Each channel has exactly the five messages, in order, each naming the bot (name and id) and the reason.
    const expected = [
      ['Bot A (al-a) is in error', 'Broker API rejected orders: margin'],
      ['Bot C (al-c) stopped', 'stopped by its operator'],
      ['Bot B (al-b) is stale', 'no heartbeat for 6 min'],
      ['Bot A (al-a) recovered', 'it was in error'],
      ['Bot B (al-b) recovered', 'it was stale'],
    ];
    expect(counts()).toEqual([5, 5, 5, 5]);
    const channels = {
      telegram: fakes.telegram.texts,
      discord: fakes.discord.contents.map((content) => content.replace(/\\(.)/g, '$1')),
      slack: fakes.slack.texts,
      webhook: fakes.webhook.bodies.map((body) => body.text),
    };
    for (const [channel, texts] of Object.entries(channels)) {
      texts.forEach((text, i) => {
        expect([channel, text]).toEqual([channel, expect.stringContaining(expected[i][0])]);
        expect([channel, text]).toEqual([channel, expect.stringContaining(expected[i][1])]);
        expect([channel, text]).toEqual([
          channel,
          expect.stringContaining(`${DASHBOARD}#/account/${/\((al-\w)\)/.exec(expected[i][0])![1]}`),
        ]);
      });
    }
    // Every webhook body is an event of the documented schema.
    for (const body of fakes.webhook.bodies) expect([body.id, validEvent(body) ? [] : validEvent.errors]).toEqual([body.id, []]);
    expect(fakes.webhook.bodies.map((body) => body.type)).toEqual([
      'bot_error',
      'bot_stopped',
      'bot_stale',
      'bot_recovered',
      'bot_recovered',
    ]);
    expect(
      fakes.telegram.requests.every((request) => request.body.parse_mode === 'HTML' && request.body.chat_id === fakes.telegram.chatId),
    ).toBe(true);
    expect(fakes.discord.requests.every((request) => request.body.allowed_mentions?.parse?.length === 0)).toBe(true);
  });

  it('a day’s loss beyond its limit sends one daily_loss message to every channel, however many probes see it', async () => {
    const before = counts();
    const { rules } = pnlRulesOf({ ALERT_DAILY_LOSS: '5%' });
    await account('al-loss', 'Loss day');
    const time = (secondsAgo: number) => new Date(Date.now() - secondsAgo * 1000).toISOString();
    const snapshot = (balance: string, at: string) =>
      harness.writer.recordBalance('al-loss', {
        balance,
        unrealizedPL: '0',
        nav: balance,
        marginUsed: '0',
        marginAvailable: balance,
        time: at,
      });
    await snapshot('1000.00', time(60));
    const lose = async (id: string, balance: string) => {
      await harness.writer.openTrade('al-loss', {
        id,
        instrument: 'EUR_USD',
        side: 'buy',
        units: '1000',
        openPrice: '1.10000',
        openTime: time(30),
      });
      await harness.writer.closeTrade('al-loss', id, {
        closePrice: '1.07000',
        closeTime: time(5),
        realizedPL: '-30.00',
        reason: 'stop_loss',
      });
      await snapshot(balance, time(4));
    };
    await lose('loss-1', '970.00');
    // 30.00 lost of a 50.00 limit (5 % of 1000.00): nothing yet.
    expect(await probeAndSend(later(20), rules)).toEqual([]);
    await lose('loss-2', '940.00');
    const said = await probeAndSend(later(21), rules);
    expect(said.map((event) => [event.type, event.accountId, event.pnl])).toEqual([
      [
        'daily_loss',
        'al-loss',
        { currency: 'USD', day: time(0).slice(0, 10), realizedPL: '-60.00', balance: '1000.00', limit: '50.00', setting: '5%' },
      ],
    ]);
    await lose('loss-3', '910.00');
    expect(await probeAndSend(later(22), rules)).toEqual([]);
    expect(counts().map((count, i) => count - before[i])).toEqual([1, 1, 1, 1]);
    expect(fakes.telegram.texts.at(-1)).toContain(`<b>[${harness.stage}] 🔻 Loss day (al-loss) lost 60.00 USD today</b>`);
    const body = fakes.webhook.bodies.at(-1);
    expect([body.type, validEvent(body) ? [] : validEvent.errors]).toEqual(['daily_loss', []]);
  });

  it('announce a change once when probes race to record it', async () => {
    const { probeFleet } = await import('../../api/operations/probe');
    const { alertOnFleet } = await import('../../api/alerts/probe-alerts');
    const { store } = await import('../../api/database');
    await account('al-race', 'Racer', 'error', 'exchange down');
    const now = later(10);
    const { fleet } = await probeFleet(now);
    const mine = fleet!.accounts.filter((status) => status.accountId === 'al-race');
    const options = { store, table: process.env.ALERTS_TABLE!, stage: harness.stage, staleAfterSeconds: 300, probeIntervalSeconds: 300 };
    const runs = await Promise.all(Array.from({ length: 5 }, () => alertOnFleet(mine, now, options)));
    expect(runs.flat().map((event) => [event.type, event.accountId])).toEqual([['bot_error', 'al-race']]);
    expect(await alertOnFleet(mine, now, options)).toEqual([]);
  });
});

describe('deployed: the probe publishes to the topic, the notifier sends what SNS hands it', () => {
  let telegram: FakeTelegram;
  let discord: FakeDiscord;
  let slack: FakeSlack;
  let webhook: FakeWebhook;
  beforeAll(async () => {
    [telegram, discord, slack, webhook] = await Promise.all([
      new FakeTelegram('987654321:AAF-deployed-token').start(),
      new FakeDiscord().start(),
      new FakeSlack().start(),
      new FakeWebhook().start(),
    ]);
    // Telegram's and Discord's settings as SSM parameters, Slack's and the webhook's in the Secrets Manager secret.
    aws.parameters.set(`${parametersPath}/ALERT_TELEGRAM_BOT_TOKEN`, telegram.token);
    aws.parameters.set(`${parametersPath}/ALERT_TELEGRAM_CHAT_ID`, telegram.chatId);
    aws.parameters.set(`${parametersPath}/ALERT_TELEGRAM_API_URL`, telegram.base);
    aws.parameters.set(`${parametersPath}/ALERT_DISCORD_WEBHOOK_URL`, discord.url);
    aws.parameters.set(`/trading-bot-api/other-stage/alerts/ALERT_SLACK_WEBHOOK_URL`, 'https://hooks.slack.com/services/not/ours');
    aws.secrets.set(process.env.ALERT_SECRET_ID!, JSON.stringify({ ALERT_SLACK_WEBHOOK_URL: slack.url, ALERT_WEBHOOK_URL: webhook.url }));
  });
  afterAll(() => Promise.all([telegram.close(), discord.close(), slack.close(), webhook.close()]));

  const context = (name: string) => ({ functionName: `trading-bot-api-test-${name}`, awsRequestId: `${name}-1` }) as Context;
  /** SNS's event for the Lambda subscriber: the `lambda` body of what was published (or CloudWatch's own message). */
  const snsEvent = (message: string, messageId = 'm-1'): SNSEvent =>
    ({
      Records: [
        { EventSource: 'aws:sns', Sns: { Message: message, MessageId: messageId, Subject: null, Timestamp: new Date().toISOString() } },
      ],
    }) as unknown as SNSEvent;

  it('per-bot changes and CloudWatch’s alarms reach every channel, rendered for a person', async () => {
    await account('dp-err', 'Deployed bot', 'error', 'API key expired');
    const probe = (await import('../../functions/probe')).handler;
    const notifier = (await import('../../functions/notifier')).handler;
    const { result } = await printedWhile(() => probe({} as never, context('probe')));
    const mine = result.alerts.filter((event) => event.accountId === 'dp-err');
    expect(mine.map((event) => event.type)).toEqual(['bot_error']);

    const published = aws.published.filter((entry) => entry.Message.includes('dp-err'));
    expect(published).toHaveLength(1);
    expect(published[0]).toMatchObject({
      TopicArn: process.env.ALERTS_TOPIC_ARN,
      MessageStructure: 'json',
      Subject: expect.stringMatching(/^\[\w+\] Deployed bot \(dp-err\) is in error$/),
    });
    const bodies = JSON.parse(published[0].Message);
    expect(bodies.email).toBe(mine[0].text);
    // Amazon Q Developer in chat applications shows the custom notification as it is.
    expect(JSON.parse(bodies.default)).toMatchObject({
      version: '1.0',
      source: 'custom',
      content: { title: mine[0].title, description: expect.stringContaining('API key expired') },
    });

    await printedWhile(() => notifier(snsEvent(bodies.lambda), context('notifier')));
    const alarmEvent: SNSEvent = JSON.parse(readFileSync(join(ROOT, 'events', 'notifier-alarm.json'), 'utf8'));
    const alarm = JSON.parse(alarmEvent.Records[0].Sns.Message);
    const database = {
      ...alarm,
      AlarmName: `trading-bot-api-prod-DatabaseUnhealthyAlarm-1A2B3C`,
      AlarmDescription: 'The probe could not read DynamoDB.',
    };
    await printedWhile(() => notifier(alarmEvent, context('notifier')));
    await printedWhile(() => notifier(snsEvent(JSON.stringify(database), 'm-3'), context('notifier')));
    // The database answers again: CloudWatch's OK for the same alarm.
    const databaseOk = {
      ...database,
      NewStateValue: 'OK',
      OldStateValue: 'ALARM',
      NewStateReason: 'Threshold Crossed: 1 datapoint [0.0 (22/11/26 10:20:00)] was not greater than the threshold (0.0).',
      StateChangeTime: '2026-11-22T10:21:12.345+0000',
    };
    await printedWhile(() => notifier(snsEvent(JSON.stringify(databaseOk), 'm-4'), context('notifier')));

    expect(webhook.bodies.map((body) => [body.type, body.accountId])).toEqual([
      ['bot_error', 'dp-err'],
      ['alarm', undefined],
      ['database_down', undefined],
      ['database_up', undefined],
    ]);
    for (const body of webhook.bodies) expect([body.type, validEvent(body) ? [] : validEvent.errors]).toEqual([body.type, []]);
    for (const texts of [telegram.texts, discord.contents, slack.texts]) {
      expect(texts).toHaveLength(4);
      expect(texts[0]).toContain('API key expired');
      expect(texts[1]).toMatch(/Alarm: Api5xxRateAlarm/);
      expect(texts[1]).toContain('Threshold Crossed');
      expect(texts[2]).toContain('The database does not answer');
      expect(texts[3]).toContain('The database answers again');
      expect(texts[3]).toContain('The probe reads DynamoDB again since 2026-11-22 10:21 UTC.');
    }
    expect(aws.calls).toEqual(expect.arrayContaining(['GetParametersByPath', 'GetSecretValue']));
    // Read once for the four invocations (kept five minutes), as SSM answers: four
    // parameters, at most two a page, so the read followed the NextToken.
    const reads = aws.inputs.filter((call) => call.action === 'GetParametersByPath' && call.input.Path === parametersPath);
    expect(reads.map((call) => call.input)).toEqual([
      { Path: parametersPath, Recursive: false, WithDecryption: true, MaxResults: 10 },
      { Path: parametersPath, Recursive: false, WithDecryption: true, MaxResults: 10, NextToken: expect.any(String) },
    ]);
    expect(aws.refused).toEqual([]);
  });

  it('the parameters: a refusal names its cause, an outage is tried again, a failure is not kept, no value is in an error', async () => {
    const { configuredAlertValues } = await import('../../api/alerts/remote');
    const remoteAlertValues = (sources: { secretId?: string; parametersPath?: string }) => configuredAlertValues({}, sources);
    const path = `/trading-bot-api/${harness.stage}/elsewhere`;
    aws.parameters.set(`${path}/ALERT_DISCORD_WEBHOOK_URL`, discord.url);
    aws.fail('GetParametersByPath', 'AccessDeniedException');
    const refused = await remoteAlertValues({ parametersPath: path }).catch((error: Error) => error);
    expect(String(refused)).toMatch(
      `alerts: the parameters under ${path} could not be read: SSM refused GetParametersByPath: AccessDeniedException`,
    );
    // Asked again (a failure is not kept), throttled once and so tried again, it reads the value; then keeps it.
    aws.fail('GetParametersByPath', 'ThrottlingException');
    expect(await remoteAlertValues({ parametersPath: path })).toEqual({ ALERT_DISCORD_WEBHOOK_URL: discord.url });
    const calls = aws.calls.length;
    expect(await remoteAlertValues({ parametersPath: path })).toEqual({ ALERT_DISCORD_WEBHOOK_URL: discord.url });
    expect(aws.calls).toHaveLength(calls);
    // Failing at every attempt: an outage, said so with the service's error.
    aws.fail('GetParametersByPath', 'InternalServerError', 3);
    const failed = await remoteAlertValues({ parametersPath: `${path}/deeper` }).catch((error: Error) => error);
    expect(String(failed)).toMatch(
      `the parameters under ${path}/deeper could not be read: SSM failed GetParametersByPath (InternalServerError, HTTP 500) in 3 attempts`,
    );
    for (const error of [refused, failed]) expect(String(error)).not.toContain(discord.url);
    aws.heal();
  });

  it('the secret: a refusal names its cause, one that does not exist configures nothing, one not JSON is said unquoted', async () => {
    const { configuredAlertValues } = await import('../../api/alerts/remote');
    const remoteAlertValues = (sources: { secretId?: string; parametersPath?: string }) => configuredAlertValues({}, sources);
    const secretId = `trading-bot-api/${harness.stage}/elsewhere`;
    aws.secrets.set(secretId, JSON.stringify({ ALERT_SLACK_WEBHOOK_URL: slack.url }));
    aws.fail('GetSecretValue', 'AccessDeniedException');
    const refused = await remoteAlertValues({ secretId }).catch((error: Error) => error);
    expect(String(refused)).toMatch(
      `alerts: the secret ${secretId} could not be read: Secrets Manager refused GetSecretValue: AccessDeniedException`,
    );
    expect(await remoteAlertValues({ secretId })).toEqual({ ALERT_SLACK_WEBHOOK_URL: slack.url });
    expect(await remoteAlertValues({ secretId: `${secretId}/none` })).toEqual({});
    // A URL where the JSON should be: JSON.parse's own message would quote its start.
    aws.secrets.set(`${secretId}/url`, slack.url);
    const malformed = await remoteAlertValues({ secretId: `${secretId}/url` }).catch((error: Error) => error);
    expect(String(malformed)).toMatch(`alerts: the secret ${secretId}/url is not JSON`);
    expect(String(malformed)).not.toContain(slack.url.slice(0, 12));
    expect(aws.inputs.filter((call) => call.action === 'GetSecretValue').at(-1)?.input).toEqual({ SecretId: `${secretId}/url` });
  });

  it('a change the topic refused is announced by the next run, once', async () => {
    const probe = (await import('../../functions/probe')).handler;
    await account('dp-refused', 'Refused bot', 'stopped');
    aws.refusePublish = 'AuthorizationError';
    try {
      await expect(printedWhile(() => probe({} as never, context('probe')))).rejects.toThrow(/AuthorizationError|refused/);
    } finally {
      aws.refusePublish = undefined;
    }
    const { result } = await printedWhile(() => probe({} as never, context('probe')));
    expect(result.alerts.filter((event) => event.accountId === 'dp-refused').map((event) => event.type)).toEqual(['bot_stopped']);
    const again = await printedWhile(() => probe({} as never, context('probe')));
    expect(again.result.alerts.filter((event) => event.accountId === 'dp-refused')).toEqual([]);
    expect(aws.published.filter((entry) => entry.Message.includes('dp-refused'))).toHaveLength(1);
  });
});

describe('delivery', () => {
  const event = (text: string): AlertEvent => ({
    type: 'test',
    id: `t-${Math.random()}`,
    stage: 'test',
    time: new Date().toISOString(),
    title: text.split('\n')[0],
    text,
  });

  it('waits out a 429 for exactly the time each service asked, and the message arrives once', async () => {
    const { deliverAlerts } = await import('../../api/alerts/delivery');
    const { channelsOf } = await import('../../api/alerts/settings');
    const before = counts();
    const requestsBefore = [fakes.telegram, fakes.discord, fakes.slack, fakes.webhook].map((fake) => fake.requests.length);
    fakes.telegram.answerNext({ kind: 'rate-limit', seconds: 3 });
    fakes.discord.answerNext({ kind: 'rate-limit', seconds: 1.5 });
    fakes.slack.answerNext({ kind: 'rate-limit', seconds: 2 });
    fakes.webhook.answerNext({ kind: 'rate-limit', seconds: 1 });
    const waits: Record<string, number[]> = {};
    const channels = channelsOf(fakes.values).channels;
    const reports = await Promise.all(
      channels.map((channel) => {
        const recorder = recordingSleep();
        waits[channel.name] = recorder.waits;
        return deliverAlerts([event('[test] rate limits\nOnce, after the wait.')], [channel], { sleep: recorder.sleep });
      }),
    );
    expect(reports.flat().map((report) => [report.channel, report.delivered.length, report.failed])).toEqual([
      ['telegram', 1, []],
      ['discord', 1, []],
      ['slack', 1, []],
      ['webhook', 1, []],
    ]);
    expect(waits).toEqual({ telegram: [3000], discord: [1500], slack: [2000], webhook: [1000] });
    expect(counts().map((count, i) => count - before[i])).toEqual([1, 1, 1, 1]);
    const requests = [fakes.telegram, fakes.discord, fakes.slack, fakes.webhook].map((fake, i) => fake.requests.length - requestsBefore[i]);
    expect(requests).toEqual([2, 2, 2, 2]);
  });

  it('a long message arrives whole, in numbered parts each within the service’s limit', async () => {
    const { deliverAlerts } = await import('../../api/alerts/delivery');
    const { channelsOf } = await import('../../api/alerts/settings');
    const lines = Array.from({ length: 150 }, (_, i) => `line ${String(i).padStart(3, '0')}: ${'x_'.repeat(27)} <&>`);
    const before = counts();
    const [report] = await deliverAlerts([event(['[test] a long digest', ...lines].join('\n'))], channelsOf(fakes.values).channels);
    expect(report.failed).toEqual([]);
    const [telegram, discord, slack, webhook] = counts().map((count, i) => count - before[i]);
    // 150 lines of 67 characters (more once escaped): parts within Telegram's 4,096, Discord's 2,000 and Slack's
    // 3,000 (each fake refuses a longer one), and the webhook's one body.
    expect(webhook).toBe(1);
    expect([telegram, discord, slack].every((parts) => parts > 2)).toBe(true);
    const fromHtml = (text: string) => text.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&');
    const sent = {
      telegram: fakes.telegram.texts.slice(-telegram).map(fromHtml),
      discord: fakes.discord.contents.slice(-discord).map((content) => content.replace(/\\(.)/g, '$1')),
      slack: fakes.slack.texts.slice(-slack).map(fromHtml),
    };
    for (const [channel, texts] of Object.entries(sent)) {
      const joined = texts.join('\n');
      expect([channel, lines.filter((line) => !joined.includes(line))]).toEqual([channel, []]);
      expect([channel, texts.map((text) => text.split('\n').pop())]).toEqual([channel, texts.map((_, i) => `(${i + 1}/${texts.length})`)]);
    }
  });

  it('a failing channel does not stop the others; it is logged once with its reason, counted, and fails the invocation', async () => {
    const { notify } = await import('../../api/alerts/notifier');
    const { channelsOf } = await import('../../api/alerts/settings');
    const [telegram, discord, slack, webhook] = await Promise.all([
      new FakeTelegram('555:AAG-failing-test').start(),
      new FakeDiscord().start(),
      new FakeSlack().start(),
      new FakeWebhook().start(),
    ]);
    try {
      slack.failAlways(500);
      await webhook.close(); // Nothing listens there any more: connections are refused.
      const channels = channelsOf(channelSettings({ telegram, discord, slack, webhook })).channels;
      const context = { functionName: 'trading-bot-api-test-notifier', awsRequestId: 'n-1' } as Context;
      const recorder = recordingSleep();
      const send = (text: string) => notify([event(text), event(`${text} (second)`)], channels, context, { sleep: recorder.sleep });

      const run = (text: string) => printedWhile(() => send(text).catch((error: Error) => error));
      const errors = (lines: Record<string, any>[]) => lines.filter((line) => line.level === 'ERROR');
      const first = await run('[test] one channel down');
      expect(first.result).toBeInstanceOf(Error);
      expect((first.result as Error).message).toBe(
        'alerts not delivered to slack, webhook: slack: HTTP 500: rollup_error (after 4 tries); webhook: could not connect (ECONNREFUSED) (after 4 tries)',
      );
      expect(telegram.texts).toHaveLength(2);
      expect(discord.contents).toHaveLength(2);
      // Retried after 1, 2 and 4 s; the second message was not tried once the channel had failed the first.
      expect(slack.requests).toHaveLength(4);
      expect(recorder.waits.sort((a, b) => a - b)).toEqual([1000, 1000, 2000, 2000, 4000, 4000]);
      // Each failing channel logged once, with its reason; both messages counted as not delivered, per channel.
      expect(errors(first.lines).map((line) => [line.channel, line.reason])).toEqual([
        ['slack', 'HTTP 500: rollup_error (after 4 tries)'],
        ['webhook', 'could not connect (ECONNREFUSED) (after 4 tries)'],
      ]);
      expect(first.lines.find((line) => line._aws)).toMatchObject({ AlertDeliveryFailures: 4, AlertsDelivered: 4, stage: harness.stage });
      // No secret in any line: not the token, nor any webhook's URL or path.
      for (const secret of [telegram.token, discord.path, slack.path, webhook.path, 'receiver-secret-123'])
        expect(first.text).not.toContain(secret);

      // Still failing the same way: counted again, not logged again.
      const second = await run('[test] still down');
      expect(second.result).toBeInstanceOf(Error);
      expect(errors(second.lines)).toEqual([]);
      expect(second.lines.find((line) => line._aws)).toMatchObject({ AlertDeliveryFailures: 4, AlertsDelivered: 4 });
    } finally {
      await Promise.all([telegram.close(), discord.close(), slack.close()]);
    }
  });

  it('no part of a token or URL reaches a log line, the error or the on-failure queue, however a service quotes it', async () => {
    const { notify } = await import('../../api/alerts/notifier');
    const { channelsOf } = await import('../../api/alerts/settings');
    const hex = () => randomBytes(12).toString('hex');
    const secret = {
      telegram: `tg${hex()}`,
      discord: `dc${hex()}`,
      slack: `sl${hex()}`,
      webhookPath: `wh${hex()}`,
      webhookKey: `wk${hex()}`,
    };
    /** Filler that puts a secret's 8th character at the 199th of the body: an excerpt of 200 would keep 8 of it. */
    const padTo = (before: string, secretAt: number) => 'x'.repeat(199 - 8 - secretAt - before.length);
    const quoter = await new FakeQuoter((pathAndQuery, base) => {
      const path = pathAndQuery.split('?')[0];
      // Telegram: a proxy's error page naming the whole URL, long enough to be cut inside the token.
      if (path.startsWith('/tg/')) {
        const head = '<html><body><h1>404 Not Found</h1><p>';
        const tail = `</p><p>No route for ${base}${pathAndQuery}</p></body></html>`;
        const at = tail.indexOf(secret.telegram);
        return { status: 404, contentType: 'text/html', body: `${head}${padTo(head, at)}${tail}` };
      }
      // Discord: a JSON error echoing the path and query (Discord's own URL has ?wait=true).
      if (path.startsWith('/api/webhooks/'))
        return {
          status: 400,
          contentType: 'application/json',
          body: JSON.stringify({ message: `Invalid Webhook Token for POST ${pathAndQuery}`, code: 50027 }),
        };
      // Slack: JSON that escapes its slashes, echoing the path, cut inside it.
      if (path.startsWith('/services/')) {
        const head = '{"ok":false,"error":"no_service","detail":"';
        const tail = `","path":"${path.replaceAll('/', '\\/')}"}`;
        return { status: 400, contentType: 'application/json', body: `${head}${padTo(head, tail.indexOf(secret.slack))}${tail}` };
      }
      // The webhook: Express's default 404, which names the path without the query.
      return { status: 404, contentType: 'text/html', body: `Cannot POST ${path}` };
    }).start();
    try {
      const { channels, problems } = channelsOf({
        ALERT_TELEGRAM_BOT_TOKEN: `4242:${secret.telegram}`,
        ALERT_TELEGRAM_CHAT_ID: '-100',
        ALERT_TELEGRAM_API_URL: `${quoter.base}/tg`,
        ALERT_DISCORD_WEBHOOK_URL: `${quoter.base}/api/webhooks/99/${secret.discord}`,
        ALERT_SLACK_WEBHOOK_URL: `${quoter.base}/services/T1/B1/${secret.slack}`,
        ALERT_WEBHOOK_URL: `${quoter.base}/hooks/${secret.webhookPath}?key=${secret.webhookKey}`,
      });
      expect(problems).toEqual([]);
      const quoted = event('[test] quoted back');
      const run = await printedWhile(() =>
        notify([quoted], channels, { functionName: 'trading-bot-api-test-notifier', awsRequestId: 'q-1' } as Context, {
          sleep: async () => {},
        }).catch((error: Error) => error),
      );
      const error = run.result as Error;
      expect(error).toBeInstanceOf(Error);
      // Each service did quote what it was called at: the secrets were there to leak.
      expect(quoter.requests.map((request) => request.status)).toEqual(expect.arrayContaining([404, 400, 400, 404]));
      // What Lambda's on-failure destination would hold: the event, and the error as the function threw it.
      const queued = JSON.stringify({
        requestContext: { requestId: 'q-1', condition: 'RetriesExhausted', approximateInvokeCount: 1 },
        requestPayload: quoted,
        responseContext: { statusCode: 200, functionError: 'Unhandled' },
        responsePayload: { errorType: error.name, errorMessage: error.message, trace: error.stack?.split('\n') },
      });
      const reasons = Object.fromEntries(run.lines.filter((line) => line.level === 'ERROR').map((line) => [line.channel, line.reason]));
      expect(Object.keys(reasons).sort()).toEqual(['discord', 'slack', 'telegram', 'webhook']);
      // No 6 characters in a row of any secret anywhere: not whole, not cut short, not escaped.
      const parts = Object.values(secret).flatMap((value) => Array.from({ length: value.length - 5 }, (_, i) => value.slice(i, i + 6)));
      for (const [where, text] of [
        ['log', run.text],
        ['error', `${error.message}\n${error.stack}`],
        ['queue', queued],
      ])
        expect([where, parts.filter((part) => text.includes(part))]).toEqual([where, []]);
      // The reasons still say what the service said, with the secret taken out.
      expect(reasons.webhook).toBe('HTTP 404: Cannot POST [secret]');
      expect(reasons.discord).toBe('HTTP 400: Invalid Webhook Token for POST [secret]');
      expect(reasons.telegram).toMatch(/^HTTP 404: <html><body><h1>404 Not Found<\/h1><p>x+<\/p><p>No route for \[secret\]/);
      expect(reasons.slack).toMatch(/^HTTP 400: \{"ok":false,"error":"no_service","detail":"x+","path":"\[secret\]"\}$/);
    } finally {
      await quoter.close();
    }
  });
});

describe('npm start’s probe watch', () => {
  it('sends the probe’s alerts and the database’s changes, each once', async () => {
    const { watchProbe } = await import('../../scripts/local-stack/probe-watch');
    const { channelsOf } = await import('../../api/alerts/settings');
    const base = { time: new Date().toISOString(), latencyMs: 3, oldestHeartbeatAgeSeconds: 1, stale: [], inError: [] };
    const healthy = { ...base, databaseHealthy: true, bots: { total: 1, running: 1, paused: 0, stopped: 0, error: 0 } };
    const down = { ...base, databaseHealthy: false, latencyMs: 1500, bots: null };
    const botEvent: AlertEvent = {
      type: 'bot_stale',
      id: 'w-1',
      stage: 'local',
      time: base.time,
      title: '[local] 🟡 W (w) is stale',
      text: '[local] 🟡 W (w) is stale\nquiet',
      accountId: 'w',
      accountName: 'W',
      state: 'running',
      previous: 'ok',
      since: null,
    };
    const answers = [healthy, down, down, { ...healthy, alerts: [botEvent] }, healthy];
    const printed: string[] = [];
    const before = fakes.webhook.bodies.length;
    let runs = 0;
    const watch = watchProbe({
      offline: { lambdaSocket: '/nowhere' },
      stage: 'local',
      seconds: 0.01,
      print: (line) => printed.push(line),
      alerts: { channels: channelsOf(fakes.values).channels },
      invoke: async () => answers[Math.min(runs++, answers.length - 1)],
    });
    try {
      await until(() => runs >= answers.length + 1, 'every answer probed and one more', { everyMs: 20 });
    } finally {
      await watch.stop();
    }
    expect(fakes.webhook.bodies.slice(before).map((body) => body.type)).toEqual(['database_down', 'database_up', 'bot_stale']);
    expect(printed.filter((line) => line.startsWith('alerts:'))).toEqual([
      'alerts: database_down sent to telegram, discord, slack, webhook',
      'alerts: database_up sent to telegram, discord, slack, webhook',
      'alerts: bot_stale w sent to telegram, discord, slack, webhook',
    ]);
  });
});
