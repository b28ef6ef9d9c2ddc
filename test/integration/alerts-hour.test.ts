/**
 * One scripted hour of an operator's fleet, as `npm start` watches it (stage settings of `local`: stale after 60 s,
 * a probe every minute), on a clock of its own (23:00 to 00:00 UTC, then the digest), against DynamoDB
 * Local and a fake Telegram: what the operator's phone shows.
 *
 * - Alpha: a freqtrade bot through the real bridge (its fake's REST API), polled every 30 s; killed at 23:52:10.
 * - Beta: a bot that heartbeats every 30 s; its operator stops it at 23:10 (it then reports `stopped`).
 * - Gamma: a bot that heartbeats every 30 s and closes four losing trades (−30 each on 1000) at 23:15, :20, :25, :30.
 * - The stack is down from 23:40 to 23:48 (no probe, no write); the bots write again from 23:48:30.
 *
 * The alerts are configured as an operator would: a daily loss limit of 5 %, a drawdown limit of 10 %, each closed
 * trade announced. The messages, with the minute each was sent, are written to ALERTS_HOUR_OUT (or the run's folder).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createWriter, type Writer } from '@trading-bot-api/writer';
import { freqtradeClient } from '@trading-bot-api/feeds/bridges/freqtrade/api';
import { FreqtradeBridge } from '@trading-bot-api/feeds/bridges/freqtrade/bridge';
import { type Harness, startHarness } from '../kit/api-harness';
import { FakeFreqtrade } from '../kit/fake-freqtrade';
import { FakeTelegram } from '../kit/fake-channels';
import { runDir } from '../kit/run-dir';

jest.setTimeout(120_000);

const START = Date.parse('2026-11-27T23:00:00.000Z');
const STALE_AFTER_SECONDS = 60;
const SETTINGS = { ALERT_DAILY_LOSS: '5%', ALERT_DRAWDOWN: '10%', ALERT_TRADE_CLOSED: 'on' };

let harness: Harness;
let telegram: FakeTelegram;
let freqtrade: FakeFreqtrade;
let clock = START;
let writer: Writer;

beforeAll(async () => {
  harness = await startHarness({ STALE_AFTER_SECONDS: String(STALE_AFTER_SECONDS), DASHBOARD_URL: 'https://bots.example/', ...SETTINGS });
  telegram = await new FakeTelegram().start();
  freqtrade = await new FakeFreqtrade().start();
  freqtrade.botName = 'Alpha';
  writer = createWriter({ stage: harness.stage, endpoint: harness.db.endpoint, region: 'us-east-1', now: () => new Date(clock) });
});
afterAll(async () => {
  writer?.close();
  await freqtrade?.stop();
  await telegram?.close();
  await harness?.close();
});

const at = (minute: number, second = 0) => START + minute * 60_000 + second * 1000;
const iso = (ms: number) => new Date(ms).toISOString();

it('an hour: a bot stopping, a restart of the stack, a loss day, a bot killed', async () => {
  const { probeFleet } = await import('../../api/operations/probe');
  const { alertOnFleet } = await import('../../api/alerts/probe-alerts');
  const { store } = await import('../../api/database');
  const { channelsOf, localAlertValues } = await import('../../api/alerts/settings');
  const { pnlRulesOf } = await import('../../api/alerts/pnl');
  const { deliverAlerts } = await import('../../api/alerts/delivery');
  const { buildDigest } = await import('../../api/alerts/digest');
  const { digestEvent } = await import('../../api/alerts/digest-text');
  const { channels } = channelsOf({
    ALERT_TELEGRAM_BOT_TOKEN: telegram.token,
    ALERT_TELEGRAM_CHAT_ID: telegram.chatId,
    ALERT_TELEGRAM_API_URL: telegram.base,
  });
  const sent: string[] = [];
  const send = async (events: Awaited<ReturnType<typeof alertOnFleet>>) => {
    const before = telegram.texts.length;
    await deliverAlerts(events, channels, { sleep: async () => {} });
    for (const text of telegram.texts.slice(before))
      sent.push(
        `${iso(clock).slice(11, 16)}  ${text
          .replace(/<\/?b>/g, '')
          .replace(/&lt;/g, '<')
          .replace(/&gt;/g, '>')
          .replace(/&amp;/g, '&')}`,
      );
  };
  const bridge = new FreqtradeBridge({
    client: freqtradeClient({ url: freqtrade.url, username: freqtrade.username, password: freqtrade.password }),
    writer,
    account: 'ft-alpha',
    now: () => clock,
  });
  const failures = bridge as unknown as { reportFailure?: (error: unknown) => Promise<void> };

  for (const [id, name] of [
    ['beta', 'Beta'],
    ['gamma', 'Gamma'],
  ])
    await writer.upsertAccount({ id, name, currency: 'USD', broker: 'OANDA', environment: 'live', createdAt: iso(START - 86_400_000) });
  await writer.recordBalance('gamma', {
    balance: '1000.00',
    unrealizedPL: '0',
    nav: '1000.00',
    marginUsed: '0',
    marginAvailable: '1000.00',
    time: iso(START - 3_600_000),
  });

  let gammaBalance = 1000;
  const down = (ms: number) => ms >= at(40) && ms < at(48);
  for (clock = START; clock <= at(60); clock += 30_000) {
    if (down(clock)) continue;
    const back = clock === at(48);
    const minute = (clock - START) / 60_000;
    // The bots write (from 23:48:30 after the restart: a bridge backs off while the database is away).
    if (!back) {
      if (clock === at(52, 30)) await freqtrade.stop();
      freqtrade.lastProcessMs = clock;
      try {
        await bridge.poll();
      } catch (error) {
        await failures.reportFailure?.(error);
      }
      await writer.heartbeat(
        'beta',
        clock >= at(10)
          ? { state: 'stopped', message: 'stopped by its operator', time: iso(clock) }
          : { state: 'running', time: iso(clock) },
      );
      await writer.heartbeat('gamma', { state: 'running', time: iso(clock) });
      if ([15, 20, 25, 30].includes(minute)) {
        const id = `g-${minute}`;
        await writer.openTrade('gamma', {
          id,
          instrument: 'EUR_USD',
          side: 'buy',
          units: '1000',
          openPrice: '1.10000',
          openTime: iso(clock - 240_000),
        });
        await writer.closeTrade('gamma', id, { closePrice: '1.08000', closeTime: iso(clock), realizedPL: '-30.00', reason: 'stop_loss' });
        gammaBalance -= 30;
        await writer.recordBalance('gamma', {
          balance: `${gammaBalance}.00`,
          unrealizedPL: '0',
          nav: `${gammaBalance}.00`,
          marginUsed: '0',
          marginAvailable: `${gammaBalance}.00`,
          time: iso(clock),
        });
      }
    }
    // The probe, every minute.
    if (clock % 60_000 === 0 && clock > START) {
      const now = new Date(clock);
      const { fleet } = await probeFleet(now);
      await send(
        await alertOnFleet(fleet!.accounts, now, {
          store,
          table: process.env.ALERTS_TABLE!,
          stage: 'local',
          staleAfterSeconds: STALE_AFTER_SECONDS,
          probeIntervalSeconds: 60,
          dashboardUrl: 'https://bots.example/',
          rules: pnlRulesOf(localAlertValues(process.env)).rules,
        }),
      );
    }
  }
  clock = at(60, 30);
  await harness.projector.drain();
  await send([digestEvent(await buildDigest(new Date(clock)), 'local', iso(clock), 7)]);

  const report = sent.join('\n\n');
  writeFileSync(process.env.ALERTS_HOUR_OUT ?? join(runDir(), 'alerts-hour.txt'), `${report}\n`);
  console.log(report);
  // What the operator wants to hear, once each: the stop (since when it stopped), the loss day and the drawdown, each
  // trade, the killed bot with why; the restart alone says nothing; the digest counts the stopped bot from 23:10.
  const titles = sent.map((text) => text.split('\n')[0]);
  expect(titles).toEqual([
    '23:10  [local] ⚪ Beta (beta) stopped',
    '23:15  [local] 🔁 Gamma (gamma) closed buy EUR_USD: −30.00 USD (stop_loss)',
    '23:20  [local] 🔁 Gamma (gamma) closed buy EUR_USD: −30.00 USD (stop_loss)',
    '23:20  [local] 🔻 Gamma (gamma) lost 60.00 USD today',
    '23:25  [local] 🔁 Gamma (gamma) closed buy EUR_USD: −30.00 USD (stop_loss)',
    '23:30  [local] 🔁 Gamma (gamma) closed buy EUR_USD: −30.00 USD (stop_loss)',
    '23:30  [local] 📉 Gamma (gamma) is 120.00 USD (12 %) below its peak',
    '23:53  [local] 🔴 Alpha (ft-alpha) is in error',
    '00:00  [local] 📊 Daily digest for Fri 2026-11-27 (UTC)',
  ]);
  expect(sent[7]).toContain(`The bot reports an error: cannot reach freqtrade at ${freqtrade.url}: ECONNREFUSED.`);
  expect(sent[8]).toContain('Stopped: Beta (beta) since 2026-11-27 23:10 UTC');
});
