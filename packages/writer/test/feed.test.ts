/**
 * The feed's transactions, as logic: how many steps of a feed one transaction takes (never more than DynamoDB's 100
 * items, counting each trade as new, its periods and the checkpoint; always at least one step), and how its trades
 * fold by id (the latest of each).
 */
import fc from 'fast-check';
import type { Trade } from '@trading-bot-api/core/types';
import { type FeedStep, foldSteps, stepsThatFit } from '../src/feed';
import { periodKeysOf, pnlPeriodsOf } from '../src/rules';
import { propertyRuns } from '../../../test/kit/property-runs';
import { UNKNOWN_DETAILS } from '../../../test/kit/trade-details';

const DAY = 86_400_000;
const START = Date.parse('2026-11-02T00:00:00.000Z');

function trade(id: string, closeDay: number | null): Trade {
  return {
    ...UNKNOWN_DETAILS,
    id,
    accountId: 'acc',
    instrument: 'BTC_USDT',
    side: 'buy',
    units: '1',
    status: closeDay === null ? 'open' : 'closed',
    openPrice: '100',
    openTime: new Date(START).toISOString(),
    closePrice: closeDay === null ? null : '101',
    closeTime: closeDay === null ? null : new Date(START + closeDay * DAY).toISOString(),
    realizedPL: closeDay === null ? '0' : '1',
    unrealizedPL: '0',
    stopLoss: null,
    takeProfit: null,
    closeReason: null,
  };
}

/** The items the transaction of `steps` may write: 2 a trade, its periods, the balance and the checkpoint. */
function itemsOf(steps: readonly FeedStep[]): number {
  const trades = foldSteps(steps);
  const closed = trades.filter((each) => each.status === 'closed');
  const pnl = new Set(closed.flatMap((each) => pnlPeriodsOf(each.closeTime!).map((key) => `${key.period}#${key.start}`)));
  return 2 * trades.length + pnl.size + periodKeysOf(closed).length + 2;
}

it('takes as many steps as fit 100 items, and at least one', () => {
  const step = fc.array(
    fc.record({ id: fc.integer({ min: 0, max: 60 }), day: fc.option(fc.integer({ min: 0, max: 40 }), { nil: null }) }),
    { maxLength: 4 },
  );
  fc.assert(
    fc.property(fc.array(step, { minLength: 1, maxLength: 80 }), (shapes) => {
      const steps: FeedStep[] = shapes.map((trades, i) => ({ trades: trades.map(({ id, day }) => trade(`t-${id}`, day)), state: i }));
      const count = stepsThatFit(steps);
      expect(count).toBeGreaterThanOrEqual(1);
      if (count > 1) expect(itemsOf(steps.slice(0, count))).toBeLessThanOrEqual(100);
      if (count < steps.length) expect(itemsOf(steps.slice(0, count + 1))).toBeGreaterThan(100);
    }),
    { numRuns: propertyRuns(200) },
  );
});

it('folds the trades of its steps by id, the latest of each, in the order first met', () => {
  const opened = trade('a', null);
  const closed = trade('a', 1);
  const other = trade('b', 2);
  expect(
    foldSteps([
      { trades: [opened], state: 1 },
      { trades: [other, closed], state: 2 },
    ]),
  ).toEqual([closed, other]);
});
