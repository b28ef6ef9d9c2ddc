/**
 * A restart of the stack alone sends nothing. `npm start`'s probe watch runs the real probe function (in-process, on
 * DynamoDB Local) every second with a stale interval of 2 s, and sends to a fake Telegram; two healthy bots heartbeat
 * through the writer. The stack stops (the watch ends, and the bots cannot write: the database is the stack's) for
 * three stale intervals, then comes back: the bots are heard again within a second, and no message arrives, where
 * the monitor used to call both stale on its first run and recovered on its next.
 */
import type { Context } from 'aws-lambda';
import { type Harness, startHarness } from '../kit/api-harness';
import { FakeTelegram } from '../kit/fake-channels';
import { printedWhile } from '../kit/printed';

jest.setTimeout(60_000);

let harness: Harness;
let telegram: FakeTelegram;

beforeAll(async () => {
  harness = await startHarness({ STALE_AFTER_SECONDS: '2', PROBE_INTERVAL_SECONDS: '1' });
  telegram = await new FakeTelegram().start();
});
afterAll(async () => {
  await telegram?.close();
  await harness?.close();
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it('a restart with healthy bots sends no message; a bot that stays silent after it still does', async () => {
  const { watchProbe } = await import('../../scripts/local-stack/probe-watch');
  const { channelsOf } = await import('../../api/alerts/settings');
  const probe = (await import('../../functions/probe')).handler;
  const { channels } = channelsOf({
    ALERT_TELEGRAM_BOT_TOKEN: telegram.token,
    ALERT_TELEGRAM_CHAT_ID: telegram.chatId,
    ALERT_TELEGRAM_API_URL: telegram.base,
  });
  const bots = ['rs-a', 'rs-b', 'rs-silent'];
  for (const id of bots) await harness.writer.upsertAccount({ id, name: id, currency: 'USD', broker: 'OANDA', environment: 'paper' });
  let writing = true;
  const heartbeats = setInterval(() => {
    if (!writing) return;
    for (const id of bots.slice(0, 2)) void harness.writer.heartbeat(id, { state: 'running' }).catch(() => {});
  }, 300);
  for (const id of bots) await harness.writer.heartbeat(id, { state: 'running' });
  const lines: string[] = [];
  const start = () =>
    watchProbe({
      offline: { lambdaSocket: '' },
      stage: 'local',
      seconds: 1,
      print: (line) => lines.push(line),
      alerts: { channels, delivery: { sleep: async () => {} } },
      invoke: async () => (await printedWhile(() => probe({} as never, { functionName: 'probe', awsRequestId: 'r' } as Context))).result,
    });
  try {
    let watch = start();
    await pause(1500);
    // rs-silent stops writing from here: it is what a real silence looks like, for the contrast.
    await watch.stop();
    writing = false;
    await pause(6000);
    watch = start();
    await pause(500);
    writing = true;
    await pause(4500);
    await watch.stop();
  } finally {
    clearInterval(heartbeats);
  }
  const titles = telegram.texts.map((text) => text.split('\n')[0]);
  // Only the bot silent since before the restart is called stale, a whole stale interval after the monitor came back.
  expect(titles).toEqual([`<b>[${harness.stage}] 🟡 rs-silent is stale</b>`]);
  expect(lines.filter((line) => line.startsWith('alerts:'))).toEqual(['alerts: bot_stale rs-silent sent to telegram']);
});
