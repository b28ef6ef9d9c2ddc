/**
 * The demo bot (what `npm start` and `npm run demo-bot` run) over the demo accounts, on a fast clock: it opens, marks
 * and closes trades, records balances and heartbeats through the writer, and leaves every figure the API shows
 * consistent. Which state each account reports over time is checked as a pure schedule.
 */
import { decimalScale, decimalSign, sumDecimals } from '@trading-bot-api/core/decimal';
import type { Trade } from '@trading-bot-api/core/types';
import { demoDataset, placesOf } from '../../scripts/demo/dataset';
import { DemoBot, reportFor } from '../../scripts/demo/demo-bot';
import { eventFor, type Harness, invoke, startHarness } from '../kit/api-harness';
import { until } from '../kit/until';

jest.setTimeout(120_000);

let harness: Harness;
const started = new Date();

/**
 * The demo accounts as npm start loads them, each with its newest trades only (its open ones among them) and its last
 * snapshots, without the mirrored broker account: what the bot reads (the accounts, their balances and open trades)
 * and what the checks below compare (a balance against the listed trades, the states) hold for any history the writer
 * wrote, and loading the demo's whole 1,650 trades cost most of this file's time. npm start's tests load it whole.
 */
function newestOfDemo(dataset: ReturnType<typeof demoDataset>, trades = 30, snapshots = 10): ReturnType<typeof demoDataset> {
  const newest = (account: string) =>
    dataset.trades
      .filter((trade) => trade.accountId === account)
      .sort((a, b) => b.openTime.localeCompare(a.openTime))
      .slice(0, trades);
  const kept = dataset.accounts.map((entry) => ({ ...entry, history: entry.history.slice(-snapshots) }));
  return { accounts: kept, trades: kept.flatMap(({ account }) => newest(account.id)) };
}

beforeAll(async () => {
  harness = await startHarness();
  const dataset = demoDataset(started);
  const loaded = newestOfDemo(dataset);
  // Every open trade of the demo is among those loaded: the bot marks and closes the ones it finds.
  expect(loaded.trades.filter((trade) => trade.status === 'open')).toHaveLength(dataset.trades.filter((t) => t.status === 'open').length);
  await harness.load(loaded);
});
afterAll(() => harness.close());

const api = async (name: 'account-balance' | 'account-status' | 'account-trades', account: string, query: Record<string, string> = {}) =>
  (await invoke(name, eventFor(name, { account, query }))).body;

it('schedules each role’s reports: errors now and then, a lapse longer than the stale threshold, silence when stopped', () => {
  expect(reportFor('trading', 5, 60)).toEqual({ state: 'running', message: null });
  expect(reportFor('paused', 5, 60)?.state).toBe('paused');
  expect(reportFor('stopped', 5, 60)).toBeNull();
  expect(reportFor('flaky', 50, 60)?.state).toBe('running');
  expect(reportFor('flaky', 110, 60)).toEqual({ state: 'error', message: expect.any(String) });
  // Lapsing: 60 s of heartbeats, then silent for more than the threshold, then back.
  expect(reportFor('lapsing', 30, 60)?.state).toBe('running');
  const silent = [60, 100, 209].map((second) => reportFor('lapsing', second, 60));
  expect(silent).toEqual([null, null, null]);
  expect(reportFor('lapsing', 210, 60)?.state).toBe('running');
});

it('keeps each episode longer than npm start’s probe interval, so a probe every 60 s sees every one', () => {
  const seconds = Array.from({ length: 600 }, (_, second) => second);
  // The longest run of consecutive seconds for which `test` holds, over ten minutes.
  const longest = (test: (second: number) => boolean) =>
    seconds.reduce(({ run, best }, second) => (test(second) ? { run: run + 1, best: Math.max(best, run + 1) } : { run: 0, best }), {
      run: 0,
      best: 0,
    }).best;
  const inError = (second: number) => reportFor('flaky', second, 60)?.state === 'error';
  expect(longest(inError)).toBeGreaterThan(60);
  // Stale once silent for longer than the threshold: the silence must outlast the threshold by more than a probe.
  const silentFor = longest((second) => second >= 60 && reportFor('lapsing', second, 60) === null);
  expect(silentFor - 60).toBeGreaterThan(60);
});

it('trades live through the writer, and every figure stays consistent', async () => {
  const before = await api('account-trades', 'primary-usd', { limit: '1' });
  const bot = new DemoBot({
    writer: harness.writer,
    seed: 7,
    tickSeconds: 0.25,
    // A chance a tick as the bot had at 2 s ticks: at its rate per second, three opens would take some 20 s here.
    openChance: 0.09,
    heartbeatSeconds: 1,
    staleAfterSeconds: 60,
    holdSeconds: [1, 3],
  });
  await bot.load();
  bot.start();
  // Until it has traded enough to judge (polled: a fixed 15 s wait was most of this file's time), 30 s at most.
  const enough = () => bot.counts.opened >= 3 && bot.counts.closed >= 2 && bot.counts.snapshots > 20;
  let stopping = Date.now();
  try {
    await until(enough, 'three opens, two closes and 20 snapshots of the bot', { timeoutMs: 30_000, everyMs: 100 });
  } finally {
    stopping = Date.now();
    await bot.stop();
  }
  // Read at once: the heartbeats (one a second) stopped with the bot, and the checks below take seconds on a busy machine.
  const running = await api('account-status', 'primary-usd');
  // A heartbeat a second until the stop began: its age is at most the seconds since then, and a heartbeat's interval
  // and rounding more (a busy machine's stop and read take seconds of their own).
  const heartbeatBound = Math.ceil((Date.now() - stopping) / 1000) + 2;

  expect(bot.counts).toMatchObject({ errors: 0 });
  expect(bot.counts.opened).toBeGreaterThanOrEqual(3);
  expect(bot.counts.closed).toBeGreaterThanOrEqual(2);
  expect(bot.counts.snapshots).toBeGreaterThan(20);
  const newest = [
    ...(await api('account-trades', 'primary-usd', { limit: '1' })).trades,
    ...(await api('account-trades', 'paper-sandbox', { limit: '1' })).trades,
  ];
  expect(newest.some((trade: { id: string }) => trade.id.includes('-live-'))).toBe(true);
  expect(newest[0]).not.toEqual(before.trades[0]);

  let liveCloses = 0;
  for (const account of ['primary-usd', 'euro-swing', 'sterling-carry', 'gold-desk', 'paper-sandbox']) {
    const open: Trade[] = (await api('account-trades', account, { status: 'open', limit: '500' })).trades;
    const closed: Trade[] = [];
    let cursor: string | undefined;
    do {
      const page = await api('account-trades', account, { status: 'closed', limit: '500', ...(cursor ? { cursor } : {}) });
      closed.push(...page.trades);
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    const balance = await api('account-balance', account);
    expect(balance.openTradeCount).toBe(open.length);
    expect(balance.realizedPL).toBe(sumDecimals(['0', ...closed.map((trade) => trade.realizedPL)]));
    // Every amount the bot wrote has the account currency's places, as the demo data's do: each close's realized
    // P&L, each mark (a trade opened but not marked yet holds "0", as the writer stores it), each balance figure.
    const places = placesOf(balance.currency);
    expect(closed.filter((trade) => decimalScale(trade.realizedPL) !== places)).toEqual([]);
    liveCloses += closed.filter((trade) => trade.id.includes('-live-')).length;
    expect(open.filter((trade) => trade.unrealizedPL !== '0' && decimalScale(trade.unrealizedPL) !== places)).toEqual([]);
    const figures = [balance.balance, balance.unrealizedPL, balance.nav, balance.marginUsed, balance.marginAvailable];
    expect(figures.filter((figure) => decimalScale(figure) !== places)).toEqual([]);
    // No unrealized P&L or margin without an open trade.
    if (!open.length) expect([balance.unrealizedPL, balance.marginUsed].map(decimalSign)).toEqual([0, 0]);
  }
  // The checks above saw the bot's own closes, not only the demo data's.
  expect(liveCloses).toBeGreaterThan(0);
  expect(running).toMatchObject({ state: 'running', stale: false });
  expect(running.heartbeatAgeSeconds).toBeLessThanOrEqual(heartbeatBound);
  expect((await api('account-status', 'euro-swing')).state).toBe('paused');
  // The stopped bot stays silent: its last report is the demo data's, and it opened nothing since, nor holds anything.
  const stopped = await api('account-status', 'gold-desk');
  expect(stopped.state).toBe('stopped');
  expect(Date.parse(stopped.lastHeartbeatAt)).toBeLessThan(started.getTime());
  expect(stopped.openTradeCount).toBe(0);
  expect(Date.parse(stopped.lastTradeAt)).toBeLessThanOrEqual(Date.parse(stopped.lastHeartbeatAt));
});
