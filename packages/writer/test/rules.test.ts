/**
 * The writer's pure parts: input checks (each naming its field), calendar periods, and the bookkeeping rules
 * (counters, exact sums, aggregates per day, ISO week and month).
 */
import { newBalanceRecord } from '@trading-bot-api/core/store/balances-table';
import { nextPeriodStart, parseTime, parseUtcTimestamp, periodStart, timestamp } from '@trading-bot-api/core/time';
import type { Trade } from '@trading-bot-api/core/types';
import { WriterError } from '../src/errors';
import { aggregatesAfter, balanceAfter, balanceAfterSnapshot, equityEntriesOf, pnlPeriodsOf } from '../src/rules';
import { accountInput, closeInput, heartbeatInput, marksInput, snapshotInput, tradeInput } from '../src/validate';
import { UNKNOWN_DETAILS } from '../../../test/kit/trade-details';

const NOW = new Date('2026-11-22T10:00:00.000Z');

const trade = (overrides: Partial<Trade> = {}): Trade => ({
  id: 't-1',
  accountId: 'acc',
  instrument: 'EUR_USD',
  side: 'buy',
  units: '1000',
  status: 'open',
  openPrice: '1.08420',
  openTime: '2026-11-20T09:00:00.000Z',
  closePrice: null,
  closeTime: null,
  realizedPL: '0',
  unrealizedPL: '0',
  stopLoss: null,
  takeProfit: null,
  closeReason: null,
  ...UNKNOWN_DETAILS,
  ...overrides,
});

const closed = (id: string, closeTime: string, realizedPL: string): Trade =>
  trade({ id, status: 'closed', closePrice: '1.09', closeTime, realizedPL, openTime: '2026-01-01T00:00:00.000Z' });

function refusal(run: () => unknown): WriterError {
  try {
    run();
  } catch (error) {
    if (error instanceof WriterError) return error;
    throw error;
  }
  throw new Error('expected a WriterError');
}

describe('input checks name the field and refuse before anything is written', () => {
  it.each([
    ['id', { id: 'has#hash' }],
    ['id', { id: '' }],
    ['units', { units: '1e5' }],
    ['units', { units: '12,5' }],
    ['units', { units: 1000 }],
    ['units', { units: '0' }],
    ['units', { units: '-5' }],
    ['openPrice', { openPrice: '+1.2' }],
    ['openTime', { openTime: '2026-11-20T09:00:00+01:00' }],
    ['openTime', { openTime: '2026-02-30T09:00:00.000Z' }],
    ['openTime', { openTime: '2026-11-20T09:00:00.0001Z' }],
    ['openTime', { openTime: '2026-11-20' }],
    ['status', { status: 'pending' }],
    ['side', { side: 'long' }],
    ['instrument', { instrument: 'EURUSD' }],
    ['closeTime', { status: 'closed', closePrice: '1.1', closeTime: '2026-11-20T08:59:59.999Z', realizedPL: '1' }],
    ['closePrice', { status: 'closed', closeTime: '2026-11-21T00:00:00.000Z', realizedPL: '1' }],
    ['closeTime', { closeTime: '2026-11-21T00:00:00.000Z' }],
    ['realizedPL', { realizedPL: '5' }],
    ['accountId', { accountId: 'another' }],
  ])('%s: %j', (field, overrides) => {
    const error = refusal(() => tradeInput({ ...trade(), ...overrides }, 'acc'));
    expect(error).toMatchObject({ code: 'INVALID_INPUT', field });
  });

  it('names the field inside a batch, and accepts a trade without accountId', () => {
    expect(refusal(() => tradeInput({ ...trade(), units: 'ten' }, 'acc', 'trades[3].')).field).toBe('trades[3].units');
    const { accountId: _omitted, ...rest } = trade();
    expect(tradeInput(rest, 'acc').accountId).toBe('acc');
  });

  it('stores canonical forms: instruments upper case with _, times with milliseconds in UTC', () => {
    const stored = tradeInput({ ...trade(), instrument: 'eur/usd', openTime: '2026-11-20T09:00:00Z' }, 'acc');
    expect(stored).toMatchObject({ instrument: 'EUR_USD', openTime: '2026-11-20T09:00:00.000Z' });
  });

  it('keeps every digit of an amount', () => {
    const digits = { units: '900719925474099312345', openPrice: '0.0000000000000000000000001' };
    expect(tradeInput({ ...trade(), ...digits }, 'acc')).toMatchObject(digits);
  });

  it('checks accounts, closes, marks, snapshots and heartbeats', () => {
    expect(refusal(() => accountInput({ id: 'a', name: 'A', currency: 'usd', broker: 'B', environment: 'live' }, NOW)).field).toBe(
      'currency',
    );
    expect(refusal(() => accountInput({ id: 'all', name: 'A', currency: 'USD', broker: 'B', environment: 'live' }, NOW)).field).toBe('id');
    expect(refusal(() => accountInput({ id: 'a', name: 'A', currency: 'USD', broker: 'B', environment: 'demo' }, NOW)).field).toBe(
      'environment',
    );
    expect(accountInput({ id: 'a', name: 'A', currency: 'USD', broker: 'B', environment: 'live' }, NOW).createdAt).toBe(NOW.toISOString());
    expect(
      refusal(() => closeInput({ closePrice: '1', closeTime: '2026-01-01T00:00:00.000Z', realizedPL: '1' }, '2026-02-01T00:00:00.000Z'))
        .field,
    ).toBe('closeTime');
    expect(
      refusal(() => closeInput({ closePrice: '1', closeTime: '2026-03-01T00:00:00.000Z', realizedPL: 1 }, '2026-02-01T00:00:00.000Z'))
        .field,
    ).toBe('realizedPL');
    expect(marksInput({ stopLoss: null })).toEqual({ stopLoss: null });
    expect(refusal(() => marksInput({ takeProfit: '0' })).field).toBe('takeProfit');
    expect(
      refusal(() => snapshotInput({ balance: '1', unrealizedPL: '0', nav: '1', marginUsed: '0', marginAvailable: '1', time: 'now' })).field,
    ).toBe('time');
    expect(refusal(() => heartbeatInput({ state: 'sleeping' }, NOW)).field).toBe('state');
    expect(heartbeatInput({ state: 'running' }, NOW)).toEqual({ state: 'running', strategy: null, message: null, time: NOW.toISOString() });
  });
});

describe('times and periods (UTC; ISO weeks start on Monday)', () => {
  it('parses RFC 3339 with a zone, refusing what does not exist', () => {
    expect(parseTime('2026-11-22T10:00:00+02:00')).toBe(Date.parse('2026-11-22T08:00:00.000Z'));
    expect(parseTime('2026-11-22T10:00:00.5Z')).toBe(Date.parse('2026-11-22T10:00:00.500Z'));
    expect(parseTime('2026-11-22T10:00:00.0005Z')! - Date.parse('2026-11-22T10:00:00.000Z')).toBeCloseTo(0.5);
    for (const bad of [
      '2026-11-22T10:00:00',
      '2026-02-29T00:00:00Z',
      '2026-11-22T24:00:00Z',
      '2026-11-22 10:00:00Z',
      '2026-11-22T10:00:00+25:00',
    ]) {
      expect(parseTime(bad)).toBeUndefined();
    }
    expect(parseUtcTimestamp('2028-02-29T00:00:00Z')).toBe('2028-02-29T00:00:00.000Z');
  });

  it.each([
    ['2026-11-22T23:59:59.999Z', 'day', '2026-11-22T00:00:00.000Z', '2026-11-23T00:00:00.000Z'],
    ['2026-11-22T10:00:00.000Z', 'week', '2026-11-16T00:00:00.000Z', '2026-11-23T00:00:00.000Z'],
    ['2026-11-23T00:00:00.000Z', 'week', '2026-11-23T00:00:00.000Z', '2026-11-30T00:00:00.000Z'],
    ['2027-01-01T12:00:00.000Z', 'week', '2026-12-28T00:00:00.000Z', '2027-01-04T00:00:00.000Z'],
    ['2026-12-31T23:59:59.999Z', 'month', '2026-12-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z'],
    ['2028-02-29T06:00:00.000Z', 'month', '2028-02-01T00:00:00.000Z', '2028-03-01T00:00:00.000Z'],
  ] as const)('%s is in the %s starting %s', (at, period, start, next) => {
    const begins = periodStart(Date.parse(at), period);
    expect(timestamp(begins)).toBe(start);
    expect(timestamp(nextPeriodStart(begins, period))).toBe(next);
  });
});

describe('bookkeeping', () => {
  const fresh = newBalanceRecord('acc', 'USD', '2026-01-01T00:00:00.000Z');

  it('counts opens and closes, sums realized P&L exactly into realizedPL and balance, tracks the latest trade', () => {
    const opened = balanceAfter(fresh, [{ kind: 'opened', trade: trade() }]);
    expect(opened).toMatchObject({
      openTradeCount: 1,
      realizedPL: '0',
      lastTradeAt: '2026-11-20T09:00:00.000Z',
      updatedAt: '2026-11-20T09:00:00.000Z',
      version: 1,
    });
    const huge = '1234567890123456789012.345';
    const after = balanceAfter(opened, [
      {
        kind: 'closed',
        trade: { ...trade(), status: 'closed', closePrice: '1.1', closeTime: '2026-11-21T00:00:00.000Z', realizedPL: huge },
      },
      { kind: 'recordedClosed', trade: closed('t-2', '2026-11-19T00:00:00.000Z', '-0.0001') },
    ]);
    expect(after).toMatchObject({
      openTradeCount: 0,
      realizedPL: '1234567890123456789012.3449',
      balance: '1234567890123456789012.3449',
      lastTradeAt: '2026-11-21T00:00:00.000Z',
      version: 2,
    });
  });

  it('takes the broker’s figures from a snapshot and keeps the ones the writer owns', () => {
    const counted = balanceAfter(fresh, [{ kind: 'recordedClosed', trade: closed('t', '2026-11-19T00:00:00.000Z', '12.50') }]);
    const snapped = balanceAfterSnapshot(counted, {
      balance: '10012.50',
      unrealizedPL: '-3',
      nav: '10009.50',
      marginUsed: '100',
      marginAvailable: '9909.50',
      time: '2026-11-22T00:00:00.000Z',
    });
    expect(snapped).toMatchObject({
      balance: '10012.50',
      nav: '10009.50',
      realizedPL: '12.50',
      openTradeCount: 0,
      snapshotAt: '2026-11-22T00:00:00.000Z',
    });
  });

  it('aggregates per day, ISO week and month, across month and year ends, with wins and losses', () => {
    const trades = [
      closed('a', '2026-12-31T23:59:59.999Z', '10.00'),
      closed('b', '2027-01-01T00:00:00.000Z', '-4.5'),
      closed('c', '2027-01-01T08:00:00.000Z', '0'),
    ];
    const entries = aggregatesAfter('acc', [], trades);
    const find = (period: string, start: string) => entries.find((entry) => entry.period === period && entry.start === start);
    // 2026-12-31 is a Thursday and 2027-01-01 a Friday: one ISO week, two days, two months.
    expect(find('week', '2026-12-28T00:00:00.000Z')).toMatchObject({ realizedPL: '5.50', tradesClosed: 3, wins: 1, losses: 1, version: 1 });
    expect(find('day', '2026-12-31T00:00:00.000Z')).toMatchObject({ realizedPL: '10.00', tradesClosed: 1, wins: 1, losses: 0 });
    expect(find('day', '2027-01-01T00:00:00.000Z')).toMatchObject({ realizedPL: '-4.5', tradesClosed: 2, wins: 0, losses: 1 });
    expect(find('month', '2026-12-01T00:00:00.000Z')).toMatchObject({ realizedPL: '10.00', tradesClosed: 1 });
    expect(find('month', '2027-01-01T00:00:00.000Z')).toMatchObject({ realizedPL: '-4.5', tradesClosed: 2 });
    expect(entries).toHaveLength(5);
    const again = aggregatesAfter('acc', entries, [closed('d', '2027-01-01T09:00:00.000Z', '0.25')]);
    expect(again.find((entry) => entry.period === 'day' && entry.start === '2027-01-01T00:00:00.000Z')).toMatchObject({
      realizedPL: '-4.25',
      tradesClosed: 3,
      wins: 1,
      version: 2,
    });
    expect(pnlPeriodsOf('2027-01-01T09:00:00.000Z').map((key) => key.period)).toEqual(['day', 'week', 'month']);
  });

  it('files a snapshot under its hour and its day', () => {
    const entries = equityEntriesOf('acc', {
      balance: '1',
      unrealizedPL: '0',
      nav: '1',
      marginUsed: '0',
      marginAvailable: '1',
      time: '2026-11-22T10:59:59.999Z',
    });
    expect(entries.map((entry) => [entry.interval, entry.start])).toEqual([
      ['hour', '2026-11-22T10:00:00.000Z'],
      ['day', '2026-11-22T00:00:00.000Z'],
    ]);
  });
});
