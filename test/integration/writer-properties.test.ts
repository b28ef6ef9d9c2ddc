/**
 * Property-based, on DynamoDB Local: random sequences of writer calls from three writers at once, over a flaky
 * network (a share of requests throttled before they reach the database, a share applied and then their answer
 * lost, so the SDK retries requests that took effect), with calls repeated at random as a bot repeats a call after a
 * timeout. Afterwards every rule the read API relies on holds, read through the API's own handlers: each listing
 * equals the model built from the calls that succeeded (API 1.5's fees, order ids, market, leverage and close reason
 * included), the counters and exact sums equal the model's, each P&L aggregate equals the sum over its trades, the
 * fees the performance counts are the trades' own, and the latest heartbeat and snapshot win.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { sumDecimals, trimDecimal } from '@trading-bot-api/core/decimal';
import { periodStart, PERIODS, timestamp } from '@trading-bot-api/core/time';
import type { Trade } from '@trading-bot-api/core/types';
import type { CloseTrade, OpenTrade, Writer } from '@trading-bot-api/writer';
import { localWriter } from '../../scripts/support/load-data';
import { eventFor, type Harness, invoke, startHarness } from '../kit/api-harness';
import { expectedTrades } from '../kit/expected';
import { FaultProxy } from '../kit/fault-proxy';
import { propertyRuns } from '../kit/property-runs';

jest.setTimeout(600_000);

let harness: Harness;
let proxy: FaultProxy;
let writers: Writer[];

beforeAll(async () => {
  harness = await startHarness();
  proxy = await new FaultProxy(harness.db.endpoint).start();
  writers = [0, 1, 2].map(() => localWriter(proxy.endpoint, { stage: harness.stage }));
});
afterAll(async () => {
  for (const writer of writers ?? []) writer.close();
  await proxy?.close();
  await harness?.close();
});

const IDS = ['x1', 'x2', 'x3', 'x4', 'x5', 'x6'];
// One opening says its fees, market, leverage and order; the other says none of it (unknown).
const OPENINGS: Omit<OpenTrade, 'id' | 'openTime'>[] = [
  {
    instrument: 'EUR_USD',
    side: 'buy',
    units: '1000',
    openPrice: '1.08420',
    market: 'margin',
    leverage: '30',
    fees: [{ amount: '0.05', currency: 'USD' }],
    orderIds: ['o-1'],
  },
  { instrument: 'XAU_USD', side: 'sell', units: '2', openPrice: '2341.50' },
];
// Around a month's, a year's and an ISO week's end: 2020-12-31 is a Thursday, 2021-01-04 a Monday (in the past: the writer refuses times ahead of its clock).
// Closes with their fees in the account's currency or in BNB, none, or unsaid; why; and the closing order.
const CLOSES: CloseTrade[] = [
  {
    closePrice: '1.08610',
    closeTime: '2020-12-31T23:30:00.000Z',
    realizedPL: '12.3456',
    fees: [{ amount: '0.0512', currency: 'USD' }],
    reason: 'take_profit',
    orderIds: ['o-2'],
  },
  { closePrice: '1.08000', closeTime: '2021-01-01T00:30:00.000Z', realizedPL: '-0.0001', fees: [{ amount: '0.00002', currency: 'BNB' }] },
  {
    closePrice: '1.20000',
    closeTime: '2021-01-04T10:00:00.000Z',
    realizedPL: '98765432109876543210.12345',
    fees: [],
    reason: 'exit_signal',
  },
  { closePrice: '1.08420', closeTime: '2021-01-04T11:00:00.000Z', realizedPL: '0' },
];
const openTimeOf = (id: string) => `2020-12-30T10:0${IDS.indexOf(id)}:00.000Z`;

type Command =
  | { op: 'open'; account: number; id: string; variant: number }
  | { op: 'close'; account: number; id: string; variant: number }
  | { op: 'marks'; account: number; id: string; value: string }
  | { op: 'snapshot'; account: number; minute: number; nav: string }
  | { op: 'heartbeat'; account: number; minute: number; state: 'running' | 'paused' | 'error' }
  | { op: 'bad'; account: number; id: string };

const account = fc.integer({ min: 0, max: 1 });
const id = fc.constantFrom(...IDS);
const command: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({ op: fc.constant('open' as const), account, id, variant: fc.integer({ min: 0, max: OPENINGS.length - 1 }) }),
  },
  {
    weight: 3,
    arbitrary: fc.record({ op: fc.constant('close' as const), account, id, variant: fc.integer({ min: 0, max: CLOSES.length - 1 }) }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('marks' as const), account, id, value: fc.constantFrom('-3.5', '7', '0.00001') }) },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('snapshot' as const),
      account,
      minute: fc.integer({ min: 0, max: 150 }),
      nav: fc.constantFrom('10000.00', '9999.99', '123456789012345678901.5'),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('heartbeat' as const),
      account,
      minute: fc.integer({ min: 0, max: 150 }),
      state: fc.constantFrom('running' as const, 'paused' as const, 'error' as const),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('bad' as const), account, id }) },
);
/** Three lanes of calls run side by side; each call may be repeated (a retry after a timeout). */
const lanes = fc.array(fc.array(fc.record({ command, repeat: fc.boolean() }), { maxLength: 12 }), { minLength: 3, maxLength: 3 });

/** A paper account in USD, named by its id. */
const testAccount = (id: string) =>
  ({ id, name: id, currency: 'USD', broker: 'Test', environment: 'paper', createdAt: '2020-12-01T00:00:00.000Z' }) as const;

const at = (minute: number) => new Date(Date.parse('2021-01-04T09:00:00.000Z') + minute * 60_000).toISOString();

async function perform(writer: Writer, accountId: string, command: Command): Promise<string> {
  // A bot retries a call the database could not take: retrying is safe, so the test does it until it is taken.
  for (let attempt = 0; ; attempt++) {
    try {
      switch (command.op) {
        case 'open':
          return await writer.openTrade(accountId, { id: command.id, ...OPENINGS[command.variant], openTime: openTimeOf(command.id) });
        case 'close':
          return await writer.closeTrade(accountId, command.id, CLOSES[command.variant]);
        case 'marks':
          return await writer.updateTradeMarks(accountId, command.id, { unrealizedPL: command.value });
        case 'snapshot':
          return await writer.recordBalance(accountId, {
            balance: '10000.00',
            unrealizedPL: '-1.5',
            nav: command.nav,
            marginUsed: '50',
            marginAvailable: '9950',
            time: at(command.minute),
          });
        case 'heartbeat':
          return await writer.heartbeat(accountId, { state: command.state, time: at(command.minute) });
        case 'bad':
          return await writer.openTrade(accountId, { id: `${command.id}#bad`, ...OPENINGS[0], openTime: openTimeOf(command.id) });
      }
    } catch (error) {
      const code = (error as { code?: string }).code;
      // Both mean nothing was written and the same call may be made again: the database did not answer, or other
      // writers kept changing the balance for all of the writer's tries (a loaded 2-core CI machine, three lanes).
      if ((code === 'UNAVAILABLE' || code === 'WRITE_CONFLICT') && attempt < 30) continue;
      if (code) return code;
      throw error;
    }
  }
}

async function api(
  name: 'account-balance' | 'account-status' | 'account-trades' | 'all-trades',
  account: string | undefined,
  query: Record<string, string> = {},
) {
  const response = await invoke(name, eventFor(name, { account, query }));
  expect(response.statusCode).toBe(200);
  return response.body;
}

async function listAll(
  name: 'account-trades' | 'all-trades',
  account: string | undefined,
  query: Record<string, string>,
): Promise<Trade[]> {
  const trades: Trade[] = [];
  let cursor: string | undefined;
  do {
    const body = await api(name, account, { ...query, limit: '7', ...(cursor ? { cursor } : {}) });
    trades.push(...body.trades);
    cursor = body.nextCursor ?? undefined;
  } while (cursor);
  return trades;
}

let run = 0;

it('after any interleaving of calls, retries and failures, every rule holds as the API reads it', async () => {
  await fc.assert(
    fc.asyncProperty(lanes, fc.integer({ min: 1, max: 2 ** 30 }), async (plan, seed) => {
      run += 1;
      const accounts = [`p${run}-a`, `p${run}-b`];
      for (const accountId of accounts) {
        await harness.writer.upsertAccount(testAccount(accountId));
      }
      await proxy.inject({ kind: 'chaos', throttle: 0.08, dropAnswer: 0.08, seed });
      const results = await Promise.all(
        plan.map(async (lane, laneIndex) => {
          const done: { command: Command; outcome: string }[] = [];
          for (const { command, repeat } of lane) {
            for (let time = 0; time < (repeat ? 2 : 1); time++) {
              done.push({ command, outcome: await perform(writers[laneIndex], accounts[command.account], command) });
            }
          }
          return done;
        }),
      );
      await proxy.clear();

      // The model: what the calls that succeeded say must be stored.
      const calls = results.flat();
      for (const { command, outcome } of calls) {
        const allowed: Record<Command['op'], string[]> = {
          open: ['opened', 'unchanged', 'TRADE_CONFLICT', 'TRADE_CLOSED'],
          close: ['closed', 'unchanged', 'TRADE_CLOSED', 'TRADE_NOT_FOUND'],
          marks: ['updated', 'unchanged', 'TRADE_CLOSED', 'TRADE_NOT_FOUND'],
          snapshot: ['recorded', 'stale'],
          heartbeat: ['recorded', 'stale'],
          bad: ['INVALID_INPUT'],
        };
        expect(allowed[command.op]).toContain(outcome);
      }
      for (const [index, accountId] of accounts.entries()) {
        const mine = calls.filter(({ command }) => command.account === index);
        const model = new Map<string, Trade>();
        const marks = new Map<string, Set<string>>();
        for (const tradeId of IDS) {
          const opens = new Set(
            mine
              .filter(
                ({ command, outcome }) => command.op === 'open' && command.id === tradeId && ['opened', 'unchanged'].includes(outcome),
              )
              .map(({ command }) => (command as { variant: number }).variant),
          );
          const closes = new Set(
            mine
              .filter(
                ({ command, outcome }) => command.op === 'close' && command.id === tradeId && ['closed', 'unchanged'].includes(outcome),
              )
              .map(({ command }) => (command as { variant: number }).variant),
          );
          // One opening and at most one close per id ever succeeded; a close needs an open.
          expect(opens.size).toBeLessThanOrEqual(1);
          expect(closes.size).toBeLessThanOrEqual(1);
          if (!opens.size) {
            expect(closes.size).toBe(0);
            continue;
          }
          const opening = OPENINGS[[...opens][0]];
          const close = closes.size ? CLOSES[[...closes][0]] : undefined;
          // Written independently of the writer's rules: an opening's fees, then its close's (all the trade's, when the
          // opening said none); the order ids of both; why it closed.
          const openFees = opening.fees ? opening.fees.map((fee) => ({ ...fee, leg: 'open' as const })) : null;
          const closeFees = close?.fees ? close.fees.map((fee) => ({ ...fee, leg: 'close' as const })) : null;
          const fees = closeFees ? [...(openFees ?? []), ...closeFees] : openFees;
          const orderIds = [...(opening.orderIds ?? []), ...(close?.orderIds ?? [])];
          model.set(tradeId, {
            id: tradeId,
            accountId,
            instrument: opening.instrument,
            units: opening.units,
            openPrice: opening.openPrice,
            side: opening.side,
            status: close ? 'closed' : 'open',
            openTime: openTimeOf(tradeId),
            closePrice: close?.closePrice ?? null,
            closeTime: close?.closeTime ?? null,
            realizedPL: close?.realizedPL ?? '0',
            unrealizedPL: '0',
            stopLoss: null,
            takeProfit: null,
            closeReason: close?.reason ?? null,
            currency: 'USD',
            market: opening.market ?? null,
            leverage: opening.leverage ?? null,
            fees,
            feeTotal: fees && !fees.some((fee) => fee.currency !== 'USD') ? sumDecimals(['0', ...fees.map((fee) => fee.amount)]) : null,
            fundingFees: null,
            liquidationPrice: null,
            orderIds: orderIds.length ? orderIds : null,
          });
          marks.set(
            tradeId,
            new Set([
              '0',
              ...mine
                .filter(
                  ({ command, outcome }) => command.op === 'marks' && command.id === tradeId && ['updated', 'unchanged'].includes(outcome),
                )
                .map(({ command }) => (command as { value: string }).value),
            ]),
          );
        }

        // Listings: the account's, under every filter, equal the model; an open trade's unrealizedPL is one that was set.
        const stored = await listAll('account-trades', accountId, {});
        for (const trade of stored) {
          if (trade.status === 'open') expect(marks.get(trade.id)).toContain(trade.unrealizedPL);
        }
        const expected = [...model.values()].map((trade) => ({
          ...trade,
          unrealizedPL: trade.status === 'open' ? (stored.find((s) => s.id === trade.id)?.unrealizedPL ?? '0') : '0',
        }));
        expect(stored).toEqual(expectedTrades(expected, {}));
        for (const status of [undefined, 'open', 'closed']) {
          for (const instrument of [undefined, 'EUR_USD', 'XAU_USD']) {
            const query = { ...(status ? { status } : {}), ...(instrument ? { instrument } : {}) };
            expect(await listAll('account-trades', accountId, query)).toEqual(expectedTrades(expected, { status, instrument }));
            const all = (await listAll('all-trades', undefined, query)).filter((trade) => trade.accountId === accountId);
            expect(all).toEqual(expectedTrades(expected, { status, instrument }));
          }
        }

        // Counters and exact sums.
        const closed = expected.filter((trade) => trade.status === 'closed');
        const balance = await api('account-balance', accountId);
        expect(balance.openTradeCount).toBe(expected.filter((trade) => trade.status === 'open').length);
        expect(balance.realizedPL).toBe(sumDecimals(['0', ...closed.map((trade) => trade.realizedPL)]));
        const times = expected.flatMap((trade) => [trade.openTime, ...(trade.closeTime ? [trade.closeTime] : [])]).sort();
        const status = await api('account-status', accountId);
        expect(status.lastTradeAt).toBe(times.length ? times[times.length - 1] : null);
        expect(status.openTradeCount).toBe(balance.openTradeCount);

        // The latest heartbeat and snapshot that were recorded are the ones stored.
        const beats = mine
          .filter(({ command, outcome }) => command.op === 'heartbeat' && outcome === 'recorded')
          .map(({ command }) => at((command as { minute: number }).minute))
          .sort();
        if (beats.length) expect(status.lastHeartbeatAt).toBe(beats[beats.length - 1]);
        const snapshots = mine
          .filter(({ command, outcome }) => command.op === 'snapshot' && outcome === 'recorded')
          .map(({ command }) => command as { minute: number; nav: string });
        const latest = snapshots.reduce<{ minute: number; nav: string } | undefined>(
          (best, snap) => (!best || snap.minute > best.minute ? snap : best),
          undefined,
        );
        if (latest) expect(balance).toMatchObject({ nav: latest.nav, unrealizedPL: '-1.5', marginUsed: '50' });

        // The fees the performance counts are the closed trades' own: in USD, paid where known; the rest counted.
        const performance = await invoke(
          'account-performance',
          eventFor('account-performance', { account: accountId, query: { from: '2020-12-31T00:00:00Z', to: '2021-01-05T00:00:00Z' } }),
        );
        expect(performance.statusCode).toBe(200);
        const [figures] = performance.body.currencies;
        const usd = closed.flatMap((trade) => (trade.fees ?? []).filter((fee) => fee.currency === 'USD').map((fee) => fee.amount));
        expect(figures ?? { feesPaid: '0', tradesWithUnknownFees: 0, tradesWithOtherCurrencyFees: 0 }).toMatchObject({
          feesPaid: trimDecimal(sumDecimals(['0', ...usd])),
          tradesWithUnknownFees: closed.filter((trade) => trade.fees === null).length,
          tradesWithOtherCurrencyFees: closed.filter((trade) => trade.fees?.some((fee) => fee.currency !== 'USD')).length,
        });

        // Each P&L aggregate is the exact sum over the closed trades of its period; each equity bucket holds its latest snapshot.
        const ledger = await harness.store.client.send(
          new QueryCommand({
            TableName: harness.store.tables.ledger,
            KeyConditionExpression: 'accountId = :a',
            ExpressionAttributeValues: { ':a': accountId },
            ConsistentRead: true,
          }),
        );
        const entries = ledger.Items ?? [];
        for (const period of PERIODS) {
          const groups = new Map<string, Trade[]>();
          for (const trade of closed) {
            const start = timestamp(periodStart(Date.parse(trade.closeTime!), period));
            groups.set(start, [...(groups.get(start) ?? []), trade]);
          }
          const stored = entries.filter((entry) => entry.period === period);
          expect(stored.map((entry) => entry.start).sort()).toEqual([...groups.keys()].sort());
          for (const [start, trades] of groups) {
            expect(stored.find((entry) => entry.start === start)).toMatchObject({
              realizedPL: sumDecimals(['0', ...trades.map((trade) => trade.realizedPL)]),
              tradesClosed: trades.length,
              wins: trades.filter((trade) => !trade.realizedPL.startsWith('-') && /[1-9]/.test(trade.realizedPL)).length,
              losses: trades.filter((trade) => trade.realizedPL.startsWith('-') && /[1-9]/.test(trade.realizedPL)).length,
            });
          }
        }
        for (const interval of ['hour', 'day'] as const) {
          const buckets = new Map<string, string>();
          for (const snap of snapshots) {
            const time = at(snap.minute);
            const start = timestamp(periodStart(Date.parse(time), interval));
            if (!buckets.has(start) || time > buckets.get(start)!) buckets.set(start, time);
          }
          const stored = entries.filter((entry) => entry.interval === interval);
          expect(Object.fromEntries(stored.map((entry) => [entry.start, entry.time]))).toEqual(Object.fromEntries(buckets));
        }
      }
    }),
    { numRuns: propertyRuns(8) },
  );
  // The network was flaky for real: answers were lost after their requests took effect.
  expect(proxy.dropped).toBeGreaterThan(0);
});

it('a heartbeat of a new state whose write took effect and lost its answer is recorded, not stale, when retried', async () => {
  const accountId = 'lost-answer';
  const [writer] = writers;
  await writer.upsertAccount(testAccount(accountId));
  expect(await writer.heartbeat(accountId, { state: 'paused', time: at(0) })).toBe('recorded');
  // The second UpdateItem (the first tries the state stored, and is refused) is the change of state: applied, its answer lost.
  await proxy.inject({ kind: 'chaos', throttle: 0, dropAnswer: 1, seed: 1 }, 1, { only: 'UpdateItem', after: 1 });
  const dropped = proxy.dropped;
  expect(await writer.heartbeat(accountId, { state: 'running', time: at(1) })).toBe('recorded');
  await proxy.clear();
  expect(proxy.dropped).toBe(dropped + 1);
  expect(await api('account-status', accountId)).toMatchObject({ state: 'running', lastHeartbeatAt: at(1) });
});
