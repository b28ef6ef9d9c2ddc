/**
 * The bots' alerts of one probe run: the changes since the alerts last spoke (transitions.ts), each recorded in the
 * alerts table on condition that no other run recorded it first, so that runs racing each other announce a change
 * once; then published (deployed: to the alerts topic). A change the topic refused is taken back, so the next run
 * announces it instead of it being lost.
 */
import { compareIds } from '@trading-bot-api/core/ids';
import { type BotAlertState, readBotAlertStates, recordBotAlertState, undoBotAlertState } from '@trading-bot-api/core/store/alerts-table';
import { readAccountNames } from '@trading-bot-api/core/store/accounts-table';
import type { Store } from '@trading-bot-api/core/store/dynamodb';
import type { AccountStatus } from '@trading-bot-api/core/types';
import { type AlertEvent, botChangeEvent } from './events';
import { botTransitions } from './transitions';

export interface ProbeAlertOptions {
  store: Store;
  /** The alerts table. */
  table: string;
  stage: string;
  staleAfterSeconds: number;
  dashboardUrl?: string;
  /** Where the events go once recorded (deployed: the alerts topic); none: the caller sends them (npm start). */
  publish?: (events: AlertEvent[]) => Promise<void>;
}

/** The events of the bots whose condition changed, recorded by this run (a change another run recorded is not here). */
export async function alertOnFleet(statuses: readonly AccountStatus[], now: Date, options: ProbeAlertOptions): Promise<AlertEvent[]> {
  const { store, table } = options;
  const transitions = botTransitions(statuses, await readBotAlertStates(store, table), now);
  if (!transitions.length) return [];
  const time = now.toISOString();
  const recorded = (
    await Promise.all(
      transitions.map(async (transition) => ((await recordBotAlertState(store, table, transition.next, time)) ? transition : undefined)),
    )
  )
    .filter((transition) => transition !== undefined)
    .sort((a, b) => compareIds(a.status.accountId, b.status.accountId));
  if (!recorded.length) return [];
  const names = await readAccountNames(
    store,
    recorded.map((transition) => transition.status.accountId),
  );
  const events = recorded.map(({ status, previous, next }) =>
    botChangeEvent(
      {
        bot: { accountId: status.accountId, accountName: names.get(status.accountId) ?? status.accountId },
        state: status.state,
        previous,
        next,
        message: status.message,
        lastHeartbeatAt: status.lastHeartbeatAt,
        heartbeatAgeSeconds: status.heartbeatAgeSeconds,
        staleAfterSeconds: options.staleAfterSeconds,
        version: next.version,
      },
      options.stage,
      time,
      options.dashboardUrl,
    ),
  );
  if (options.publish) {
    try {
      await options.publish(events);
    } catch (error) {
      await Promise.all(recorded.map(({ previous, next }) => undoChange(store, table, next, previous, time)));
      throw error;
    }
  }
  return events;
}

async function undoChange(store: Store, table: string, recorded: BotAlertState, previous: BotAlertState, time: string): Promise<void> {
  // Best effort: if this fails too, the change stays recorded and unannounced, and the probe's error says so.
  await undoBotAlertState(store, table, recorded, previous, time).catch(() => false);
}
