/**
 * The daily digest against DynamoDB Local: its figures are exactly what the API answers (the all-pnl, all-performance
 * and account-pnl functions, invoked with the windows the digest states), its bots needing attention are the fleet
 * status's, and the notifier, invoked as its daily schedule invokes it, sends it to a channel: the text a person
 * reads and, to the webhook, the same figures as they are.
 */
import type { Context } from 'aws-lambda';
import { eventFor, type Harness, startHarness } from '../kit/api-harness';
import { FakeTelegram, FakeWebhook } from '../kit/fake-channels';
import { printedWhile } from '../kit/printed';
import { withDateHeld } from '../kit/held-date';
import { closedTrade } from '../kit/closed-trade';

let harness: Harness;
let telegram: FakeTelegram;
let webhook: FakeWebhook;
const DAY = 86_400_000;
// One clock for the whole file: the trades are placed around `today`, and the digest is of the day before `now`, so
// a run that crosses midnight (UTC) still asks for the day its trades were placed in.
const now = new Date();
const today = Math.floor(now.getTime() / DAY) * DAY;
const iso = (ms: number) => new Date(ms).toISOString();
const yesterday = today - DAY;

beforeAll(async () => {
  [telegram, webhook] = await Promise.all([new FakeTelegram('42:AAH-digest').start(), new FakeWebhook().start()]);
  harness = await startHarness({
    ALERT_TELEGRAM_BOT_TOKEN: telegram.token,
    ALERT_TELEGRAM_CHAT_ID: telegram.chatId,
    ALERT_TELEGRAM_API_URL: telegram.base,
    ALERT_WEBHOOK_URL: webhook.url,
    DIGEST_HOUR_UTC: '6',
  });
  const accounts = [
    ['dg-usd-a', 'Trend USD', 'USD'],
    ['dg-usd-b', 'Scalper USD', 'USD'],
    ['dg-usd-c', 'Grid USD', 'USD'],
    ['dg-eur', 'Carry EUR', 'EUR'],
  ] as const;
  for (const [id, name, currency] of accounts) {
    await harness.writer.upsertAccount({ id, name, currency, broker: 'OANDA', environment: 'paper', createdAt: iso(today - 30 * DAY) });
  }
  let n = 0;
  const closed = (accountId: string, closeMs: number, realizedPL: string) =>
    harness.writer.recordTrades(accountId, [closedTrade(`${accountId}-t${n++}`, closeMs, realizedPL)]);
  // Yesterday: a wins 12.50 and 7.25, b loses 3.75 and wins 0.10, c closes nothing; earlier in the week, more;
  // today's and eight days ago's trades are outside both windows.
  await closed('dg-usd-a', yesterday + 9 * 3_600_000, '12.50');
  await closed('dg-usd-a', yesterday + 15 * 3_600_000, '7.25');
  await closed('dg-usd-b', yesterday + 10 * 3_600_000, '-3.75');
  await closed('dg-usd-b', yesterday + 23 * 3_600_000, '0.10');
  await closed('dg-usd-c', yesterday - 3 * DAY, '-20.00');
  await closed('dg-usd-a', yesterday - 6 * DAY + 60_000, '5.00');
  await closed('dg-usd-a', yesterday - 7 * DAY, '1000.00');
  await closed('dg-usd-b', today + 60_000 < now.getTime() ? today + 60_000 : today, '999.00');
  await closed('dg-eur', yesterday + 12 * 3_600_000, '4.2');
  await harness.writer.heartbeat('dg-usd-a', { state: 'running' });
  await harness.writer.heartbeat('dg-usd-b', { state: 'error', message: 'Order rejected: insufficient margin' });
  await harness.writer.heartbeat('dg-usd-c', { state: 'stopped' });
  await harness.writer.heartbeat('dg-eur', { state: 'paused' });
  // Projected, as a deployed stage's streams are within a second: the digest reads the fleet's summary.
  await harness.projector.drain();
});
afterAll(async () => {
  await Promise.all([telegram?.close(), webhook?.close()]);
  await harness?.close();
});

it('has exactly the figures /api/all/pnl, /api/all/performance and /api/{account}/pnl answer for its windows', async () => {
  const { buildDigest } = await import('../../api/alerts/digest');
  const digest = await buildDigest(now);
  expect(digest.day).toBe(iso(yesterday).slice(0, 10));
  expect(digest.weekFrom).toBe(iso(today - 7 * DAY).slice(0, 10));

  const ask = async (name: 'all-pnl' | 'all-performance', query: Record<string, string>) => {
    const answer = await harness.invoke(name, eventFor(name, { query }));
    expect(answer.statusCode).toBe(200);
    return answer.body;
  };
  const pnl = await ask('all-pnl', { period: 'day', from: iso(today - 7 * DAY), to: iso(today) });
  const dayPerformance = await ask('all-performance', { from: iso(yesterday), to: iso(today) });
  const weekPerformance = await ask('all-performance', { from: iso(today - 7 * DAY), to: iso(today) });
  expect(pnl.series.map((series: any) => series.currency)).toEqual(['EUR', 'USD']);
  expect(digest.currencies.map((entry) => entry.currency)).toEqual(['EUR', 'USD']);
  for (const entry of digest.currencies) {
    const series = pnl.series.find((candidate: any) => candidate.currency === entry.currency);
    const last = series.points[series.points.length - 1];
    expect(last.start).toBe(iso(yesterday));
    expect(entry.day).toEqual({
      realizedPL: last.realizedPL,
      tradesClosed: last.tradesClosed,
      wins: last.wins,
      losses: last.losses,
      winRate: dayPerformance.currencies.find((candidate: any) => candidate.currency === entry.currency).winRate,
    });
    const week = weekPerformance.currencies.find((candidate: any) => candidate.currency === entry.currency);
    expect(entry.week).toEqual({ realizedPL: week.netRealizedPL, tradesClosed: week.closedTrades, winRate: week.winRate });
    expect(entry.accountCount).toBe(series.accountCount);
  }
  // And what those answers are, worked out by hand from the trades above.
  const usd = digest.currencies.find((entry) => entry.currency === 'USD')!;
  expect(usd.day).toEqual({ realizedPL: '16.10', tradesClosed: 4, wins: 3, losses: 1, winRate: '0.7500' });
  expect(usd.week).toEqual({ realizedPL: '1.10', tradesClosed: 6, winRate: '0.6667' });
  expect(digest.currencies.find((entry) => entry.currency === 'EUR')!.day).toMatchObject({ realizedPL: '4.2', tradesClosed: 1 });

  // The best and worst bot of the day, each as its own /api/{account}/pnl answers for the day.
  for (const [mark, id] of [
    ['best', 'dg-usd-a'],
    ['worst', 'dg-usd-b'],
  ] as const) {
    const answer = await harness.invoke(
      'account-pnl',
      eventFor('account-pnl', { account: id, query: { period: 'day', from: iso(yesterday), to: iso(today) } }),
    );
    expect(usd[mark]).toEqual({
      accountId: id,
      accountName: id === 'dg-usd-a' ? 'Trend USD' : 'Scalper USD',
      realizedPL: answer.body.points[0].realizedPL,
    });
  }
  expect(usd.best!.realizedPL).toBe('19.75');
  expect(usd.worst!.realizedPL).toBe('-3.65');

  // The bots needing attention are the fleet status's.
  const status = await harness.invoke('all-status', eventFor('all-status'));
  const ours = status.body.accounts.filter((entry: any) => entry.accountId.startsWith('dg-'));
  expect(digest.attention.error.map((bot) => [bot.accountId, bot.message])).toEqual(
    ours.filter((entry: any) => entry.state === 'error').map((entry: any) => [entry.accountId, entry.message]),
  );
  expect(digest.attention.stopped.map((bot) => bot.accountId)).toEqual(['dg-usd-c']);
  expect(digest.attention.stale).toEqual([]);
});

it('is sent by the notifier on its daily schedule: the text to read, and the figures as they are to the webhook', async () => {
  const { handler } = await import('../../functions/notifier');
  const { buildDigest } = await import('../../api/alerts/digest');
  // The function reads the clock itself: it reads this file's `now` (only Date is faked; timers run as they do).
  await withDateHeld(now, () =>
    printedWhile(() => handler({ digest: true }, { functionName: 'trading-bot-api-test-notifier', awsRequestId: 'd-1' } as Context)),
  );
  const [body] = webhook.bodies;
  expect(body).toMatchObject({ type: 'digest', stage: harness.stage, time: now.toISOString(), digest: await buildDigest(now) });
  expect(telegram.texts).toHaveLength(1);
  const text = telegram.texts[0];
  expect(text).toMatch(/^<b>\[\w+\] 📊 Daily digest for \w{3} \d{4}-\d{2}-\d{2} \(UTC\)<\/b>/);
  for (const expected of [
    'USD (3 accounts)',
    'Yesterday: +16.10 realized, 4 trades closed, win rate 75 %',
    '7 days',
    '+1.10 realized, 6 trades closed, win rate 66.67 %',
    'Best bot: Trend USD (dg-usd-a) +19.75; worst: Scalper USD (dg-usd-b) −3.65',
    'EUR (1 account)',
    'Only bot that closed a trade: Carry EUR (dg-eur) +4.2',
    'In error: Scalper USD (dg-usd-b): Order rejected: insufficient margin',
    'Stopped: Grid USD (dg-usd-c)',
    'This digest comes every day at 06:00 UTC: if it does not, the alerts are not running.',
  ])
    expect(text).toContain(expected);
});
