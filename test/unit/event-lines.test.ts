/**
 * Event lines on their own: what a line may hold (the parser and the published JSON Schema agree, line for line and
 * field for field), how a trade's lines fold into one trade, which lines read again after a stop the stored trade
 * already shows, and how bytes become numbered lines.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import { foldTrade, type NumberedEvent } from '@trading-bot-api/feeds/ingest/apply';
import { LINE_TYPES, LineError, MAX_LINE_BYTES, parseLine } from '@trading-bot-api/feeds/ingest/lines';
import { linesShown, type TradeEvent } from '@trading-bot-api/feeds/ingest/replay';
import { streamLines } from '@trading-bot-api/feeds/ingest/source';
import { UNKNOWN_DETAILS } from '../kit/trade-details';

const ROOT = join(__dirname, '..', '..');
const schema = JSON.parse(readFileSync(join(ROOT, 'docs', 'event-lines.schema.json'), 'utf8'));
const validate = new Ajv2020({ strict: false, allErrors: true }).compile(schema);
const docLines = readFileSync(join(ROOT, 'docs', 'event-lines.md'), 'utf8')
  .split(/```json\n/)
  .slice(1)
  .flatMap((block) => block.split('```')[0].trim().split('\n'));

function reason(text: string): string | undefined {
  try {
    parseLine(text);
    return undefined;
  } catch (error) {
    if (error instanceof LineError) return error.message;
    throw error;
  }
}

const GOOD: Record<string, object> = {
  account: { type: 'account', account: 'main', name: 'Main', currency: 'USDT', broker: 'binance', environment: 'paper' },
  open: {
    type: 'open',
    account: 'main',
    id: 't-1',
    instrument: 'BTC/USDT',
    side: 'sell',
    units: '0.015',
    openPrice: '91234.5',
    openTime: '2026-11-22T09:00:00Z',
    stopLoss: null,
  },
  close: { type: 'close', account: 'main', id: 't-1', closePrice: '91000', closeTime: '2026-11-22T10:00:00.000Z', realizedPL: '3.5175' },
  marks: { type: 'marks', account: 'main', id: 't-1', unrealizedPL: '-1.2', units: '0.01' },
  balance: {
    type: 'balance',
    account: 'main',
    balance: '1000',
    unrealizedPL: '0',
    nav: '1000',
    marginUsed: '0',
    marginAvailable: '1000',
    time: '2026-11-22T10:00:00.000Z',
  },
  heartbeat: { type: 'heartbeat', account: 'main', state: 'running' },
  gone: { type: 'gone', account: 'main', id: 't-1', reason: 'gone from the bot: its database was reset' },
  retire: { type: 'retire', account: 'main' },
  restore: { type: 'restore', account: 'main' },
};

describe('the documented lines', () => {
  it('are valid by the schema and by the parser', () => {
    expect(docLines.length).toBeGreaterThanOrEqual(6);
    for (const line of docLines) {
      expect([line, validate(JSON.parse(line)), reason(line)]).toEqual([line, true, undefined]);
    }
  });

  it('the schema names, for each type, exactly the fields the parser takes, and requires the same ones', () => {
    for (const [type, fields] of Object.entries(LINE_TYPES)) {
      const branch = schema.$defs[type];
      expect([type, Object.keys(branch.properties).sort()]).toEqual([
        type,
        ['type', 'account', ...fields.required, ...fields.optional].sort(),
      ]);
      expect([type, [...branch.required].sort()]).toEqual([type, ['type', 'account', ...fields.required].sort()]);
    }
  });
});

describe('a line', () => {
  it.each(Object.entries(GOOD))('of type %s is accepted by both', (_, value) => {
    expect(validate(value)).toBe(true);
    expect(reason(JSON.stringify(value))).toBeUndefined();
  });

  it.each([
    ['not JSON', '{"type":', /^not valid JSON/],
    ['not an object', '[1,2]', /^not a JSON object$/],
    ['an unknown type', '{"type":"deposit","account":"main"}', /^type: must be one of account, open, close, marks, balance, heartbeat/],
    ['an unknown field', JSON.stringify({ ...GOOD.heartbeat, colour: 'red' }), /^unknown field colour for a heartbeat line/],
    [
      'a missing field',
      JSON.stringify({ type: 'close', account: 'main', id: 't-1', closePrice: '1' }),
      /^closeTime, realizedPL: required for a close line$/,
    ],
    ['a bad account', JSON.stringify({ ...GOOD.heartbeat, account: 'all' }), /^account: must be 1–64/],
    [
      'an amount as a number',
      JSON.stringify({ ...GOOD.open, units: 0.015 }),
      /^units: must be a decimal string such as "10.50", not a number/,
    ],
    ['an amount with an exponent', JSON.stringify({ ...GOOD.balance, nav: '1e3' }), /^nav: must be a decimal string/],
    [
      'a time without a zone',
      JSON.stringify({ ...GOOD.close, closeTime: '2026-11-22T10:00:00' }),
      /^closeTime: must be an RFC 3339 time in UTC/,
    ],
    ['a lower-case currency', JSON.stringify({ ...GOOD.account, currency: 'usdt' }), /^currency: must be a currency code/],
    ['a bad state', JSON.stringify({ ...GOOD.heartbeat, state: 'sleeping' }), /^state: must be one of running, paused, stopped, error/],
    ['a gone trade without a reason', JSON.stringify({ ...GOOD.gone, reason: undefined }), /^reason: required for a gone line/],
    ['fields on a retire line', JSON.stringify({ ...GOOD.retire, reason: 'done' }), /^unknown field reason for a retire line/],
  ])('with %s is refused by the parser, with the reason, and by the schema', (_, text, expected) => {
    expect(reason(text)).toMatch(expected);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return;
    }
    expect(validate(value)).toBe(false);
  });
});

describe('folding a trade’s lines', () => {
  const numbered = (...values: object[]): NumberedEvent[] =>
    values.map((value, i) => ({ line: i + 1, event: parseLine(JSON.stringify(value)) }));

  it('an open, its marks and its close become the closed trade those calls leave behind', () => {
    expect(foldTrade(numbered(GOOD.open, GOOD.marks, GOOD.close))).toEqual({
      id: 't-1',
      accountId: 'main',
      instrument: 'BTC_USDT',
      side: 'sell',
      units: '0.01',
      status: 'closed',
      openPrice: '91234.5',
      openTime: '2026-11-22T09:00:00.000Z',
      closePrice: '91000',
      closeTime: '2026-11-22T10:00:00.000Z',
      realizedPL: '3.5175',
      // closeTrade leaves no unrealized P&L unless it is given.
      unrealizedPL: '0',
      stopLoss: null,
      takeProfit: null,
      closeReason: null,
      ...UNKNOWN_DETAILS,
    });
  });

  it('folds what the lines say besides as the writer’s calls do: fees by leg, order ids added, why it closed', () => {
    const open = { ...GOOD.open, market: 'spot', fees: [{ amount: '0.0091', currency: 'USDT' }], orderIds: ['o1'] };
    const marks = { ...GOOD.marks, fees: [{ amount: '0.009', currency: 'USDT' }] };
    const close = { ...GOOD.close, reason: 'take_profit', fees: [{ amount: '0.0002', currency: 'BNB' }], orderIds: ['o2', 'o1'] };
    expect(foldTrade(numbered(open, marks, close))).toMatchObject({
      market: 'spot',
      leverage: '1',
      closeReason: 'take_profit',
      fees: [
        { amount: '0.009', currency: 'USDT', leg: 'open' },
        { amount: '0.0002', currency: 'BNB', leg: 'close' },
      ],
      orderIds: ['o1', 'o2'],
    });
    // A close line that says nothing of fees keeps the opening's; an open line without them leaves them unknown.
    expect(foldTrade(numbered(open, GOOD.close))?.fees).toEqual([{ amount: '0.0091', currency: 'USDT', leg: 'open' }]);
    expect(foldTrade(numbered(GOOD.open, GOOD.close))?.fees).toBeNull();
    expect(() => parseLine(JSON.stringify({ ...GOOD.open, instrument: 'SOL/USDT', market: 'futures' }))).toThrow(LineError);
    expect(parseLine(JSON.stringify({ ...GOOD.open, instrument: 'sol-usdt-perp' }))).toMatchObject({
      trade: { instrument: 'SOL_USDT_PERP', market: 'futures' },
    });
  });

  it('anything else is left to the writer, line by line', () => {
    expect(foldTrade(numbered(GOOD.marks, GOOD.open))).toBeUndefined();
    expect(foldTrade(numbered(GOOD.open, GOOD.open))).toBeUndefined();
    expect(foldTrade(numbered(GOOD.open, GOOD.close, GOOD.marks))).toBeUndefined();
    expect(foldTrade(numbered(GOOD.open, GOOD.close, GOOD.close))).toBeUndefined();
    expect(foldTrade(numbered(GOOD.open, { ...GOOD.close, closeTime: '2026-11-22T08:00:00.000Z' }))).toBeUndefined();
  });
});

describe('a trade’s lines read again after a stop', () => {
  const numbered = (...values: object[]): NumberedEvent[] =>
    values.map((value, i) => ({ line: i + 1, event: parseLine(JSON.stringify(value)) }));
  /** The trade those lines leave behind when they are the first ever of it (the writer's own outcome). */
  const storedAfter = (...values: object[]) => foldTrade(numbered(...values))!;
  const shown = (stored: ReturnType<typeof storedAfter>, ...values: object[]) =>
    linesShown(
      stored,
      numbered(...values).map(({ event }) => event as TradeEvent),
    );
  const marks = (fields: object) => ({ type: 'marks', account: 'main', id: 't-1', ...fields });

  it('are all shown when the stored trade is what they lead to, closed or still open', () => {
    expect(shown(storedAfter(GOOD.open, GOOD.marks, GOOD.close), GOOD.open, GOOD.marks, GOOD.close)).toBe(3);
    expect(shown(storedAfter(GOOD.open, GOOD.marks), GOOD.open, GOOD.marks)).toBe(2);
  });

  it('are shown up to where the batch stopped being applied, and not after', () => {
    expect(shown(storedAfter(GOOD.open, GOOD.marks), GOOD.open, GOOD.marks, GOOD.close)).toBe(2);
    expect(shown(storedAfter(GOOD.open), GOOD.open, GOOD.marks, GOOD.close)).toBe(1);
    // The open is shown by any trade opened so: stored before the batch with other marks, it was a repeat.
    expect(shown({ ...storedAfter(GOOD.open), stopLoss: '95000', unrealizedPL: '7' }, GOOD.open, GOOD.marks)).toBe(1);
  });

  it('of a trade that existed before the batch: an open repeated, then marks, shows whatever marks it had before', () => {
    const before = { ...storedAfter(GOOD.open), stopLoss: '95000', unrealizedPL: '7' };
    expect(shown({ ...before, units: '0.01', unrealizedPL: '-1.2' }, GOOD.open, GOOD.marks)).toBe(2);
  });

  it('that set a field and set it back are shown by the value they end with', () => {
    const stored = storedAfter(GOOD.open, marks({ units: '0.5' }));
    expect(shown(stored, marks({ units: '0.5' }), marks({ units: '0.7' }), marks({ units: '0.5' }))).toBe(3);
    expect(shown(stored, marks({ units: '0.5' }), marks({ units: '0.7' }))).toBe(1);
  });

  it('refused for themselves are not shown: marks after the close, a close of other values, an open of another time, a close before the open', () => {
    const closed = storedAfter(GOOD.open, GOOD.close);
    expect(shown(closed, GOOD.open, GOOD.close, marks({ unrealizedPL: '5' }))).toBe(2);
    expect(shown(closed, { ...GOOD.close, realizedPL: '4' })).toBe(0);
    expect(shown(closed, { ...GOOD.open, openTime: '2026-11-22T08:00:00.000Z' }, GOOD.close)).toBe(0);
    expect(shown(storedAfter(GOOD.open), { ...GOOD.close, closeTime: '2026-11-22T08:00:00.000Z' })).toBe(0);
    // Marks of a closed trade that change nothing are accepted, and so shown.
    expect(shown(closed, GOOD.close, marks({ unrealizedPL: '0' }))).toBe(2);
  });
});

describe('lines from bytes', () => {
  async function linesOf(chunks: (string | Buffer)[]) {
    async function* stream() {
      yield* chunks.map((chunk) => (typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
    }
    const lines = [];
    for await (const batch of streamLines(stream())) lines.push(...batch);
    return lines;
  }

  it('numbers lines across chunks, skips blank ones, drops a CR, keeps a last line without a break, and never splits a character', async () => {
    const euro = Buffer.from('€');
    expect(
      await linesOf([
        '{"a":1}\r\n\n{"b":',
        Buffer.concat([Buffer.from('"'), euro.subarray(0, 1)]),
        Buffer.concat([euro.subarray(1), Buffer.from('"}\n{"c":3}')]),
      ]),
    ).toEqual([
      { line: 1, text: '{"a":1}' },
      { line: 3, text: '{"b":"€"}' },
      { line: 4, text: '{"c":3}' },
    ]);
  });

  it('refuses a line longer than the limit without keeping it, and goes on', async () => {
    const long = 'x'.repeat(MAX_LINE_BYTES + 10);
    expect(await linesOf([long.slice(0, 40_000), long.slice(40_000), '\n{"ok":1}\n'])).toEqual([
      { line: 1, error: `longer than ${MAX_LINE_BYTES} bytes` },
      { line: 2, text: '{"ok":1}' },
    ]);
  });
});

it('a time from a clock ahead is refused, naming how far: a heartbeat dated tomorrow would hide the true ones', () => {
  const tomorrow = new Date(Date.now() + 86_400_000).toISOString();
  expect(reason(JSON.stringify({ ...GOOD.heartbeat, time: tomorrow }))).toMatch(
    /^time: is .*, (1 d 0 h|23 h 59 min) ahead of the writer's clock/,
  );
  expect(reason(JSON.stringify({ ...GOOD.open, openTime: tomorrow }))).toMatch(/^openTime: is .* ahead of the writer's clock/);
  expect(reason(JSON.stringify({ ...GOOD.balance, time: tomorrow }))).toMatch(/^time: is .* ahead/);
  expect(reason(JSON.stringify({ ...GOOD.gone, time: tomorrow }))).toMatch(/^time: is .* ahead/);
  // A few minutes of drift are forgiven.
  expect(reason(JSON.stringify({ ...GOOD.heartbeat, time: new Date(Date.now() + 60_000).toISOString() }))).toBeUndefined();
});
