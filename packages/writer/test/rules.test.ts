/**
 * The writer's pure parts: input checks (each naming its field), calendar periods, and the bookkeeping rules
 * (counters, exact sums, aggregates per day, ISO week and month).
 */
import { newBalanceRecord } from '@trading-bot-api/core/store/balances-table';
import { parseTime, parseUtcTimestamp, periodStart, shiftPeriodStart, timestamp } from '@trading-bot-api/core/time';
import type { Trade } from '@trading-bot-api/core/types';
import { WriterError } from '../src/errors';
import { decide } from '../src/history';
import { tradeAfterClose, tradeAfterMarks, withDetails } from '../src/trades';
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
    // API 1.5: a trade whole, consistent with itself.
    ['closeReason', { closeReason: 'take_profit' }],
    ['instrument', { market: 'futures' }],
    ['market', { instrument: 'SOL_USDT_PERP', market: 'spot' }],
    ['market', { market: 'perpetual' }],
    ['leverage', { market: 'spot', leverage: '3' }],
    ['leverage', { leverage: '0' }],
    ['fundingFees', { market: 'margin', fundingFees: '1' }],
    ['liquidationPrice', { market: 'spot', liquidationPrice: '100' }],
    ['fees', { fees: [{ amount: '1', currency: 'USD', leg: 'close' }] }],
    ['fees', { fees: { amount: '1', currency: 'USD' } }],
    ['fees[0].amount', { fees: [{ amount: 0.1, currency: 'USD', leg: 'open' }] }],
    ['fees[0].currency', { fees: [{ amount: '0.1', currency: 'bnb', leg: 'open' }] }],
    ['fees[0].leg', { fees: [{ amount: '0.1', currency: 'BNB' }] }],
    ['orderIds[0]', { orderIds: ['has space'] }],
    ['currency', { currency: 'us dollars' }],
    ['feeTotal', { feeTotal: 'all of it' }],
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

  it('takes a trade whole (API 1.5): a future names its contract, spot is leverage 1, lists as given, derived fields not kept', () => {
    const future = tradeInput({ ...trade(), instrument: 'sol-usdt-perp', leverage: '5', fundingFees: '-0.5', feeTotal: '999' }, 'acc');
    expect(future).toMatchObject({ instrument: 'SOL_USDT_PERP', market: 'futures', leverage: '5', fundingFees: '-0.5', feeTotal: null });
    expect(tradeInput({ ...trade(), instrument: 'BTC_USDT_20261225' }, 'acc').market).toBe('futures');
    expect(tradeInput({ ...trade(), market: 'spot' }, 'acc').leverage).toBe('1');
    expect(tradeInput({ ...trade(), market: 'spot', leverage: '1.0' }, 'acc').leverage).toBe('1');
    // Unknown stays unknown, never zero; an empty list of order ids is none given.
    expect(tradeInput(trade(), 'acc')).toMatchObject({ market: null, leverage: null, fees: null, orderIds: null, currency: null });
    expect(tradeInput({ ...trade(), fees: [], orderIds: [] }, 'acc')).toMatchObject({ fees: [], orderIds: null });
    expect(tradeInput({ ...trade(), orderIds: ['a', 'b', 'a'] }, 'acc').orderIds).toEqual(['a', 'b']);
    // A closed trade may say why it closed; an open's fees without a leg are its opening's where the call says so.
    const closedTrade = { ...trade(), status: 'closed', closePrice: '1.1', closeTime: '2026-11-21T00:00:00.000Z', closeReason: 'roi' };
    expect(tradeInput(closedTrade, 'acc').closeReason).toBe('roi');
    expect(tradeInput({ ...trade(), fees: [{ amount: '0.1', currency: 'BNB' }] }, 'acc', '', NOW, 'open').fees).toEqual([
      { amount: '0.1', currency: 'BNB', leg: 'open' },
    ]);
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
    expect(timestamp(shiftPeriodStart(begins, period, 1))).toBe(next);
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

describe('what a trade says besides (API 1.5): filled in, kept, corrected only by its source', () => {
  const closedAt = { status: 'closed' as const, closePrice: '1.09', closeTime: '2026-11-21T00:00:00.000Z', realizedPL: '5' };
  const fees = [
    { amount: '0.5', currency: 'USD', leg: 'open' as const },
    { amount: '0.5', currency: 'USD', leg: 'close' as const },
  ];
  const stored = trade(closedAt);

  it('a repeat, or one that says less, changes nothing', () => {
    const whole = { ...stored, market: 'margin' as const, leverage: '30', fees, closeReason: 'roi' };
    expect(decide(whole, whole)).toBe('unchanged');
    expect(decide(whole, { ...whole, ...UNKNOWN_DETAILS, closeReason: null })).toBe('unchanged');
  });

  it('what was unknown on a closed trade is filled in by any source, as a correction (its figures move)', () => {
    expect(decide(stored, { ...stored, fees })).toBe('correct');
    expect(withDetails(stored, { ...stored, fees, closeReason: 'roi' })).toMatchObject({ fees, closeReason: 'roi' });
    // A future stored under its pair before 1.5 takes its contract's instrument: the same trade.
    const perp = { ...stored, instrument: 'EUR_USD_PERP', market: 'futures' as const };
    expect(decide(stored, perp)).toBe('correct');
    expect(withDetails(stored, perp).instrument).toBe('EUR_USD_PERP');
  });

  it('what was known changes only in the source’s own record; another instrument is another trade', () => {
    const known = { ...stored, fees };
    const other = { ...stored, fees: [{ amount: '0.7', currency: 'USD', leg: 'close' as const }] };
    expect(decide(known, other)).toMatchObject({ code: 'TRADE_CLOSED' });
    expect(decide(known, other, true)).toBe('correct');
    expect(decide({ ...stored, market: 'margin' }, { ...stored, instrument: 'EUR_USD_PERP', market: 'futures' })).toMatchObject({
      code: 'TRADE_CONFLICT',
    });
    expect(decide(stored, { ...stored, instrument: 'GBP_USD' })).toMatchObject({ code: 'TRADE_CONFLICT' });
  });

  it('an open trade takes what is said of it as an update; its close keeps the opening’s fees and adds its own', () => {
    const open = trade({ fees: [fees[0]], orderIds: ['o-1'] });
    expect(decide(open, { ...open, fundingFees: '0.2' })).toBe('update');
    expect(decide(open, { ...open, fees: null })).toBe('unchanged');
    const close = { closePrice: '1.09', closeTime: '2026-11-21T00:00:00.000Z', realizedPL: '5', unrealizedPL: '0' };
    const details = { closeReason: 'stop_loss', fees: [fees[1]], fundingFees: null, orderIds: ['o-2', 'o-1'] };
    expect(tradeAfterClose(open, { ...close, ...details })).toMatchObject({
      status: 'closed',
      closeReason: 'stop_loss',
      fees,
      orderIds: ['o-1', 'o-2'],
    });
    // Fees given at the close of a trade whose opening's are unknown are taken as all of them.
    expect(tradeAfterClose(trade(), { ...close, ...details }).fees).toEqual([fees[1]]);
    expect(tradeAfterClose(open, { ...close, closeReason: null, fees: null, fundingFees: null, orderIds: null })).toMatchObject({
      fees: [fees[0]],
      closeReason: null,
      orderIds: ['o-1'],
    });
    expect(tradeAfterMarks(open, { fees: [{ ...fees[0], amount: '0.7' }], orderIds: ['o-3'] })).toMatchObject({
      fees: [{ ...fees[0], amount: '0.7' }],
      orderIds: ['o-1', 'o-3'],
    });
  });
});
