/** The freqtrade bridge's pure rules: floats to decimals, pairs to instruments, ids, states, the balance. */
import type { FreqtradeTrade } from '../../lib/bridges/freqtrade/api';
import { botStateOf, instrumentOf, snapshotOf, tradeIdOf, tradeOf } from '../../lib/bridges/freqtrade/mapping';
import { decimalOfFloat } from '../../lib/decimal';
import { pythonFloat } from '../support/fake-freqtrade';

describe('decimalOfFloat', () => {
  it.each([
    [1e-5, '0.00001'],
    [0.30000000000000004, '0.30000000000000004'],
    [1e21, '1000000000000000000000'],
    [-2.5e-10, '-0.00000000025'],
    [123.456, '123.456'],
    [-0, '0'],
    [0.1 + 0.7, '0.7999999999999999'],
  ])('%p is %p', (value, text) => {
    expect(decimalOfFloat(value)).toBe(text);
  });

  it('reads back as the same float, with no exponent, for floats of every magnitude', () => {
    let seed = 7;
    for (let i = 0; i < 20_000; i++) {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      const value = (seed / 2 ** 31 - 0.5) * 10 ** ((i % 40) - 20);
      const text = decimalOfFloat(value);
      expect([text, Number(text)]).toEqual([expect.stringMatching(/^-?\d+(\.\d+)?$/), value]);
    }
  });

  it('parses what Python writes', () => {
    for (const value of [1e-5, 1.5e-7, 1e16, 0.1, 3.0, 2.5e20])
      expect(decimalOfFloat(JSON.parse(pythonFloat(value)))).toBe(decimalOfFloat(value));
    expect(pythonFloat(1e-5)).toBe('1e-05');
    expect(pythonFloat(3)).toBe('3.0');
  });
});

it('instruments: spot and futures pairs alike', () => {
  expect(instrumentOf('BTC/USDT')).toBe('BTC_USDT');
  expect(instrumentOf('BTC/USDT:USDT')).toBe('BTC_USDT');
  expect(instrumentOf('1000SHIB/USDC')).toBe('1000SHIB_USDC');
  expect(() => instrumentOf('BTCUSDT')).toThrow('not of the form BASE/QUOTE');
});

const trade: FreqtradeTrade = {
  trade_id: 3,
  pair: 'ETH/USDT',
  is_open: true,
  is_short: true,
  amount: 0.1,
  stake_amount: 300,
  strategy: 'S',
  open_date: '2026-11-20 10:00:00',
  open_timestamp: Date.parse('2026-11-20T10:00:00Z'),
  open_fill_timestamp: Date.parse('2026-11-20T10:00:05Z'),
  open_rate: 3000,
  profit_abs: -1.5,
  realized_profit: 0,
  stop_loss_abs: null,
  has_open_orders: false,
};

it('trades: ids carry the open time, an unfilled entry is not a trade yet, a closed trade its whole profit', () => {
  expect(tradeIdOf(trade)).toBe('ft-3-1795168800000');
  expect(tradeOf('a', trade)).toMatchObject({
    id: 'ft-3-1795168800000',
    side: 'sell',
    units: '0.1',
    openPrice: '3000',
    unrealizedPL: '-1.5',
    stopLoss: null,
    status: 'open',
  });
  expect(tradeOf('a', { ...trade, open_fill_timestamp: null })).toBeUndefined();
  const closed = tradeOf('a', {
    ...trade,
    is_open: false,
    close_rate: 2900,
    close_timestamp: Date.parse('2026-11-21T00:00:00Z'),
    close_profit_abs: 9.7,
    profit_abs: 9.7,
  });
  expect(closed).toMatchObject({
    status: 'closed',
    closePrice: '2900',
    closeTime: '2026-11-21T00:00:00.000Z',
    realizedPL: '9.7',
    unrealizedPL: '0',
  });
});

it('the balance: sums exact, never through floats', () => {
  const open = [
    { ...trade, profit_abs: 0.1, stake_amount: 0.1 },
    { ...trade, profit_abs: 0.2, stake_amount: 0.2 },
  ];
  expect(snapshotOf({ total: 5, total_bot: 1, stake: 'USDT' }, open, 't')).toEqual({
    nav: '1',
    unrealizedPL: '0.3',
    balance: '0.7',
    marginUsed: '0.3',
    marginAvailable: '0.7',
    time: 't',
  });
});

describe('states', () => {
  const config = {
    bot_name: 'b',
    dry_run: true,
    stake_currency: 'USDT',
    exchange: 'x',
    strategy: 'S',
    state: 'running',
    max_open_trades: 3,
  };
  const now = Date.parse('2026-11-20T10:00:00Z');
  const health = (secondsAgo: number | null) => ({
    last_process: null,
    last_process_ts: secondsAgo === null ? null : now / 1000 - secondsAgo,
  });
  it.each([
    ['running', 3, 5, 'running'],
    ['running', 'inf', 5, 'running'],
    ['running', 0, 5, 'paused'],
    ['paused', 3, 5, 'paused'],
    ['stopped', 3, 5000, 'stopped'],
    ['running', 3, 181, 'error'],
    ['running', 3, null, 'error'],
    ['reload_config', 3, 5000, 'running'],
    ['something_new', 3, 5, 'error'],
  ] as const)('%s, max_open_trades %p, loop %p s ago: %s', (state, max, ago, expected) => {
    expect(botStateOf({ ...config, state, max_open_trades: max }, health(ago), now, 180).state).toBe(expected);
  });
});
