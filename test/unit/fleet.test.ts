/**
 * The fleet's summary as pure values (packages/core/src/store/fleet-table.ts, performance.ts): the bot stamp carries
 * its own window and a heartbeat rounded down to it, so a reader never calls a fresh bot stale nor a stale one fresh;
 * the window follows the stale threshold; a contribution folded into the fleet's statistics gives what merging every
 * contribution again gives, or asks for that.
 */
import fc from 'fast-check';
import stages from '../../resources/stages.js';
import { mergeStats, NO_TRADES, replaceContribution, type StatsFigures, tradeStats } from '@trading-bot-api/core/performance';
import { botStamp, DEFAULT_STAMP_SECONDS, parseBotStamp, staleness, stampSecondsFor } from '@trading-bot-api/core/store/fleet-table';
import type { BotReport } from '@trading-bot-api/core/types';
import { propertyRuns } from '../kit/property-runs';

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

it('a bot stamp holds the heartbeat rounded down to its window: it moves once per window while only the time moves', () => {
  const at = (ms: number) => report('running', new Date(Date.parse(AT) + ms).toISOString());
  expect(botStamp(at(1_000), 30)).toBe(botStamp(at(29_999), 30));
  expect(botStamp(at(29_999), 30)).not.toBe(botStamp(at(30_000), 30));
  expect(parseBotStamp(botStamp(at(45_500), 30)).heartbeatAt).toBe(seconds(30));
});

it('staleness told from a stamp never contradicts the heartbeat it was made from', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 10 ** 7 }),
      fc.constantFrom(10, 30, 240, 1200),
      fc.integer({ min: 1, max: 3600 }),
      fc.integer({ min: -300_000, max: 4 * 3600_000 }),
      (offset, window, threshold, since) => {
        const heartbeat = Date.parse(AT) + offset;
        const now = heartbeat + since;
        const told = staleness(parseBotStamp(botStamp(report('running', new Date(heartbeat).toISOString()), window)), now, threshold);
        // The status's own rule on the true heartbeat.
        const truth = Math.floor((now - heartbeat) / 1000) > threshold;
        if (told !== 'unknown') expect(told).toBe(truth);
      },
    ),
    { numRuns: propertyRuns(500) },
  );
});

/** Figures of a few closed trades of one account. */
const figures = fc
  .array(
    fc.record({
      pl: fc.integer({ min: -5000, max: 5000 }).map((cents) => (cents / 100).toFixed(2)),
      held: fc.integer({ min: 0, max: 86_400_000 }),
      id: fc.integer({ min: 0, max: 50 }),
      fee: fc.option(fc.constantFrom({ amount: '0.10', currency: 'USD' }, { amount: '0.001', currency: 'BNB' }), { nil: null }),
    }),
    { maxLength: 4 },
  )
  .map((trades) =>
    trades
      .map(({ pl, held, id, fee }) =>
        tradeStats(
          {
            accountId: 'a',
            id: `t${id}`,
            realizedPL: pl,
            openTime: AT,
            closeTime: new Date(Date.parse(AT) + held).toISOString(),
            fees: fee && [{ ...fee, leg: 'close' }],
          },
          'USD',
        ),
      )
      .reduce(mergeStats, NO_TRADES),
  );

it("a contribution replaced in the fleet's figures gives what merging every contribution again gives, or asks for that", () => {
  let folded = 0;
  fc.assert(
    fc.property(fc.array(figures, { maxLength: 4 }), figures, figures, (others, before, after) => {
      const total = [...others, before].reduce(mergeStats, NO_TRADES);
      const expected = [...others, after].reduce(mergeStats, NO_TRADES);
      const replaced = replaceContribution(total, before, after);
      if (replaced === undefined) return;
      folded += 1;
      // The same figures (sums equal as amounts: a sum that lost a contribution may keep its trailing places).
      const amounts = (value: StatsFigures) => ({
        ...value,
        grossProfit: Number(value.grossProfit),
        grossLoss: Number(value.grossLoss),
        feesPaid: Number(value.feesPaid),
      });
      expect(amounts(replaced)).toEqual(amounts(expected));
    }),
    { numRuns: propertyRuns(500) },
  );
  // Most changes are a trade added: folded without a recomputation.
  expect(folded).toBeGreaterThan(0);
  // A new contribution (no figures before) always folds; one that goes away never does.
  const one = tradeStats({ accountId: 'a', id: 't', realizedPL: '1.5', openTime: AT, closeTime: AT, fees: [] }, 'USD');
  expect(replaceContribution(NO_TRADES, null, one)).toEqual(one);
  expect(replaceContribution(one, one, null)).toBeUndefined();
});
