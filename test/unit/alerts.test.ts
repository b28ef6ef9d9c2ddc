/**
 * The alerts' pure parts: which changes count (transitions), the words of each message and the examples
 * docs/alerts.md shows (rendered here from the same inputs, so the docs cannot drift), the webhook schema's copy in
 * the docs, splitting within each service's limit, the percentages of the digest, reading settings (from `_FILE`s
 * too) and SNS messages.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { discordChannel, retryAfterSeconds, slackChannel, splitText, telegramChannel } from '../../api/alerts/channels';
import { ChannelWatch } from '../../api/alerts/delivery';
import { digestEvent, percent, signed } from '../../api/alerts/digest-text';
import { type AlertEvent, alarmEvent, botChangeEvent, databaseEvent, shortAlarmName, span, testEvent } from '../../api/alerts/events';
import { alertsRequested, channelsOf, localAlertValues, mergeAlertValues } from '../../api/alerts/settings';
import { eventOfSnsMessage, publishInputOf } from '../../api/alerts/topic';
import { botTransitions, conditionOf } from '../../api/alerts/transitions';
import type { AccountStatus } from '@trading-bot-api/core/types';

const ROOT = join(__dirname, '..', '..');
const DOCS = readFileSync(join(ROOT, 'docs', 'alerts.md'), 'utf8');

describe('transitions', () => {
  const status = (
    accountId: string,
    state: AccountStatus['state'],
    stale = false,
    lastHeartbeatAt: string | null = '2026-11-22T09:00:00.000Z',
  ) => ({ accountId, state, stale, lastHeartbeatAt }) as AccountStatus;
  const now = new Date('2026-11-22T10:00:00.000Z');

  it('calls error and stopped as reported, stale when running and silent, anything else (paused too) well', () => {
    expect(conditionOf({ state: 'error', stale: false })).toBe('error');
    expect(conditionOf({ state: 'stopped', stale: false })).toBe('stopped');
    expect(conditionOf({ state: 'running', stale: true })).toBe('stale');
    expect(conditionOf({ state: 'running', stale: false })).toBe('ok');
    expect(conditionOf({ state: 'paused', stale: false })).toBe('ok');
  });

  it('finds only the bots whose condition changed; a bot never alerted on counts as well and costs no write', () => {
    const states = new Map([
      ['b-err', { accountId: 'b-err', condition: 'error' as const, since: '2026-11-22T08:00:00.000Z', version: 3 }],
      ['b-back', { accountId: 'b-back', condition: 'stale' as const, since: '2026-11-22T08:00:00.000Z', version: 1 }],
    ]);
    const found = botTransitions(
      [
        status('b-well', 'running'),
        status('b-paused', 'paused'),
        status('b-err', 'error'),
        status('b-back', 'paused'),
        status('b-new-stale', 'running', true, null),
        status('b-stop', 'stopped'),
      ],
      states,
      now,
    );
    expect(found.map(({ previous, next }) => [next.accountId, previous.condition, next.condition, next.since, next.version])).toEqual([
      ['b-back', 'stale', 'ok', '2026-11-22T10:00:00.000Z', 2],
      // Never heard from: stale since nobody knows when.
      ['b-new-stale', 'ok', 'stale', null, 1],
      // Stopped since its last report.
      ['b-stop', 'ok', 'stopped', '2026-11-22T09:00:00.000Z', 1],
    ]);
  });
});

describe('the messages', () => {
  it('span reads as a person would say it', () => {
    expect([0, 59, 60, 770, 3600, 3660, 86_400, 90_000].map(span)).toEqual([
      '0 s',
      '59 s',
      '1 min',
      '12 min',
      '1 h',
      '1 h 1 min',
      '1 d',
      '1 d 1 h',
    ]);
  });

  it('an alarm is named by its logical id, and a state that is neither ALARM nor OK says so', () => {
    expect(shortAlarmName('trading-bot-api-prod-Api5xxRateAlarm-1Q2W3E4R5T6Y')).toBe('Api5xxRateAlarm');
    expect(shortAlarmName('my-own-alarm')).toBe('my-own-alarm');
    const event = alarmEvent(
      { AlarmName: 'x', NewStateValue: 'INSUFFICIENT_DATA', StateChangeTime: '2026-11-22T10:05:12.345+0000' },
      'prod',
      'm',
    );
    expect(event.title).toBe('[prod] ⚪ Alarm insufficient data: x');
    expect(event.time).toBe('2026-11-22T10:05:12.345Z');
  });

  it('docs/alerts.md shows each kind of message exactly as it is rendered', () => {
    const url = 'https://abc123.execute-api.us-east-1.amazonaws.com/prod/';
    const bot = { accountId: 'primary-usd', accountName: 'Primary USD' };
    const base = {
      bot,
      message: null,
      lastHeartbeatAt: '2026-11-22T10:02:41.000Z',
      heartbeatAgeSeconds: 20,
      staleAfterSeconds: 300,
      version: 1,
    };
    const at = '2026-11-22T10:05:00.000Z';
    const alarm = JSON.parse(JSON.parse(readFileSync(join(ROOT, 'events', 'notifier-alarm.json'), 'utf8')).Records[0].Sns.Message);
    const events: AlertEvent[] = [
      botChangeEvent(
        {
          ...base,
          state: 'error',
          previous: { condition: 'ok', since: null },
          next: { condition: 'error', since: at },
          message: 'Broker API rejected orders: insufficient margin',
        },
        'prod',
        at,
        url,
      ),
      botChangeEvent(
        {
          ...base,
          bot: { accountId: 'scalper-eur', accountName: 'Scalper EUR' },
          state: 'running',
          previous: { condition: 'ok', since: null },
          next: { condition: 'stale', since: '2026-11-22T09:52:10.000Z' },
          lastHeartbeatAt: '2026-11-22T09:52:10.000Z',
          heartbeatAgeSeconds: 770,
          version: 3,
        },
        'prod',
        at,
        url,
      ),
      botChangeEvent(
        {
          ...base,
          bot: { accountId: 'gold-desk', accountName: 'Gold desk' },
          state: 'stopped',
          previous: { condition: 'ok', since: null },
          next: { condition: 'stopped', since: '2026-11-22T06:00:00.000Z' },
          message: 'stopped by its operator',
          lastHeartbeatAt: '2026-11-22T06:00:00.000Z',
          heartbeatAgeSeconds: 14_700,
          version: 2,
        },
        'prod',
        at,
        url,
      ),
      botChangeEvent(
        {
          ...base,
          state: 'running',
          previous: { condition: 'error', since: at },
          next: { condition: 'ok', since: '2026-11-22T10:30:00.000Z' },
          version: 2,
        },
        'prod',
        '2026-11-22T10:30:00.000Z',
        url,
      ),
      databaseEvent(
        true,
        'prod',
        '2026-11-22T11:00:00.000Z',
        'CloudWatch: Threshold Crossed: 1 out of the last 1 datapoints [0.0 (22/11/26 10:55:00)] was less than the threshold (1.0).',
      ),
      databaseEvent(false, 'prod', '2026-11-22T11:10:00.000Z'),
      alarmEvent(alarm, 'prod', '95df01b4'),
      digestEvent(
        {
          day: '2026-11-21',
          weekFrom: '2026-11-15',
          bots: 5,
          currencies: [
            {
              currency: 'EUR',
              accountCount: 1,
              day: { realizedPL: '4.20', tradesClosed: 1, wins: 1, losses: 0, winRate: '1.0000' },
              week: { realizedPL: '31.80', tradesClosed: 9, winRate: '0.5556' },
              best: { accountId: 'scalper-eur', accountName: 'Scalper EUR', realizedPL: '4.20' },
              worst: null,
            },
            {
              currency: 'USD',
              accountCount: 3,
              day: { realizedPL: '16.10', tradesClosed: 4, wins: 3, losses: 1, winRate: '0.7500' },
              week: { realizedPL: '1.10', tradesClosed: 6, winRate: '0.6667' },
              best: { accountId: 'primary-usd', accountName: 'Primary USD', realizedPL: '19.75' },
              worst: { accountId: 'paper-sandbox', accountName: 'Paper sandbox', realizedPL: '-3.65' },
            },
          ],
          attention: {
            error: [{ accountId: 'paper-sandbox', accountName: 'Paper sandbox', message: 'Order rejected: insufficient margin' }],
            stale: [],
            stopped: [{ accountId: 'gold-desk', accountName: 'Gold desk', since: '2026-11-22T06:00:00.000Z' }],
          },
        },
        'prod',
        '2026-11-22T07:00:02.000Z',
        7,
      ),
      testEvent('prod', '2026-11-22T12:00:00.000Z'),
    ];
    const shown = [
      ...DOCS.split('## The messages')[1]
        .split('## The webhook')[0]
        .matchAll(/```text\n([\s\S]*?)\n```/g),
    ].map((match) => match[1]);
    expect(shown.slice(0, events.length)).toEqual(events.map((event) => event.text));
    expect(events.map((event) => event.type)).toEqual([
      'bot_error',
      'bot_stale',
      'bot_stopped',
      'bot_recovered',
      'database_down',
      'database_up',
      'alarm',
      'digest',
      'test',
    ]);
    // The first, as Telegram, Discord and Slack get it, and the webhook's body.
    const [first] = events;
    const body = (channel: ReturnType<typeof telegramChannel>) => JSON.parse(channel.requests(first)[0].body);
    expect(DOCS).toContain(
      `\`\`\`html\n${body(telegramChannel({ token: '1:A', chatId: '1', apiUrl: 'https://api.telegram.org' })).text}\n\`\`\``,
    );
    expect(DOCS).toContain(`\`\`\`text\n${body(discordChannel({ webhookUrl: 'https://discord.com/api/webhooks/1/x' })).content}\n\`\`\``);
    expect(DOCS).toContain(`\`\`\`text\n${body(slackChannel({ webhookUrl: 'https://hooks.slack.com/services/T/B/X' })).text}\n\`\`\``);
    expect(DOCS).toContain(`\`\`\`json\n${JSON.stringify(first, null, 2)}\n\`\`\``);
  });

  it('the webhook schema in docs/alerts.md is the file the tests validate with', () => {
    const block = /## The webhook's JSON Schema[\s\S]*?```json\n([\s\S]*?)\n```/.exec(DOCS)![1];
    expect(JSON.parse(block)).toEqual(JSON.parse(readFileSync(join(ROOT, 'api', 'alerts', 'webhook.schema.json'), 'utf8')));
  });
});

describe('splitting', () => {
  it('keeps a short text whole', () => {
    expect(splitText('a\nb', 10)).toEqual(['a\nb']);
  });

  it('splits at line ends into numbered parts within the limit, and cuts only a line longer than the limit', () => {
    const lines = Array.from({ length: 40 }, (_, i) => `line ${i} ${'x'.repeat(i % 7)}`);
    const parts = splitText([...lines, 'y'.repeat(500)].join('\n'), 100);
    expect(parts.every((part) => part.length <= 100)).toBe(true);
    expect(parts.map((part) => part.split('\n').pop())).toEqual(parts.map((_, i) => `(${i + 1}/${parts.length})`));
    const joined = parts.map((part) => part.split('\n').slice(0, -1).join('\n')).join('\n');
    expect(joined.startsWith(lines.join('\n'))).toBe(true);
    expect(joined.endsWith(`${'y'.repeat(89)}…`)).toBe(true);
  });

  it('never cuts a character in two', () => {
    const [first] = splitText(`${'a'.repeat(88)}😀😀😀😀😀😀\nb`, 100);
    expect(first.split('\n')[0]).toBe(`${'a'.repeat(88)}…`);
  });
});

describe('the digest', () => {
  it('signs amounts with a true minus and shows ratios as exact percentages', () => {
    expect(['12.50', '-3.75', '0', '0.00'].map(signed)).toEqual(['+12.50', '−3.75', '0', '0.00']);
    expect(['0.5833', '1.0000', '0.0500', '0.0000', '0.5', '0.0001'].map(percent)).toEqual([
      '58.33 %',
      '100 %',
      '5 %',
      '0 %',
      '50 %',
      '0.01 %',
    ]);
  });

  it('says a day without a closed trade in words, with no win rate', () => {
    const quiet = { realizedPL: '0', tradesClosed: 0, wins: 0, losses: 0, winRate: null };
    const { text } = digestEvent(
      {
        day: '2026-11-21',
        weekFrom: '2026-11-15',
        currencies: [{ currency: 'USD', accountCount: 1, day: quiet, week: quiet, best: null, worst: null }],
        bots: 1,
        attention: { error: [], stale: [], stopped: [] },
      },
      'prod',
      '2026-11-22T07:00:00.000Z',
      7,
    );
    expect(text).toContain('  Yesterday: 0 realized, no trade closed\n');
    expect(text).toContain('  7 days (2026-11-15 to 2026-11-21): 0 realized, no trade closed\n');
    expect(text).not.toMatch(/win rate/);
  });
});

describe('settings', () => {
  it('configures any subset; a channel missing a part is left off, named by variable, never with its value', () => {
    const { channels, problems } = channelsOf({
      ALERT_TELEGRAM_BOT_TOKEN: '123:secret-token-value',
      ALERT_DISCORD_WEBHOOK_URL: 'not a url secret-discord',
      ALERT_WEBHOOK_URL: 'https://receiver.example/hook',
    });
    expect(channels.map((channel) => channel.name)).toEqual(['webhook']);
    expect(problems).toEqual([
      'alerts: telegram is off: ALERT_TELEGRAM_BOT_TOKEN is set but ALERT_TELEGRAM_CHAT_ID is not',
      'alerts: discord is off: ALERT_DISCORD_WEBHOOK_URL is not a URL',
    ]);
    expect(problems.join(' ')).not.toMatch(/secret/);
  });

  it('takes the first source that has a value; only ALERT_* channels ask npm start to send', () => {
    expect(
      mergeAlertValues(
        { ALERT_WEBHOOK_URL: 'https://a.example/' },
        { ALERT_WEBHOOK_URL: 'https://b.example/', ALERT_SLACK_WEBHOOK_URL: 'https://s.example/' },
      ),
    ).toEqual({
      ALERT_WEBHOOK_URL: 'https://a.example/',
      ALERT_SLACK_WEBHOOK_URL: 'https://s.example/',
    });
    expect(alertsRequested({ ALERT_TELEGRAM_API_URL: 'https://x.example' })).toBe(false);
    expect(alertsRequested({ ALERT_SLACK_WEBHOOK_URL_FILE: '/run/secrets/slack' })).toBe(true);
  });

  it('reads a variable from the file its `_FILE` names, trimmed; a file that cannot be read is named, never quoted', () => {
    const dir = mkdtempSync(join(tmpdir(), 'alerts-settings-'));
    try {
      const token = join(dir, 'telegram-token');
      const hook = join(dir, 'webhook-url');
      // As `echo` and editors write them: a trailing newline, and here spaces too.
      writeFileSync(token, '  123456789:AAE-from-a-file\n');
      writeFileSync(hook, 'https://receiver.example/hooks/from-a-file?key=k\n\n');
      const values = localAlertValues({
        ALERT_TELEGRAM_BOT_TOKEN_FILE: token,
        ALERT_TELEGRAM_CHAT_ID: ' -1001 ',
        ALERT_WEBHOOK_URL_FILE: hook,
        // The variable itself wins over its file.
        ALERT_SLACK_WEBHOOK_URL: 'https://hooks.slack.example/services/direct',
        ALERT_SLACK_WEBHOOK_URL_FILE: join(dir, 'never-read'),
      });
      expect(values).toEqual({
        ALERT_TELEGRAM_BOT_TOKEN: '123456789:AAE-from-a-file',
        ALERT_TELEGRAM_CHAT_ID: '-1001',
        ALERT_WEBHOOK_URL: 'https://receiver.example/hooks/from-a-file?key=k',
        ALERT_SLACK_WEBHOOK_URL: 'https://hooks.slack.example/services/direct',
      });
      // Trimmed, the token is a bot token, and the channels are configured from it.
      const { channels, problems } = channelsOf(values);
      expect(problems).toEqual([]);
      expect(channels.map((channel) => channel.name)).toEqual(['telegram', 'slack', 'webhook']);
      expect(channels[0].requests(testEvent('local', '2026-11-22T12:00:00.000Z'))[0].url).toBe(
        'https://api.telegram.org/bot123456789:AAE-from-a-file/sendMessage',
      );

      // A file missing, or a directory: the error names the variable and the path, and why, in the system's code.
      const missing = join(dir, 'missing');
      expect(() => localAlertValues({ ALERT_DISCORD_WEBHOOK_URL_FILE: missing })).toThrow(
        new Error(`alerts: ALERT_DISCORD_WEBHOOK_URL_FILE names ${missing}, which cannot be read (ENOENT)`),
      );
      expect(() => localAlertValues({ ALERT_TELEGRAM_BOT_TOKEN_FILE: dir })).toThrow(
        new Error(`alerts: ALERT_TELEGRAM_BOT_TOKEN_FILE names ${dir}, which cannot be read (EISDIR)`),
      );
      // A readable file next to an unreadable one: the error says nothing of what the readable one holds.
      let said = '';
      try {
        localAlertValues({ ALERT_TELEGRAM_BOT_TOKEN_FILE: token, ALERT_WEBHOOK_URL_FILE: missing });
      } catch (error) {
        said = (error as Error).message;
      }
      expect(said).toBe(`alerts: ALERT_WEBHOOK_URL_FILE names ${missing}, which cannot be read (ENOENT)`);
      expect(said).not.toContain('AAE-from-a-file');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads Retry-After as seconds or as a date', () => {
    expect(retryAfterSeconds(new Headers({ 'retry-after': '7' }))).toBe(7);
    expect(retryAfterSeconds(new Headers({ 'retry-after': new Date(60_000).toUTCString() }), 30_000)).toBe(30);
    expect(retryAfterSeconds(new Headers())).toBeUndefined();
  });

  it('says a failing channel once until its reason changes, and once when it delivers again', () => {
    const watch = new ChannelWatch();
    const failing = (reason: string) => [
      { channel: 'slack' as const, delivered: [], failed: [{ eventId: 'e', type: 'test', reason }], requests: 1, waitedMs: 0 },
    ];
    const lines = [
      ...watch.note(failing('HTTP 404: no_service')),
      ...watch.note(failing('HTTP 404: no_service')),
      ...watch.note(failing('HTTP 410: channel_is_archived')),
      ...watch.note([{ channel: 'slack', delivered: ['e'], failed: [], requests: 1, waitedMs: 0 }]),
    ].map((note) => note.line);
    expect(lines).toEqual([
      'alerts: slack is failing: HTTP 404: no_service (1 message not delivered; said once until it changes)',
      'alerts: slack is failing: HTTP 410: channel_is_archived (1 message not delivered; said once until it changes)',
      'alerts: slack delivers again',
    ]);
  });
});

describe('the topic', () => {
  const event = testEvent('prod', '2026-11-22T12:00:00.000Z');

  it('publishes a body per subscriber, with an ASCII subject', () => {
    const input = publishInputOf('arn:aws:sns:us-east-1:1:t', event);
    expect(input.Subject).toBe('[prod] Test message from the Trading Bot API');
    const bodies = JSON.parse(input.Message);
    expect(Object.keys(bodies).sort()).toEqual(['default', 'email', 'lambda']);
    expect(JSON.parse(bodies.lambda)).toEqual(event);
    expect(bodies.email).toBe(event.text);
  });

  it('reads back its own events, CloudWatch’s alarms, and any other text as an alarm with that text', () => {
    expect(eventOfSnsMessage({ Message: JSON.stringify(event), MessageId: 'm' }, 'prod')).toEqual(event);
    const other = eventOfSnsMessage({ Message: 'hello from the console', MessageId: 'm2', Subject: 'By hand' }, 'prod');
    expect(other).toMatchObject({ type: 'alarm', title: '[prod] 🔔 By hand', text: '[prod] 🔔 By hand\nhello from the console' });
  });
});
