import { deleteItem, type Item, putItem, scanAll, type Store, withoutNulls } from './dynamodb';
import { count, orNull, reader, text } from './items';

/**
 * The alerts table (resources/tables.js): what the alerts last said of each bot, so that a probe, which keeps
 * nothing between runs, sends a message only when a bot's condition changes. One item per bot that has been in
 * trouble (`bot#<accountId>`); a bot with no item has never been alerted on and counts as well. Each item carries a
 * version: a run replaces exactly the version it read, so of two runs that saw the same change only one records it,
 * and only that one sends the message.
 */

/** What an alert says of a bot: in error, silent while running (stale), stopped, or none of these (`ok`). */
export type BotCondition = 'ok' | 'error' | 'stale' | 'stopped';

export interface BotAlertState {
  accountId: string;
  condition: BotCondition;
  /** Since when the condition holds (its first sighting, or the bot's last heartbeat when that says more); null: unknown. */
  since: string | null;
  /** 0 for a bot with no item; each recorded change adds one. */
  version: number;
}

/** The key of a bot's item. */
function botAlertKey(accountId: string): Item {
  return { subject: `bot#${accountId}` };
}

const toBotAlertState = reader<BotAlertState>({ accountId: text, condition: text, since: orNull, version: count });

/**
 * When the monitor (the probe) last ran, and since when it has watched without a break: a run later than the
 * allowed gap after the one before starts the watch again (the stack, or the deployed probe, was down).
 */
export interface MonitorState {
  lastRunAt: string;
  watchingSince: string;
}

const MONITOR_KEY: Item = { subject: 'monitor' };

/** What the alerts last said, read whole (a small table: one item per bot ever in trouble or watched for its P&L, and the monitor's). */
export interface AlertStates {
  bots: Map<string, BotAlertState>;
  pnl: Map<string, PnlAlertState>;
  monitor: MonitorState | undefined;
}

export async function readAlertStates(store: Store, table: string): Promise<AlertStates> {
  const items = await scanAll(store, table);
  const of = (prefix: string) => items.filter((item) => String(item.subject).startsWith(prefix));
  const monitor = items.find((item) => item.subject === MONITOR_KEY.subject);
  return {
    bots: new Map(of('bot#').map((item) => [item.accountId as string, toBotAlertState(item)])),
    pnl: new Map(of('pnl#').map((item) => [item.accountId as string, toPnlAlertState(item)])),
    monitor: monitor && { lastRunAt: monitor.lastRunAt as string, watchingSince: monitor.watchingSince as string },
  };
}

/** Records this run of the monitor (unconditionally: two runs at once agree on what they write, within a second). */
export async function recordMonitorRun(store: Store, table: string, state: MonitorState): Promise<void> {
  await putItem(store, { TableName: table, Item: { ...MONITOR_KEY, ...state } });
}

/**
 * What the P&L alerts last said of an account: the day whose loss crossed its limit (null: none said), whether its
 * drawdown is beyond its limit and from which peak balance it is measured, and the closed trades announced: its
 * open trades when last read, and those opened since `tradesCheckedAt` already announced. Versioned as a bot's item.
 */
export interface PnlAlertState {
  accountId: string;
  lossDay: string | null;
  peakBalance: string | null;
  drawdownOver: boolean;
  tradesCheckedAt: string | null;
  openTrades: string[];
  announced: string[];
  version: number;
}

const toPnlAlertState = reader<PnlAlertState>({
  accountId: text,
  lossDay: orNull,
  peakBalance: orNull,
  drawdownOver: (value) => value === true,
  tradesCheckedAt: orNull,
  openTrades: listOf,
  announced: listOf,
  version: count,
});
/** A list attribute; absent, empty. */
function listOf(value: unknown): string[] {
  return (value as string[] | undefined) ?? [];
}

/** Puts `item` in place of the one of version `version - 1` (none for 1); false when another run recorded first. */
function putInPlaceOf(store: Store, table: string, item: Item, version: number): Promise<boolean> {
  return putItem(store, {
    TableName: table,
    Item: item,
    ...(version === 1
      ? { ConditionExpression: 'attribute_not_exists(subject)' }
      : { ConditionExpression: 'version = :read', ExpressionAttributeValues: { ':read': version - 1 } }),
  });
}

/** Records `next` in place of version `next.version - 1` (none for 1); false when another run recorded first. */
export async function recordPnlAlertState(store: Store, table: string, next: PnlAlertState): Promise<boolean> {
  return putInPlaceOf(store, table, { subject: `pnl#${next.accountId}`, ...withoutNulls(next) }, next.version);
}

/**
 * Records `next` in place of the state whose version is `next.version - 1` (none for version 1); false when another
 * run recorded a change first (nothing was written): that run sends the message, this one does not.
 */
export async function recordBotAlertState(store: Store, table: string, next: BotAlertState, changedAt: string): Promise<boolean> {
  return putInPlaceOf(store, table, { ...botAlertKey(next.accountId), ...next, changedAt }, next.version);
}

/**
 * Takes back a change this run recorded but could not announce (the alerts topic refused it): the state before it
 * returns, one version on, unless another run changed it since. The next probe then sees the change again and
 * announces it; without this the change would be recorded as said and never be.
 */
export async function undoBotAlertState(
  store: Store,
  table: string,
  recorded: BotAlertState,
  previous: BotAlertState,
  changedAt: string,
): Promise<boolean> {
  if (previous.version === 0) {
    // The bot had no item: it goes again, so that it reads as never alerted on.
    return deleteItem(store, {
      TableName: table,
      Key: botAlertKey(recorded.accountId),
      ConditionExpression: 'version = :recorded',
      ExpressionAttributeValues: { ':recorded': recorded.version },
    });
  }
  return recordBotAlertState(store, table, { ...previous, version: recorded.version + 1 }, changedAt);
}
