import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { databaseError } from './errors';
import { type Item, putItem, scanAll, type Store } from './dynamodb';

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

function toBotAlertState(item: Item): BotAlertState {
  return {
    accountId: item.accountId as string,
    condition: item.condition as BotCondition,
    since: (item.since as string | undefined) ?? null,
    version: Number(item.version),
  };
}

/** Every bot's last alerted state, by account id (a small table: one item per bot ever in trouble). */
export async function readBotAlertStates(store: Store, table: string): Promise<Map<string, BotAlertState>> {
  const items = await scanAll(store, table);
  return new Map(
    items.filter((item) => String(item.subject).startsWith('bot#')).map((item) => [item.accountId as string, toBotAlertState(item)]),
  );
}

/**
 * Records `next` in place of the state whose version is `next.version - 1` (none for version 1); false when another
 * run recorded a change first (nothing was written): that run sends the message, this one does not.
 */
export async function recordBotAlertState(store: Store, table: string, next: BotAlertState, changedAt: string): Promise<boolean> {
  return putItem(store, {
    TableName: table,
    Item: {
      ...botAlertKey(next.accountId),
      accountId: next.accountId,
      condition: next.condition,
      since: next.since,
      version: next.version,
      changedAt,
    },
    ...(next.version === 1
      ? { ConditionExpression: 'attribute_not_exists(subject)' }
      : { ConditionExpression: 'version = :read', ExpressionAttributeValues: { ':read': next.version - 1 } }),
  });
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
    try {
      await store.client.send(
        new DeleteCommand({
          TableName: table,
          Key: botAlertKey(recorded.accountId),
          ConditionExpression: 'version = :recorded',
          ExpressionAttributeValues: { ':recorded': recorded.version },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof Error && error.name === 'ConditionalCheckFailedException') return false;
      throw databaseError(error);
    }
  }
  return recordBotAlertState(store, table, { ...previous, version: recorded.version + 1 }, changedAt);
}
