/**
 * The alerts of one probe run: the bots' changes since the alerts last spoke (transitions.ts) and, where set, the
 * P&L alerts (pnl.ts), each recorded in the alerts table on condition that no other run recorded it first, so that
 * runs racing each other announce a change once; then published (deployed: to the alerts topic). A change the topic
 * refused is taken back, so the next run announces it instead of it being lost. Each run also records itself: after
 * a gap (the stack or the probe was down) the monitor watches a whole stale interval before it calls a bot stale.
 */
import { compareIds } from '@trading-bot-api/core/ids';
import {
  readAlertStates,
  recordBotAlertState,
  recordMonitorRun,
  recordPnlAlertState,
  undoBotAlertState,
} from '@trading-bot-api/core/store/alerts-table';
import { readAccountNames } from '@trading-bot-api/core/store/accounts-table';
import type { Store } from '@trading-bot-api/core/store/dynamodb';
import type { AccountStatus } from '@trading-bot-api/core/types';
import { type AlertEvent, type BotRef, botChangeEvent, dailyLossEvent, drawdownEvent, tradeClosedEvent } from './events';
import type { PnlRules } from './pnl';
import { type PnlChange, watchPnl } from './pnl-watch';
import { botTransitions, monitorAfter } from './transitions';

export interface ProbeAlertOptions {
  store: Store;
  /** The alerts table. */
  table: string;
  stage: string;
  staleAfterSeconds: number;
  /** How often the probe runs: a run more than two intervals after the one before starts the watch again. */
  probeIntervalSeconds: number;
  dashboardUrl?: string;
  /** The P&L alerts' rules (none: off). */
  rules?: PnlRules;
  /** Where the events go once recorded (deployed: the alerts topic); none: the caller sends them (npm start). */
  publish?: (events: AlertEvent[]) => Promise<void>;
}

/** The events of this run: the bots' changes, then the P&L alerts, each recorded by this run (another run's are not here). */
export async function alertOnFleet(statuses: readonly AccountStatus[], now: Date, options: ProbeAlertOptions): Promise<AlertEvent[]> {
  const { store, table } = options;
  const time = now.toISOString();
  const states = await readAlertStates(store, table);
  const monitor = monitorAfter(states.monitor, now, 2 * options.probeIntervalSeconds);
  await recordMonitorRun(store, table, monitor);
  const transitions = botTransitions(statuses, states.bots, now, {
    watchingSince: monitor.watchingSince,
    staleAfterSeconds: options.staleAfterSeconds,
  });
  const ids = statuses.map((status) => status.accountId);
  const pnl = options.rules?.any ? await watchPnl(store, ids, states.pnl, options.rules, now) : [];
  const [bots, money] = await Promise.all([
    recordedOnly(transitions, (transition) => recordBotAlertState(store, table, transition.next, time)),
    recordedOnly(pnl, (change) => recordPnlAlertState(store, table, change.next)),
  ]);
  const accounts = [...bots.map((transition) => transition.status.accountId), ...money.map((change) => change.next.accountId)];
  if (!accounts.length) return [];
  const names = await readAccountNames(store, [...new Set(accounts)]);
  const bot = (accountId: string): BotRef => ({ accountId, accountName: names.get(accountId) ?? accountId });
  const events = [
    ...bots
      .sort((a, b) => compareIds(a.status.accountId, b.status.accountId))
      .map(({ status, previous, next }) =>
        botChangeEvent(
          { ...status, bot: bot(status.accountId), previous, next, staleAfterSeconds: options.staleAfterSeconds, version: next.version },
          options.stage,
          time,
          options.dashboardUrl,
        ),
      ),
    ...money
      .sort((a, b) => compareIds(a.next.accountId, b.next.accountId))
      .flatMap((change) => pnlEvents(change, bot(change.next.accountId), time, options)),
  ];
  if (options.publish && events.length) {
    try {
      await options.publish(events);
    } catch (error) {
      // Best effort: if this fails too, the change stays recorded and unannounced, and the probe's error says so.
      await Promise.all([
        ...bots.map(({ previous, next }) => undoBotAlertState(store, table, next, previous, time).catch(() => false)),
        ...money.map(({ previous, next }) =>
          recordPnlAlertState(store, table, { ...previous, version: next.version + 1 }).catch(() => false),
        ),
      ]);
      throw error;
    }
  }
  return events;
}

/** The changes whose record this run wrote (another run wrote the others first, and announces them). */
async function recordedOnly<T>(changes: readonly T[], record: (change: T) => Promise<boolean>): Promise<T[]> {
  const written = await Promise.all(changes.map(async (change) => ((await record(change)) ? change : undefined)));
  return written.filter((change) => change !== undefined);
}

function pnlEvents(change: PnlChange, bot: BotRef, time: string, options: ProbeAlertOptions): AlertEvent[] {
  const { stage, dashboardUrl } = options;
  const version = change.next.version;
  return [
    ...change.closed.map((trade) => tradeClosedEvent(bot, trade, stage, time, dashboardUrl)),
    ...(change.dailyLoss ? [dailyLossEvent({ bot, figures: change.dailyLoss, version }, stage, time, dashboardUrl)] : []),
    ...(change.drawdown ? [drawdownEvent({ bot, figures: change.drawdown, version }, stage, time, dashboardUrl)] : []),
  ];
}
