/**
 * Lines read again after the ingester stopped mid-batch, on DynamoDB Local through the real writer: a batch applied
 * whole and then read again, and one applied in part (cut at every line, and, in a property, stopped by the database
 * after a random number of transactions, as a kill leaves it) and then read again whole, end exactly as the batch
 * applied once, with the lines the store already showed counted `unchanged` and none rejected; read again without
 * being marked as a replay, the same lines are refused. A line refused for itself is refused again.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { applyEvents, changedSomething, DatabaseDown, type NumberedEvent } from '@trading-bot-api/feeds/ingest/apply';
import { parseLine } from '@trading-bot-api/feeds/ingest/lines';
import type { Writer } from '@trading-bot-api/writer';
import { type Harness, startHarness } from '../kit/api-harness';
import { FaultProxy, impatientWriter } from '../kit/fault-proxy';
import { propertyRuns } from '../kit/property-runs';

jest.setTimeout(300_000);

let harness: Harness;
let proxy: FaultProxy;
let viaProxy: Writer;

beforeAll(async () => {
  harness = await startHarness();
  proxy = await new FaultProxy(harness.db.endpoint).start();
  viaProxy = impatientWriter(proxy.endpoint, harness.stage);
});
afterEach(() => proxy.clear());
afterAll(async () => {
  viaProxy?.close();
  await proxy?.close();
  await harness?.close();
});

const time = (minute: number) => new Date(Date.parse('2026-11-20T00:00:00.000Z') + minute * 60_000).toISOString();

/** A batch's lines for `account`, numbered from 1, marked as read again or not. */
function batch(account: string, values: object[], replay = false): NumberedEvent[] {
  return values.map((value, index) => ({
    line: index + 1,
    event: parseLine(JSON.stringify({ account, ...value })),
    ...(replay ? { replay: true } : {}),
  }));
}

interface Outcome {
  written: number;
  unchanged: number;
  rejected: string[];
}

async function apply(entries: NumberedEvent[], writer: Writer = harness.writer): Promise<Outcome> {
  const outcome: Outcome = { written: 0, unchanged: 0, rejected: [] };
  for (const result of await applyEvents(writer, entries)) {
    if ('error' in result) outcome.rejected.push(`line ${result.line}: ${result.error.code}`);
    else if (changedSomething(result.outcome)) outcome.written += 1;
    else outcome.unchanged += 1;
  }
  return outcome;
}

/**
 * What an account's lines left in the tables, its id taken out so two accounts compare: trades, ledger (P&L, stats,
 * equity, trade ids), balance, profile and bot report. Item versions count writes, not state, and are left out; so
 * is when the fleet's stamp of the bot must be written again, which depends on which heartbeat wrote it.
 */
async function stateOf(account: string) {
  const query = (table: string) =>
    harness.store.client.send(
      new QueryCommand({
        TableName: `trading-bot-api-${harness.stage}-${table}`,
        KeyConditionExpression: 'accountId = :a',
        ExpressionAttributeValues: { ':a': account },
        ConsistentRead: true,
      }),
    );
  const [trades, ledger, balances, accounts] = await Promise.all(['trades', 'ledger', 'balances', 'accounts'].map(query));
  const items = (output: { Items?: Record<string, unknown>[] }) =>
    (output.Items ?? []).map(({ version: _version, botRestampBy: _restamp, ...item }) => item);
  const state = { trades: items(trades), ledger: items(ledger), balances: items(balances), accounts: items(accounts) };
  return JSON.parse(JSON.stringify(state).replaceAll(account, 'ACCOUNT'));
}

const account = (name: string) => ({ type: 'account', name, currency: 'USD', broker: 'Test', environment: 'paper', createdAt: time(0) });
const open = (id: string, minute: number) => ({
  type: 'open',
  id,
  instrument: 'EUR_USD',
  side: 'buy',
  units: '1000',
  openPrice: '1.0842',
  openTime: time(minute),
  stopLoss: '1.07',
});
const marks = (id: string, fields: object) => ({ type: 'marks', id, ...fields });
const close = (id: string, minute: number, realizedPL: string) => ({
  type: 'close',
  id,
  closePrice: '1.0853',
  closeTime: time(minute),
  realizedPL,
});
const balance = (minute: number, amount: string) => ({
  type: 'balance',
  balance: amount,
  unrealizedPL: '0',
  nav: amount,
  marginUsed: '0',
  marginAvailable: amount,
  time: time(minute),
});
const heartbeat = (minute: number, state = 'running') => ({ type: 'heartbeat', state, time: time(minute) });

/** An hour of a bot, where every line changes something: trades opening, changing, closing, among snapshots and heartbeats. */
const HOUR = [
  account('Replayed'),
  open('t1', 1),
  heartbeat(1),
  open('t2', 2),
  marks('t1', { unrealizedPL: '1.5' }),
  balance(3, '1000'),
  marks('t1', { units: '500', openPrice: '1.0850', unrealizedPL: '2' }),
  marks('t2', { unrealizedPL: '-1' }),
  close('t1', 5, '3.25'),
  heartbeat(5, 'paused'),
  open('t3', 6),
  balance(7, '1003.25'),
  marks('t2', { stopLoss: '1.05', unrealizedPL: '-2' }),
  close('t2', 8, '-1.75'),
  marks('t3', { unrealizedPL: '4' }),
  heartbeat(9),
];

describe('a batch read again after it was applied whole', () => {
  it('is all unchanged, nothing rejected and nothing written; not marked as read again, lines the batch moved past are refused', async () => {
    expect(await apply(batch('twice', HOUR))).toEqual({ written: HOUR.length, unchanged: 0, rejected: [] });
    const before = await stateOf('twice');
    expect(await apply(batch('twice', HOUR, true))).toEqual({ written: 0, unchanged: HOUR.length, rejected: [] });
    expect(await stateOf('twice')).toEqual(before);
    // What the fault-injection run saw: the open of a trade whose units changed since, marks of trades closed since.
    const unmarked = await apply(batch('twice', HOUR));
    expect(unmarked.rejected).toEqual([
      'line 2: TRADE_CLOSED',
      'line 5: TRADE_CLOSED',
      'line 7: TRADE_CLOSED',
      'line 8: TRADE_CLOSED',
      'line 13: TRADE_CLOSED',
    ]);
    expect(await stateOf('twice')).toEqual(before);
  });
});

describe('a batch applied up to a line and read again whole', () => {
  it('at every line: the lines applied are unchanged, the rest written, none rejected, and it ends as the batch applied once', async () => {
    await apply(batch('once', HOUR));
    const once = await stateOf('once');
    for (let cut = 0; cut <= HOUR.length; cut++) {
      const name = `cut-${cut}`;
      if (cut) await apply(batch(name, HOUR.slice(0, cut)));
      expect([cut, await apply(batch(name, HOUR, true))]).toEqual([cut, { written: HOUR.length - cut, unchanged: cut, rejected: [] }]);
      expect([cut, await stateOf(name)]).toEqual([cut, once]);
    }
  });
});

it('a line refused for itself is refused again when its batch is read again, and the others are unchanged', async () => {
  const lines = [
    account('Refusals'),
    open('r1', 1),
    close('r1', 2, '5'),
    marks('r1', { unrealizedPL: '9' }),
    { ...open('r1', 1), units: '2000' },
    { ...open('r1', 3) },
    close('never-opened', 3, '1'),
    close('r1', 4, '6'),
    { ...close('r1', 0, '5') },
    open('r2', 5),
  ];
  const refused = [
    'line 4: TRADE_CLOSED',
    'line 5: TRADE_CLOSED',
    'line 6: TRADE_CLOSED',
    'line 7: TRADE_NOT_FOUND',
    'line 8: TRADE_CLOSED',
  ];
  expect(await apply(batch('refusals', lines))).toMatchObject({ rejected: [...refused, 'line 9: INVALID_INPUT'] });
  expect(await apply(batch('refusals', lines, true))).toEqual({
    written: 0,
    unchanged: lines.length - refused.length - 1,
    rejected: [...refused, 'line 9: INVALID_INPUT'],
  });
});

/** Streams of lines, interleaved: each trade's (open, marks, maybe a close), snapshots and heartbeats. */
const hourOfTrades = fc
  .record({
    trades: fc.array(
      fc.record({
        marks: fc.array(fc.record({ units: fc.boolean(), stopLoss: fc.boolean() }), { maxLength: 3 }),
        closes: fc.boolean(),
      }),
      { minLength: 1, maxLength: 4 },
    ),
    snapshots: fc.nat({ max: 3 }),
    heartbeats: fc.nat({ max: 3 }),
    order: fc.array(fc.nat(), { maxLength: 40 }),
    transactions: fc.nat({ max: 30 }),
  })
  .map(({ trades, snapshots, heartbeats, order, transactions }) => {
    type Make = (minute: number, value: number) => object;
    const streams: Make[][] = trades.map(({ marks: changes, closes }, index) => {
      const id = `p${index}`;
      return [
        (minute) => open(id, minute),
        ...changes.map(
          ({ units, stopLoss }): Make =>
            (_, value) =>
              marks(id, {
                unrealizedPL: `${value}.5`,
                ...(units ? { units: `${100 + value}` } : {}),
                ...(stopLoss ? { stopLoss: `1.0${value}` } : {}),
              }),
        ),
        ...(closes ? [(minute: number, value: number): object => close(id, minute, `${value}.25`)] : []),
      ];
    });
    streams.push(Array.from({ length: snapshots }, () => (minute: number, value: number) => balance(minute, `${1000 + value}`)));
    streams.push(Array.from({ length: heartbeats }, () => (minute: number) => heartbeat(minute)));
    const lines: object[] = [account('Property')];
    for (let step = 0; streams.some((stream) => stream.length); step++) {
      const open = streams.filter((stream) => stream.length);
      const make = open[(order[step] ?? 0) % open.length].shift()!;
      // Each line's minute and value are its own: times increase, and no two lines set a field to the same value.
      lines.push(make(lines.length, lines.length));
    }
    return { lines, transactions };
  });

it('property: a batch stopped by the database after any number of transactions and read again whole ends as the batch applied once, with nothing rejected', async () => {
  let run = 0;
  await fc.assert(
    fc.asyncProperty(hourOfTrades, async ({ lines, transactions }) => {
      run += 1;
      const [once, stopped] = [`prop-${run}-once`, `prop-${run}-stopped`];
      expect((await apply(batch(once, lines))).rejected).toEqual([]);
      // The database stops answering after `transactions` transactions: the batch is applied in part, as a kill
      // leaves it (the writer gives up on throttling after its retries), or whole when it needed no more.
      proxy.seen.length = 0;
      await proxy.inject({ kind: 'throttle', error: 'ThrottlingException' }, Infinity, { only: 'TransactWriteItems', after: transactions });
      const stop = await apply(batch(stopped, lines), viaProxy).then(
        () => 'whole',
        (error) => {
          if (!(error instanceof DatabaseDown)) throw error;
          return 'part';
        },
      );
      await proxy.clear();
      const again = await apply(batch(stopped, lines, true));
      expect(again.rejected).toEqual([]);
      expect(again.written + again.unchanged).toBe(lines.length);
      expect(await stateOf(stopped)).toEqual(await stateOf(once));
      // What was applied before the stop (the account's creation first) is counted unchanged; all of it when whole.
      if (stop === 'whole') expect(again.unchanged).toBe(lines.length);
      else if (transactions > 0) expect(again.unchanged).toBeGreaterThan(0);
    }),
    { numRuns: propertyRuns(6) },
  );
});
