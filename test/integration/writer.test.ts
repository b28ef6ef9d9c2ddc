/**
 * The bot's writer against DynamoDB Local, read back through the API's handlers: every call is whole or absent,
 * repeating it changes nothing, closed is final, and the figures the API shows follow the writes exactly.
 */
import { generateDataset } from '../../scripts/demo/dataset';
import { localWriter } from '../../scripts/support/load-data';
import { localStore } from '../../scripts/local-stack/local-db';
import { eventFor, type Harness, invoke, startHarness } from '../kit/api-harness';
import { expectContract } from '../kit/contract';
import { outcomes } from '../kit/expected';

jest.setTimeout(60_000);

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness();
});
afterAll(() => harness.close());

const ACCOUNT = { name: 'Writer test', currency: 'USD', broker: 'OANDA', environment: 'live' as const };
const OPEN = {
  instrument: 'EUR_USD',
  side: 'buy' as const,
  units: '10000',
  openPrice: '1.08420',
  openTime: '2026-11-20T09:00:00.000Z',
  stopLoss: '1.07000',
};
let counter = 0;
const newAccount = async () => {
  const id = `w-${++counter}`;
  await harness.writer.upsertAccount({ id, ...ACCOUNT, createdAt: '2026-11-01T00:00:00.000Z' });
  return id;
};

async function api(name: 'account-balance' | 'account-status' | 'account-trades', account: string, query: Record<string, string> = {}) {
  const template = {
    'account-balance': '/api/{account}/balance',
    'account-status': '/api/{account}/status',
    'account-trades': '/api/{account}/trades',
  }[name];
  const response = await invoke(name, eventFor(name, { account, query }));
  expectContract(template, response);
  return response.body;
}

async function snapshotOf(account: string) {
  return {
    balance: await api('account-balance', account),
    status: await api('account-status', account),
    trades: await api('account-trades', account, { limit: '500' }),
  };
}

async function rejects(run: Promise<unknown>, code: string, field?: string) {
  await expect(run).rejects.toMatchObject({ name: 'WriterError', code, ...(field ? { field } : {}) });
}

it('writes what the API shows: open, mark, close, snapshot, heartbeat', async () => {
  const id = await newAccount();
  expect(await api('account-balance', id)).toMatchObject({ balance: '0', realizedPL: '0', openTradeCount: 0 });
  expect(await harness.writer.openTrade(id, { id: 't-1', ...OPEN })).toBe('opened');
  expect(await harness.writer.updateTradeMarks(id, 't-1', { unrealizedPL: '-12.5', takeProfit: '1.10000' })).toBe('updated');
  let status = await api('account-status', id);
  expect(status).toMatchObject({ openTradeCount: 1, lastTradeAt: OPEN.openTime });
  expect((await api('account-trades', id, { status: 'open' })).trades).toEqual([
    expect.objectContaining({
      id: 't-1',
      status: 'open',
      unrealizedPL: '-12.5',
      stopLoss: '1.07000',
      takeProfit: '1.10000',
      realizedPL: '0',
    }),
  ]);

  const closeTime = '2026-11-20T11:30:00.000Z';
  expect(await harness.writer.closeTrade(id, 't-1', { closePrice: '1.08610', closeTime, realizedPL: '19.0000' })).toBe('closed');
  expect((await api('account-trades', id, { status: 'open' })).trades).toEqual([]);
  expect((await api('account-trades', id, { status: 'closed', instrument: 'EUR_USD' })).trades).toEqual([
    expect.objectContaining({ id: 't-1', status: 'closed', closePrice: '1.08610', closeTime, realizedPL: '19.0000', unrealizedPL: '0' }),
  ]);
  expect(await api('account-balance', id)).toMatchObject({
    balance: '19.0000',
    realizedPL: '19.0000',
    openTradeCount: 0,
    updatedAt: closeTime,
  });

  const figures = {
    balance: '10019.0000',
    unrealizedPL: '0',
    nav: '10019.0000',
    marginUsed: '0',
    marginAvailable: '10019.0000',
    time: '2026-11-20T12:00:00.000Z',
  };
  expect(await harness.writer.recordBalance(id, figures)).toBe('recorded');
  expect(await api('account-balance', id)).toMatchObject({
    balance: '10019.0000',
    nav: '10019.0000',
    realizedPL: '19.0000',
    openTradeCount: 0,
    updatedAt: figures.time,
  });

  expect(await harness.writer.heartbeat(id, { state: 'running', strategy: 'trend-h4', time: '2026-11-20T12:00:05.000Z' })).toBe('recorded');
  status = await api('account-status', id);
  expect(status).toMatchObject({
    state: 'running',
    strategy: 'trend-h4',
    message: null,
    lastHeartbeatAt: '2026-11-20T12:00:05.000Z',
    lastTradeAt: closeTime,
    openTradeCount: 0,
  });
});

it('repeating any call has no second effect', async () => {
  const id = await newAccount();
  expect(await harness.writer.upsertAccount({ id, ...ACCOUNT })).toBe('unchanged');
  expect(await harness.writer.upsertAccount({ id, ...ACCOUNT, name: 'Renamed' })).toBe('updated');
  await harness.writer.openTrade(id, { id: 't-1', ...OPEN });
  const close = { closePrice: '1.08610', closeTime: '2026-11-20T11:30:00.000Z', realizedPL: '19.0000' };
  await harness.writer.closeTrade(id, 't-1', close);
  const snapshot = {
    balance: '1',
    unrealizedPL: '0',
    nav: '1',
    marginUsed: '0',
    marginAvailable: '1',
    time: '2026-11-20T12:00:00.000Z',
  };
  await harness.writer.recordBalance(id, snapshot);
  const before = await snapshotOf(id);
  expect(await harness.writer.openTrade(id, { id: 't-1', ...OPEN })).toBe('unchanged');
  expect(await harness.writer.closeTrade(id, 't-1', close)).toBe('unchanged');
  expect(await harness.writer.recordBalance(id, snapshot)).toBe('stale');
  const results = await harness.writer.recordTrades(id, (await api('account-trades', id)).trades);
  expect(results.map((result) => ('outcome' in result ? result.outcome : result.error.code))).toEqual(['unchanged']);
  expect(await snapshotOf(id)).toEqual(before);
});

it('refuses what would break a rule, and writes nothing', async () => {
  const id = await newAccount();
  await harness.writer.openTrade(id, { id: 't-1', ...OPEN });
  const before = await snapshotOf(id);
  await rejects(harness.writer.openTrade(id, { id: 't-1', ...OPEN, units: '20000' }), 'TRADE_CONFLICT');
  await rejects(harness.writer.openTrade(id, { id: 't-2', ...OPEN, units: '1e5' }), 'INVALID_INPUT', 'units');
  await rejects(harness.writer.openTrade(id, { id: 't#3', ...OPEN }), 'INVALID_INPUT', 'id');
  await rejects(harness.writer.openTrade('nobody', { id: 't-4', ...OPEN }), 'ACCOUNT_NOT_FOUND');
  await rejects(
    harness.writer.closeTrade(id, 't-9', { closePrice: '1', closeTime: '2026-11-21T00:00:00.000Z', realizedPL: '0' }),
    'TRADE_NOT_FOUND',
  );
  await rejects(
    harness.writer.closeTrade(id, 't-1', { closePrice: '1', closeTime: '2026-11-20T08:00:00.000Z', realizedPL: '0' }),
    'INVALID_INPUT',
    'closeTime',
  );
  await rejects(harness.writer.upsertAccount({ id, ...ACCOUNT, currency: 'EUR' }), 'CURRENCY_MISMATCH', 'currency');
  await rejects(
    harness.writer.recordBalance(id, {
      balance: '1',
      unrealizedPL: '0',
      nav: '1',
      marginUsed: '0',
      marginAvailable: '1',
      time: '2026-11-20T12:00:00+01:00',
    }),
    'INVALID_INPUT',
    'time',
  );
  expect(await snapshotOf(id)).toEqual(before);

  await harness.writer.closeTrade(id, 't-1', { closePrice: '1.09', closeTime: '2026-11-21T00:00:00.000Z', realizedPL: '60' });
  const closed = await snapshotOf(id);
  // Closed is final: not again with other values, not its marks.
  await rejects(
    harness.writer.closeTrade(id, 't-1', { closePrice: '1.10', closeTime: '2026-11-21T00:00:00.000Z', realizedPL: '160' }),
    'TRADE_CLOSED',
  );
  await rejects(harness.writer.updateTradeMarks(id, 't-1', { unrealizedPL: '5' }), 'TRADE_CLOSED');
  await rejects(harness.writer.openTrade(id, { id: 't-1', ...OPEN, openPrice: '1.1' }), 'TRADE_CLOSED');
  expect(await snapshotOf(id)).toEqual(closed);
});

it('keeps late reports from turning the clock back', async () => {
  const id = await newAccount();
  await harness.writer.heartbeat(id, { state: 'running', time: '2026-11-20T12:00:10.000Z' });
  expect(await harness.writer.heartbeat(id, { state: 'error', message: 'late', time: '2026-11-20T12:00:00.000Z' })).toBe('stale');
  expect(await api('account-status', id)).toMatchObject({ state: 'running', lastHeartbeatAt: '2026-11-20T12:00:10.000Z' });
  const figures = { unrealizedPL: '0', marginUsed: '0' };
  await harness.writer.recordBalance(id, { ...figures, balance: '2', nav: '2', marginAvailable: '2', time: '2026-11-20T12:00:10.000Z' });
  expect(
    await harness.writer.recordBalance(id, { ...figures, balance: '1', nav: '1', marginAvailable: '1', time: '2026-11-20T12:00:00.000Z' }),
  ).toBe('stale');
  expect((await api('account-balance', id)).balance).toBe('2');
  // A repeat of the stored snapshot after a close moved the balance: the close stands.
  await harness.writer.openTrade(id, {
    id: 'r-1',
    instrument: 'EUR_USD',
    side: 'buy',
    units: '1',
    openPrice: '1',
    openTime: '2026-11-20T12:00:20.000Z',
  });
  await harness.writer.closeTrade(id, 'r-1', { closePrice: '4', closeTime: '2026-11-20T12:00:30.000Z', realizedPL: '3' });
  expect(
    await harness.writer.recordBalance(id, { ...figures, balance: '2', nav: '2', marginAvailable: '2', time: '2026-11-20T12:00:10.000Z' }),
  ).toBe('stale');
  expect((await api('account-balance', id)).balance).toBe('5');
});

it('two writers racing to close the same trade: exactly one wins, no counter drifts', async () => {
  const id = await newAccount();
  const rivals = [
    harness.writer,
    localWriter(harness.db.endpoint, { stage: harness.stage }),
    localWriter(harness.db.endpoint, { stage: harness.stage }),
  ];
  try {
    for (let round = 0; round < 5; round++) {
      await harness.writer.openTrade(id, { id: `r-${round}`, ...OPEN });
      const outcomes = await Promise.allSettled(
        rivals.map((writer, i) =>
          writer.closeTrade(id, `r-${round}`, { closePrice: '1.09', closeTime: '2026-11-21T00:00:00.000Z', realizedPL: `${i + 1}.00` }),
        ),
      );
      expect(
        outcomes.filter((outcome) => outcome.status === 'fulfilled').map((outcome) => (outcome as PromiseFulfilledResult<string>).value),
      ).toEqual(['closed']);
      for (const outcome of outcomes.filter((result) => result.status === 'rejected')) {
        expect((outcome as PromiseRejectedResult).reason).toMatchObject({ code: 'TRADE_CLOSED' });
      }
    }
    const balance = await api('account-balance', id);
    const closed = (await api('account-trades', id, { status: 'closed' })).trades as { realizedPL: string }[];
    expect(closed).toHaveLength(5);
    expect(balance.openTradeCount).toBe(0);
    const { sumDecimals } = await import('@trading-bot-api/core/decimal');
    expect(balance.realizedPL).toBe(sumDecimals(['0', ...closed.map((trade) => trade.realizedPL)]));
  } finally {
    for (const writer of rivals.slice(1)) writer.close();
  }
});

it('records a history in batches, and a second import of it changes nothing', async () => {
  // 120 trades: several of the writer's transactions (each at most 100 items), as a longer history would be.
  const dataset = generateDataset({ tradeCounts: [120], accountId: () => 'w-history', seed: 31 });
  await harness.writer.upsertAccount(dataset.accounts[0].account);
  const results = await harness.writer.recordTrades('w-history', dataset.trades);
  expect(outcomes(results)).toEqual(results.map(() => 'created'));
  const before = await snapshotOf('w-history');
  expect(before.balance).toMatchObject({
    realizedPL: dataset.accounts[0].balance.realizedPL,
    openTradeCount: dataset.accounts[0].balance.openTradeCount,
  });
  const again = await harness.writer.recordTrades('w-history', dataset.trades);
  expect(outcomes(again)).toEqual(again.map(() => 'unchanged'));
  expect(await snapshotOf('w-history')).toEqual(before);
});

it('a history recorded while a bot writes the same account: every total stays exact', async () => {
  // The history's transactions start from what the previous one stored; a bot's writes in between must make them
  // read again (their versions are conditions), never be overwritten.
  // 200 trades: several of the history's transactions, each followed by the bot's writes (more than three, asserted below).
  const dataset = generateDataset({ tradeCounts: [200], accountId: () => 'w-busy', seed: 57 });
  await harness.writer.upsertAccount(dataset.accounts[0].account);
  const closes = dataset.trades.filter((trade) => trade.status === 'closed').map((trade) => trade.closeTime!);
  const bot = localWriter(harness.db.endpoint, { stage: harness.stage });
  // The importer writes through a client of the test's own, which runs the bot's writes after each transaction.
  const { client } = localStore(harness.db.endpoint, harness.stage);
  const importer = localWriter(harness.db.endpoint, { stage: harness.stage, client });
  // After each of the history's transactions, the bot opens and closes a trade before the next one starts: closed in
  // the same day, week and month as the history's trades, so both change the balance and the same aggregates.
  let botTrades = 0;
  const botWrites = async () => {
    const i = botTrades++;
    const closeTime = closes[Math.floor((i * closes.length) / 12) % closes.length];
    await bot.openTrade('w-busy', { id: `live-${i}`, ...OPEN, openTime: new Date(Date.parse(closeTime) - 60_000).toISOString() });
    await bot.closeTrade('w-busy', `live-${i}`, { closePrice: '1.09', closeTime, realizedPL: `${i % 2 ? '-' : ''}${i}.0${i}` });
  };
  const watched = client as { send: (command: object, ...rest: unknown[]) => Promise<unknown> };
  const send = watched.send.bind(watched);
  watched.send = async (command, ...rest) => {
    const answer = await send(command, ...rest);
    if (command.constructor.name === 'TransactWriteCommand') await botWrites();
    return answer;
  };
  try {
    const results = await importer.recordTrades('w-busy', dataset.trades);
    expect(outcomes(results)).toEqual(results.map(() => 'created'));
    expect(botTrades).toBeGreaterThan(3);
  } finally {
    bot.close();
    importer.close();
    client.destroy();
  }

  const { sumDecimals } = await import('@trading-bot-api/core/decimal');
  const { periodStart, timestamp } = await import('@trading-bot-api/core/time');
  const trades: { status: string; realizedPL: string; closeTime: string | null }[] = [];
  let cursor: string | undefined;
  do {
    const page = await api('account-trades', 'w-busy', { limit: '500', ...(cursor ? { cursor } : {}) });
    trades.push(...page.trades);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  expect(trades).toHaveLength(dataset.trades.length + botTrades);
  const closed = trades.filter((trade) => trade.status === 'closed');
  const balance = await api('account-balance', 'w-busy');
  expect(balance.openTradeCount).toBe(trades.length - closed.length);
  expect(balance.realizedPL).toBe(sumDecimals(['0', ...closed.map((trade) => trade.realizedPL)]));
  for (const period of ['day', 'week', 'month'] as const) {
    const byStart = new Map<string, string[]>();
    for (const trade of closed) {
      const start = timestamp(periodStart(Date.parse(trade.closeTime!), period));
      byStart.set(start, [...(byStart.get(start) ?? []), trade.realizedPL]);
    }
    const { getAggregates } = await import('@trading-bot-api/core/store/ledger-table');
    const { pnl: stored } = await getAggregates(
      harness.store,
      'w-busy',
      [...byStart.keys()].map((start) => ({ period, start })),
      [],
    );
    expect(Object.fromEntries(stored.map((entry) => [entry.start, [entry.realizedPL, entry.tradesClosed]]))).toEqual(
      Object.fromEntries([...byStart].map(([start, amounts]) => [start, [sumDecimals(['0', ...amounts]), amounts.length]])),
    );
  }
});
