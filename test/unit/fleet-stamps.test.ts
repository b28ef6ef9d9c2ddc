/**
 * The fleet's stamps as pure values (packages/core/src/store/fleet-table.ts): the bot stamp carries its own refresh
 * window, so a reader tells staleness exactly whatever window its writer used; the window follows the stale
 * threshold; a status stamp's two halves are written one at a time over the stamp as read.
 */
import stages from '../../resources/stages.js';
import {
  botStamp,
  DEFAULT_STAMP_SECONDS,
  parseBotStamp,
  staleness,
  stampSecondsFor,
  stampWrites,
  statusAfter,
  tradesStamp,
} from '@trading-bot-api/core/store/fleet-table';
import type { Store } from '@trading-bot-api/core/store/dynamodb';
import type { BotReport } from '@trading-bot-api/core/types';

const AT = '2026-11-23T12:00:00.000Z';
const report = (state: BotReport['state'], lastHeartbeatAt: string | null = AT): BotReport => ({
  state,
  lastHeartbeatAt,
  strategy: 'grid',
  message: null,
  updatedAt: AT,
});
const seconds = (n: number) => Date.parse(AT) + n * 1000;

it('the default window is the one for the deployed stale threshold, and the local stage gets half its 60 s', () => {
  expect(stampSecondsFor(stages.DEFAULTS.staleAfterSeconds)).toBe(DEFAULT_STAMP_SECONDS);
  expect(DEFAULT_STAMP_SECONDS).toBe(240);
  expect(stampSecondsFor(stages.stageSettings('local', {}).staleAfterSeconds)).toBe(30);
  expect([stampSecondsFor(3), stampSecondsFor(86_400)]).toEqual([10, 1200]);
});

it('a bot stamp reads back as written, window included', () => {
  for (const window of [10, 240, 1200]) {
    const parsed = parseBotStamp(botStamp(report('running'), window));
    expect(parsed).toEqual({ state: 'running', report: expect.stringMatching(/^.{8}$/), windowSeconds: window, heartbeatAt: seconds(0) });
  }
  expect(parseBotStamp(botStamp(report('stopped', null), 30)).heartbeatAt).toBeNull();
  // The message is in the digest: a new message is a new stamp, the same report the same one.
  expect(botStamp({ ...report('error'), message: 'down' }, 30)).not.toBe(botStamp(report('error'), 30));
  expect(botStamp(report('error'), 30)).toBe(botStamp(report('error'), 30));
});

it("staleness from a stamp: fresh to the threshold, unknown for the stamp's window past it, then stale", () => {
  const threshold = 300;
  for (const window of [30, 240]) {
    const stamp = parseBotStamp(botStamp(report('running'), window));
    expect(staleness(stamp, seconds(threshold), threshold)).toBe(false);
    expect(staleness(stamp, seconds(threshold + 1), threshold)).toBe('unknown');
    expect(staleness(stamp, seconds(threshold + window), threshold)).toBe('unknown');
    expect(staleness(stamp, seconds(threshold + window + 1), threshold)).toBe(true);
  }
  expect(staleness(parseBotStamp(botStamp(report('paused'), 30)), seconds(10_000), threshold)).toBe(false);
  expect(staleness(parseBotStamp(botStamp(report('running', null), 30)), seconds(0), threshold)).toBe(true);
});

it("a status stamp's halves: one written over the stamp as read keeps the other; one alone needs that read", () => {
  const bot = botStamp(report('running'), 240);
  const trades = tradesStamp({ openTradeCount: 3, lastTradeAt: AT });
  const both = statusAfter({ bot, trades }, undefined)!;
  const newer = botStamp(report('running', '2026-11-23T12:01:00.000Z'), 240);
  expect(statusAfter({ bot: newer }, { stamp: both })).toBe(`${newer}|${trades}`);
  const more = tradesStamp({ openTradeCount: 4, lastTradeAt: AT });
  expect(statusAfter({ trades: more }, { stamp: both })).toBe(`${bot}|${more}`);
  expect(statusAfter({ trades: more }, { stamp: undefined })).toBe(`|${more}`);
  expect(() => statusAfter({ trades: more }, undefined)).toThrow('readStatusStamp');
  expect(statusAfter({ balance: 3 }, undefined)).toBeUndefined();
});

it('a balance stamp is the version in base 36 (a string: DynamoDB Local returns strings faster than numbers)', () => {
  const [write] = stampWrites({ tables: { fleet: 'fleet' } } as Store, 'acct', { balance: 1295 });
  expect(write.Update).toMatchObject({
    Key: { shard: expect.stringMatching(/^balance#[0-7]$/) },
    // The stamp, and one more on the shard's change count.
    UpdateExpression: 'SET #a = :a ADD #n :one',
    ExpressionAttributeNames: { '#a': 'v@acct', '#n': 'n' },
    ExpressionAttributeValues: { ':a': 'zz', ':one': 1 },
  });
  expect(write.Update!.ConditionExpression).toBeUndefined();
});
