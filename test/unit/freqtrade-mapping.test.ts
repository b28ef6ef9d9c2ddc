/** The freqtrade bridge's pure rules: floats to decimals, pairs to instruments, ids, fees, futures, states, the balance. */
import fc from 'fast-check';
import type { FreqtradeTrade } from '@trading-bot-api/feeds/bridges/freqtrade/api';
import {
  accountOf,
  atPrecision,
  botStateOf,
  instrumentOf,
  snapshotOf,
  tradeIdOf,
  tradeOf,
} from '@trading-bot-api/feeds/bridges/freqtrade/mapping';
import { moneyOf } from '@trading-bot-api/feeds/bridges/numbers';
import { decimalOfFloat, formatDecimal, isDecimal, trimDecimal } from '@trading-bot-api/core/decimal';
import { pythonFloat } from '../kit/fake-freqtrade';
import { propertyRuns } from '../kit/property-runs';

/** Float noise in a decimal: among its significant digits, a run of six 0s or 9s and then another digit. */
const ARTEFACT = /[1-9]\d*(0{6,}|9{6,})\d/;
const significant = (value: string) => value.replace(/^-/, '').replace('.', '').replace(/^0+/, '');

describe('decimalOfFloat: the decimal a float stands for (15 significant digits)', () => {
  it.each([
    [1e-5, '0.00001'],
    [0.30000000000000004, '0.3'],
    [0.1 + 0.7, '0.8'],
    [9.689999999999998, '9.69'],
    [1014.4662374999999, '1014.4662375'],
    [-3.8249999999999997, '-3.825'],
    [1e21, '1000000000000000000000'],
    [-2.5e-10, '-0.00000000025'],
    [123.456, '123.456'],
    [-0, '0'],
    [61250.5, '61250.5'],
  ])('%p is %p', (value, text) => {
    expect(decimalOfFloat(value)).toBe(text);
  });

  it('gives back every decimal of up to 15 significant digits that went through a float, at any magnitude', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 15n) + 1n, max: 10n ** 15n - 1n }), fc.integer({ min: -20, max: 20 }), (digits, exponent) => {
        // digits × 10^exponent, written out exactly: at most 15 significant digits.
        const text = exponent >= 0 ? (digits * 10n ** BigInt(exponent)).toString() : trimDecimal(formatDecimal(digits, -exponent));
        expect(decimalOfFloat(Number(text))).toBe(text);
      }),
      { numRuns: propertyRuns(500) },
    );
  });

  it('with 17 digits, the shortest form that reads back as the same float (noise and all)', () => {
    expect(decimalOfFloat(0.30000000000000004, 17)).toBe('0.30000000000000004');
    let seed = 7;
    for (let i = 0; i < 2_000; i++) {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      const value = (seed / 2 ** 31 - 0.5) * 10 ** ((i % 40) - 20);
      const text = decimalOfFloat(value, 17);
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

describe("money: freqtrade's 8 places", () => {
  it.each([
    [9.689999999999998, '9.69'],
    [-3.8249999999999997, '-3.825'],
    [1014.4662374999999, '1014.4662375'],
    [0.123456789, '0.12345679'],
    [0.00000001, '0.00000001'],
    [0.000000004, '0'],
    [12.5, '12.5'],
    [-0.0, '0'],
  ])('%p is %p', (value, text) => expect(moneyOf(value)).toBe(text));

  it("sums of freqtrade's rounded profits come out clean", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -10_000_000_000, max: 10_000_000_000 }), { minLength: 1, maxLength: 20 }), (cents) => {
        // What freqtrade sends: each profit rounded to 8 places, then summed as floats (recalc_trade_from_orders).
        const floats = cents.map((c) => c / 1e8);
        const sum = floats.reduce((a, b) => a + b, 0);
        const exact = cents.reduce((a, b) => a + BigInt(b), 0n);
        // Exactly the sum freqtrade meant, at its places: no noise left.
        expect(moneyOf(sum)).toBe(trimDecimal(formatDecimal(exact, 8)));
      }),
      { numRuns: propertyRuns(500) },
    );
  });
});

describe("amounts and prices: the exchange's precision", () => {
  it.each([
    // TICK_SIZE (4): the places of the tick.
    [61250.5, 0.01, 4, '61250.50'],
    [0.30000000000000004, 0.001, 4, '0.300'],
    [0.01499999999999999, 1e-5, 4, '0.01500'],
    [2341.5, 0.5, 4, '2341.5'],
    [7, 1, 4, '7'],
    // DECIMAL_PLACES (2): that many places.
    [1.08420000000001, 5, 2, '1.08420'],
    [3, 2, 2, '3.00'],
    // SIGNIFICANT_DIGITS (3): that many digits.
    [0.0001235 + 1e-19, 4, 3, '0.0001235'],
    [0.000123450000001, 4, 3, '0.00012345'],
    [61250.5, 5, 3, '61250.5'],
    // An average entry price off the exchange's grid keeps up to 8 places.
    [100.015, 0.01, 4, '100.015'],
    [100.0150000000001, 0.01, 4, '100.015'],
    [2 / 3, 0.01, 4, '0.66666667'],
    // No precision reported: 15 significant digits.
    [0.30000000000000004, null, null, '0.3'],
    [0.1234567890123456, undefined, 4, '0.123456789012346'],
  ] as const)('%p at %p (mode %p) is %p', (value, precision, mode, text) => {
    expect(atPrecision(value, precision, mode)).toBe(text);
  });
});

it('instruments: a spot pair is the pair, a future names its contract, and says what it settles in', () => {
  expect(instrumentOf('BTC/USDT')).toEqual({ instrument: 'BTC_USDT', settlement: 'USDT' });
  expect(instrumentOf('SOL/USDT:USDT')).toEqual({ instrument: 'SOL_USDT_PERP', settlement: 'USDT' });
  expect(instrumentOf('BTC/USDT:USDT-261225')).toEqual({ instrument: 'BTC_USDT_20261225', settlement: 'USDT' });
  expect(instrumentOf('BTC/USD:BTC')).toEqual({ instrument: 'BTC_USD_PERP', settlement: 'BTC' });
  expect(instrumentOf('1000SHIB/USDC')).toEqual({ instrument: '1000SHIB_USDC', settlement: 'USDC' });
  expect(() => instrumentOf('BTCUSDT')).toThrow('not of the form BASE/QUOTE');
});

const trade: FreqtradeTrade = {
  trade_id: 3,
  pair: 'ETH/USDT',
  is_open: true,
  is_short: true,
  amount: 0.1,
  strategy: 'S',
  open_timestamp: Date.parse('2026-11-20T10:00:00Z'),
  open_fill_timestamp: Date.parse('2026-11-20T10:00:05Z'),
  open_rate: 3000,
  profit_abs: -1.5,
  stop_loss_abs: null,
};

it('trades: ids carry the open time, an unfilled entry is not a trade yet, a closed trade its whole profit', () => {
  expect(tradeIdOf(trade)).toBe('ft-3-1795168800000');
  expect(tradeOf('a', trade, 'USDT')).toMatchObject({
    id: 'ft-3-1795168800000',
    side: 'sell',
    units: '0.1',
    openPrice: '3000',
    unrealizedPL: '-1.5',
    stopLoss: null,
    status: 'open',
  });
  expect(tradeOf('a', { ...trade, open_fill_timestamp: null }, 'USDT')).toBeUndefined();
  const closed = tradeOf(
    'a',
    {
      ...trade,
      is_open: false,
      close_rate: 2900,
      close_timestamp: Date.parse('2026-11-21T00:00:00Z'),
      close_profit_abs: 9.7,
      profit_abs: 9.7,
    },
    'USDT',
  );
  expect(closed).toMatchObject({
    status: 'closed',
    closePrice: '2900',
    closeTime: '2026-11-21T00:00:00.000Z',
    realizedPL: '9.7',
    unrealizedPL: '0',
  });
  // What freqtrade did not say (a trade from before it kept fees, mode, leverage and orders) is unknown, never zero.
  expect(closed).toMatchObject({ currency: 'USDT', market: 'spot', leverage: '1', fees: null, closeReason: null, orderIds: null });
});

it('trades whole: fees in their own currencies, a leveraged short future with its funding, why it closed, its orders', () => {
  const base: FreqtradeTrade = {
    ...trade,
    is_short: false,
    pair: 'BTC/USDT',
    trading_mode: 'spot',
    leverage: 1,
    fee_open_cost: 0.000015,
    fee_open_currency: 'BTC',
    fee_close_cost: null,
    fee_close_currency: null,
    orders: [
      {
        pair: 'BTC/USDT',
        order_id: '111',
        status: 'closed',
        amount: 0.1,
        filled: 0.1,
        is_open: false,
      },
      // An order that did not fill opened nothing.
      {
        pair: 'BTC/USDT',
        order_id: '112',
        status: 'canceled',
        amount: 0.1,
        filled: 0,
        is_open: false,
      },
    ],
  };
  // Open: the entry's fee so far.
  expect(tradeOf('a', base, 'USDT')).toMatchObject({
    market: 'spot',
    leverage: '1',
    fees: [{ amount: '0.000015', currency: 'BTC', leg: 'open' }],
    orderIds: ['111'],
    fundingFees: null,
    liquidationPrice: null,
  });
  const exit = {
    is_open: false,
    close_rate: 2900,
    close_timestamp: Date.parse('2026-11-21T00:00:00Z'),
    close_profit_abs: 9.7,
    exit_reason: 'trailing_stop_loss',
  };
  // Closed, the exit's fee not learnt: the fees are unknown (not just the entry's).
  expect(tradeOf('a', { ...base, ...exit }, 'USDT')).toMatchObject({ fees: null, closeReason: 'trailing_stop_loss' });
  expect(tradeOf('a', { ...base, ...exit, fee_close_cost: 0.29, fee_close_currency: 'USDT' }, 'USDT')!.fees).toEqual([
    { amount: '0.000015', currency: 'BTC', leg: 'open' },
    { amount: '0.29', currency: 'USDT', leg: 'close' },
  ]);
  // A fee of 0 is none; a cost without its currency is freqtrade's estimate, in the stake currency.
  expect(tradeOf('a', { ...base, ...exit, fee_open_cost: 0, fee_close_cost: 0.3, fee_close_currency: null }, 'USDT')!.fees).toEqual([
    { amount: '0.3', currency: 'USDT', leg: 'close' },
  ]);
  const future = tradeOf(
    'a',
    {
      ...base,
      ...exit,
      pair: 'SOL/USDT:USDT',
      is_short: true,
      trading_mode: 'futures',
      leverage: 5.0,
      liquidation_price: 178.42000000000002,
      funding_fees: -0.8525000000000001,
      fee_open_cost: 0.75125,
      fee_open_currency: 'USDT',
      fee_close_cost: 0.7025,
      fee_close_currency: 'USDT',
      exit_reason: 'stop_loss',
    },
    'USDT',
  );
  expect(future).toMatchObject({
    instrument: 'SOL_USDT_PERP',
    side: 'sell',
    market: 'futures',
    leverage: '5',
    // freqtrade's funding is the trade's gain: -0.8525 is 0.8525 paid.
    fundingFees: '0.8525',
    liquidationPrice: '178.42',
    closeReason: 'stop_loss',
    fees: [
      { amount: '0.75125', currency: 'USDT', leg: 'open' },
      { amount: '0.7025', currency: 'USDT', leg: 'close' },
    ],
  });
  // A future settled in another currency than the account's is not this account's to mirror.
  expect(() => tradeOf('a', { ...base, pair: 'BTC/USD:BTC', trading_mode: 'futures' }, 'USDT')).toThrow('settles in BTC');
});

it('the balance: sums exact, never through floats', () => {
  const open = [
    { ...trade, profit_abs: 0.1, stake_amount: 0.1 },
    { ...trade, profit_abs: 0.2, stake_amount: 0.2 },
  ];
  const currencies = [
    { currency: 'BTC', free: 0.5, used: 0, balance: 0.5 },
    { currency: 'USDT', free: 969.0000000000001, used: 31.000000000000004, balance: 1000.0000000000001 },
  ];
  expect(snapshotOf({ currencies, total: 5, total_bot: 1014.4662374999999, stake: 'USDT' }, open, 't')).toEqual({
    nav: '1014.4662375',
    unrealizedPL: '0.3',
    balance: '1014.1662375',
    // What freqtrade reports of the stake currency, not derived: never negative unless the bot says so.
    marginUsed: '31',
    marginAvailable: '969',
    time: 't',
  });
  // No stake currency listed: nothing used, nothing free.
  expect(snapshotOf({ currencies: [], total: 5, total_bot: 1, stake: 'USDT' }, open, 't')).toMatchObject({
    marginUsed: '0',
    marginAvailable: '0',
  });
});

it("a trade with float noise and the exchange's precision reads clean", () => {
  const noisy: FreqtradeTrade = {
    ...trade,
    is_short: false,
    amount: 0.30000000000000004,
    open_rate: 3000.1000000000004,
    stop_loss_abs: 2700.09,
    profit_abs: -3.8249999999999997,
    amount_precision: 0.0001,
    price_precision: 0.01,
    precision_mode: 4,
  };
  expect(tradeOf('a', noisy, 'USDT')).toMatchObject({ units: '0.3000', openPrice: '3000.10', stopLoss: '2700.09', unrealizedPL: '-3.825' });
  const closed = tradeOf(
    'a',
    {
      ...noisy,
      is_open: false,
      close_rate: 3100.2,
      close_timestamp: Date.parse('2026-11-21T00:00:00Z'),
      close_profit_abs: 9.689999999999998,
    },
    'USDT',
  );
  expect(closed).toMatchObject({ closePrice: '3100.20', realizedPL: '9.69' });
  for (const value of Object.values(closed!))
    if (typeof value === 'string' && isDecimal(value)) expect(significant(value)).not.toMatch(ARTEFACT);
  // The test's own rule sees noise where there is some.
  expect(significant('1014.46623749999999996')).toMatch(ARTEFACT);
  expect(significant('0.30000000000000004')).toMatch(ARTEFACT);
  expect(significant('-0.00000001')).not.toMatch(ARTEFACT);
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

describe('the account a bot is mirrored into', () => {
  const config = { bot_name: 'trend-eth', dry_run: false, stake_currency: 'usdt', exchange: 'binance' } as Parameters<typeof accountOf>[1];
  it("is named by the operator's --name, else the bot's bot_name", () => {
    expect(accountOf('ft-1', config, 'ETH trend')).toEqual({
      id: 'ft-1',
      name: 'ETH trend',
      currency: 'USDT',
      broker: 'binance',
      environment: 'live',
    });
    expect(accountOf('ft-1', config).name).toBe('trend-eth');
  });
  it("shows a bot left at freqtrade's default name (or none) with its account id", () => {
    expect(accountOf('ft-2', { ...config, bot_name: 'freqtrade' }).name).toBe('freqtrade (ft-2)');
    expect(accountOf('ft-3', { ...config, bot_name: '' }).name).toBe('freqtrade (ft-3)');
  });
});
