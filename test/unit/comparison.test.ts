/**
 * The comparison's logic (packages/core/src/comparison.ts) and the 404's suggestions (packages/core/src/nearest-ids.ts)
 * as pure functions: the days' realized P&L read from a window's roll-ups equals the trades' own sum, whatever the
 * periods they fall in; the return leaves transfers out and is null when it cannot be known; suggestions are the near
 * ids among those given, and only those.
 */
import fc from 'fast-check';
import { realizedSince, returnRatio } from '@trading-bot-api/core/comparison';
import { sumDecimals } from '@trading-bot-api/core/decimal';
import { nearestIds } from '@trading-bot-api/core/nearest-ids';
import { periodsOfClose, windowPeriods, type ReadPeriod, withTrades } from '@trading-bot-api/core/rollups';
import { timestamp } from '@trading-bot-api/core/time';

const DAY = 86_400_000;
const FIRST = Date.parse('2026-01-20T00:00:00.000Z');

/** The window's periods with `trades` (day index in the window, P&L) counted into each period that holds them. */
function periodsWith(days: number, trades: readonly [number, string][]): ReadPeriod[] {
  const periods = windowPeriods(FIRST, FIRST + (days - 1) * DAY);
  return periods.map((period) => {
    const inIt = trades
      .map(([day, realizedPL], i) => ({ day, realizedPL, i }))
      .filter(({ day }) => {
        const close = timestamp(FIRST + day * DAY + 3_600_000);
        return periodsOfClose(close).some((key) => key.unit === period.unit && key.start === period.start);
      })
      .map(({ day, realizedPL, i }) => ({
        accountId: 'a',
        id: `t${i}`,
        instrument: i % 2 ? 'EUR_USD' : 'BTC_USDT',
        realizedPL,
        openTime: timestamp(FIRST + day * DAY),
        closeTime: timestamp(FIRST + day * DAY + 3_600_000),
        fees: null,
      }));
    return { ...period, figures: withTrades({}, inIt, 'USD') };
  });
}

describe('realizedSince', () => {
  it('sums exactly the trades closed on the days from the one given, in whichever period each fell', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.integer({ min: 0, max: 29 }),
            fc.integer({ min: -99999, max: 99999 }).map((cents) => (cents / 100).toFixed(2)),
          ),
        ),
        fc.integer({ min: 0, max: 29 }),
        (trades, from) => {
          const periods = periodsWith(30, trades);
          const expected = trades.filter(([day]) => day >= from).map(([, pl]) => pl);
          const got = realizedSince(periods, timestamp(FIRST + from * DAY).slice(0, 10));
          expect(got).toBe(expected.length ? sumDecimals(expected) : '0');
        },
      ),
    );
  });
});

describe('returnRatio', () => {
  it('is what was earned on the starting equity, deposits and withdrawals left out', () => {
    expect(returnRatio('1000', '1100', [])).toBe('0.1000');
    // 500 deposited: the account earned 100, not 600.
    expect(returnRatio('1000', '1600', ['500'])).toBe('0.1000');
    // 200 withdrawn: the account earned 100, not lost 100.
    expect(returnRatio('1000', '900', ['-200'])).toBe('0.1000');
    expect(returnRatio('2000.00', '1990.005', [])).toBe('-0.0050');
  });

  it('is null when it cannot be known', () => {
    expect(returnRatio(null, '1100', [])).toBeNull();
    expect(returnRatio('1000', null, [])).toBeNull();
    expect(returnRatio('0', '10', [])).toBeNull();
    expect(returnRatio('-5', '10', [])).toBeNull();
    expect(returnRatio('1000', '1100', ['50', null])).toBeNull();
  });
});

describe('nearestIds', () => {
  const ids = ['ft-main', 'ft-side', 'primary-usd', 'euro-swing', 'hb-pmm'];

  it('finds a case slip first, then ids a few letters away', () => {
    expect(nearestIds('ft-mian', ids)).toEqual(['ft-main']);
    expect(nearestIds('Primary-USD', ids)).toEqual(['primary-usd']);
    expect(nearestIds('ft-mai', ids)).toEqual(['ft-main']);
    expect(nearestIds('FT-MAIN', ['ft-main', 'ft-mains'])).toEqual(['ft-main', 'ft-mains']);
    expect(nearestIds('nothing-like-it', ids)).toEqual([]);
    // Too short for a guess to mean anything but a case slip.
    expect(nearestIds('ab', ['ac', 'AB'])).toEqual(['AB']);
  });

  it('names only ids it was given, at most three', () => {
    fc.assert(
      fc.property(fc.array(fc.stringMatching(/^[a-c][a-c-]{0,6}$/)), fc.stringMatching(/^[a-c][a-c-]{0,6}$/), (known, asked) => {
        const found = nearestIds(asked, known);
        expect(found.length).toBeLessThanOrEqual(3);
        for (const id of found) expect(known).toContain(id);
        expect(found).not.toContain(asked);
      }),
    );
  });
});
