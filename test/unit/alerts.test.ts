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
import { digestEvent, signed } from '../../api/alerts/digest-text';
import {
  type AlertEvent,
  alarmEvent,
  botChangeEvent,
  dailyLossEvent,
  databaseEvent,
  drawdownEvent,
  percentOf,
  shortAlarmName,
  span,
  testEvent,
  tradeClosedEvent,
} from '../../api/alerts/events';
import { alertsRequested, channelsOf, localAlertValues, mergeAlertValues } from '../../api/alerts/settings';
import { limitAmount, noPnlState, pnlRulesOf, pnlStep } from '../../api/alerts/pnl';
import { eventOfSnsMessage, publishInputOf } from '../../api/alerts/topic';
import { botTransitions, conditionOf, judgedStale, monitorAfter } from '../../api/alerts/transitions';
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
  // A monitor that has watched for long.
  const watching = { watchingSince: '2026-11-01T00:00:00.000Z', staleAfterSeconds: 300 };

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
        { ...status('b-stop-2', 'stopped'), stateSince: '2026-11-22T07:30:00.000Z' },
      ],
      states,
      now,
      watching,
    );
    expect(found.map(({ previous, next }) => [next.accountId, previous.condition, next.condition, next.since, next.version])).toEqual([
      ['b-back', 'stale', 'ok', '2026-11-22T10:00:00.000Z', 2],
      // Never heard from: stale since nobody knows when.
      ['b-new-stale', 'ok', 'stale', null, 1],
      // Stopped since its first report of the state; a report before that was kept: its last.
      ['b-stop', 'ok', 'stopped', '2026-11-22T09:00:00.000Z', 1],
      ['b-stop-2', 'ok', 'stopped', '2026-11-22T07:30:00.000Z', 1],
    ]);
  });

  it('the monitor watches on across runs no further apart than the gap allowed, and starts again after a longer one', () => {
    const at = (minutes: number) => new Date(now.getTime() + minutes * 60_000);
    const first = monitorAfter(undefined, at(0), 600);
    expect(first).toEqual({ lastRunAt: at(0).toISOString(), watchingSince: at(0).toISOString() });
    const next = monitorAfter(first, at(10), 600);
    expect(next).toEqual({ lastRunAt: at(10).toISOString(), watchingSince: at(0).toISOString() });
    // 601 s after the run before: it was down, and watches again from now.
    const late = new Date(at(20).getTime() + 1000);
    expect(monitorAfter(next, late, 600).watchingSince).toBe(late.toISOString());
  });

  it('after the monitor was down, a silent bot gets a whole stale interval to be heard from before it is called stale', () => {
    // Back at 10:00 after a stop; the bot last heard from at 09:50, stale after 300 s.
    const back = { watchingSince: '2026-11-22T10:00:00.000Z', staleAfterSeconds: 300 };
    const silent = status('b-silent', 'running', true, '2026-11-22T09:50:00.000Z');
    const at = (time: string) => botTransitions([silent], new Map(), new Date(time), back);
    expect(at('2026-11-22T10:00:00.000Z')).toEqual([]);
    expect(at('2026-11-22T10:05:00.000Z')).toEqual([]);
    expect(at('2026-11-22T10:05:01.000Z').map(({ next }) => [next.condition, next.since])).toEqual([['stale', '2026-11-22T09:50:00.000Z']]);
    // Heard from meanwhile, it is never stale; and one already alerted stale stays so, not recovered, while unheard.
    expect(
      judgedStale(
        { stale: false, lastHeartbeatAt: '2026-11-22T10:01:00.000Z' },
        back.watchingSince,
        new Date('2026-11-22T10:05:01.000Z'),
        300,
      ),
    ).toBe(false);
    const wasStale = new Map([
      ['b-silent', { accountId: 'b-silent', condition: 'stale' as const, since: '2026-11-22T09:50:00.000Z', version: 1 }],
    ]);
    expect(botTransitions([silent], wasStale, new Date('2026-11-22T10:01:00.000Z'), back)).toEqual([]);
    // Never heard from, or dated ahead of the clock (not believed): silent since the watch began.
    expect(judgedStale({ stale: true, lastHeartbeatAt: null }, back.watchingSince, new Date('2026-11-22T10:05:01.000Z'), 300)).toBe(true);
    expect(
      judgedStale(
        { stale: true, lastHeartbeatAt: '2026-11-22T11:00:00.000Z' },
        back.watchingSince,
        new Date('2026-11-22T10:04:00.000Z'),
        300,
      ),
    ).toBe(false);
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
          lastError: { message: 'Exchange timeout on order 7731', at: '2026-11-22T08:14:05.000Z' },
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
      dailyLossEvent(
        {
          bot,
          figures: { currency: 'USD', day: '2026-11-22', realizedPL: '-312.40', balance: '6000.00', limit: '300.00', setting: '5%' },
          version: 4,
        },
        'prod',
        at,
        url,
      ),
      drawdownEvent(
        {
          bot,
          figures: {
            currency: 'USD',
            balance: '5400.00',
            peakBalance: '6100.00',
            drawdown: '700.00',
            drawdownRatio: '0.1148',
            limit: '610.00',
            setting: '10%',
          },
          version: 5,
        },
        'prod',
        at,
        url,
      ),
      tradeClosedEvent(
        bot,
        {
          id: 't-9137',
          instrument: 'EUR_USD',
          side: 'buy',
          units: '10000',
          openPrice: '1.08420',
          openTime: '2026-11-22T09:00:00.000Z',
          closePrice: '1.08610',
          closeTime: '2026-11-22T10:04:12.000Z',
          realizedPL: '19.00',
          currency: 'USD',
          closeReason: 'take_profit',
          feeTotal: '0.40',
        },
        'prod',
        at,
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
    if (process.env.PRINT_ALERT_EXAMPLES) console.log(events.map((event) => `\`\`\`text\n${event.text}\n\`\`\``).join('\n\n'));
    expect(shown.slice(0, events.length)).toEqual(events.map((event) => event.text));
    expect(events.map((event) => event.type)).toEqual([
      'bot_error',
      'bot_stale',
      'bot_stopped',
      'bot_recovered',
      'daily_loss',
      'drawdown',
      'trade_closed',
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
    expect(['0.5833', '1.0000', '0.0500', '0.0000', '0.5', '0.0001'].map(percentOf)).toEqual([
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

describe('the P&L alerts', () => {
  const { rules, problems } = pnlRulesOf({
    ALERT_DAILY_LOSS: '5%, scalper-eur=150, paper-sandbox=off',
    ALERT_DRAWDOWN: '10%',
    ALERT_TRADE_CLOSED: 'off, primary-usd=on',
  });
  const snapshot = (balance: string | null, dayRealizedPL: string, day = '2026-11-22') => ({
    accountId: 'primary-usd',
    currency: 'USD',
    balance,
    day,
    dayRealizedPL,
  });

  it('reads the stage’s setting, then each account’s; a setting it cannot read is named, and its rule is off', () => {
    expect(problems).toEqual([]);
    expect([rules.dailyLoss('primary-usd'), rules.dailyLoss('scalper-eur'), rules.dailyLoss('paper-sandbox')]).toEqual([
      { percent: '5' },
      { amount: '150' },
      undefined,
    ]);
    expect([rules.tradeClosed('primary-usd'), rules.tradeClosed('scalper-eur'), rules.any]).toEqual([true, false, true]);
    const wrong = pnlRulesOf({ ALERT_DAILY_LOSS: 'five percent', ALERT_DRAWDOWN: '10%, 20%', ALERT_TRADE_CLOSED: 'yes' });
    expect(wrong.problems).toEqual([
      'alerts: ALERT_DAILY_LOSS: cannot read "five percent": an amount (150) or a percent (5%), or off; the rule is off',
      'alerts: ALERT_DRAWDOWN: "20%" should be account=value (the stage\'s value comes first): an amount (150) or a percent (5%), or off; the rule is off',
      'alerts: ALERT_TRADE_CLOSED: cannot read "yes": on or off; the rule is off',
    ]);
    expect(wrong.rules.any).toBe(false);
    expect(pnlRulesOf({}).rules.any).toBe(false);
  });

  it('a percent is of the day’s starting balance, exactly; a loss beyond it is said once that day', () => {
    // 5 % of 1000.00 (the balance now, 940.00, less the day's −60.00) is 50.00.
    const first = pnlStep(rules, snapshot('940.00', '-60.00'), noPnlState('primary-usd'));
    expect(first.dailyLoss).toEqual({
      currency: 'USD',
      day: '2026-11-22',
      realizedPL: '-60.00',
      balance: '1000.00',
      limit: '50.00',
      setting: '5%',
    });
    const again = pnlStep(rules, snapshot('910.00', '-90.00'), { ...first.next, version: 1 });
    expect(again.dailyLoss).toBeUndefined();
    // Back within the limit, then beyond it again: a second crossing, said again; a new day starts afresh.
    const within = pnlStep(rules, snapshot('1000.00', '-0.01'), { ...again.next, version: 2 });
    expect([within.dailyLoss, within.next.lossDay]).toEqual([undefined, null]);
    expect(pnlStep(rules, snapshot('940.00', '-60.00'), within.next).dailyLoss).toBeDefined();
    expect(pnlStep(rules, snapshot('940.00', '-60.00', '2026-11-23'), again.next).dailyLoss).toBeDefined();
    // Exactly at the limit is not beyond it; one cent more is.
    expect(pnlStep(rules, snapshot('950.00', '-50.00'), noPnlState('primary-usd')).dailyLoss).toBeUndefined();
    expect(pnlStep(rules, snapshot('949.99', '-50.01'), noPnlState('primary-usd')).dailyLoss).toBeDefined();
  });

  it('a drawdown is measured from the highest balance seen, said once per crossing; a percent needs a balance', () => {
    const peak = pnlStep(rules, snapshot('1000.00', '0'), noPnlState('primary-usd'));
    expect([peak.drawdown, peak.next.peakBalance]).toEqual([undefined, '1000.00']);
    const down = pnlStep(rules, snapshot('899.99', '0'), peak.next);
    expect(down.drawdown).toMatchObject({ peakBalance: '1000.00', drawdown: '100.01', drawdownRatio: '0.1000', limit: '100.00' });
    expect(pnlStep(rules, snapshot('850.00', '0'), down.next).drawdown).toBeUndefined();
    const back = pnlStep(rules, snapshot('950.00', '0'), down.next);
    expect(back.next.drawdownOver).toBe(false);
    expect(pnlStep(rules, snapshot('800.00', '0'), back.next).drawdown).toBeDefined();
    // A bot that never recorded a balance: percents say nothing (an amount would).
    expect(pnlStep(rules, snapshot(null, '-500'), noPnlState('primary-usd'))).toEqual({ next: noPnlState('primary-usd') });
  });

  it('amounts a percent allows are exact, shown with the base’s places', () => {
    expect(limitAmount({ percent: '5' }, '1000.00')).toBe('50.00');
    expect(limitAmount({ percent: '2.5' }, '1234.57')).toBe('30.86425');
    expect(limitAmount({ amount: '150' }, '1000.00')).toBe('150');
  });
});
