import { createHash } from 'node:crypto';
import type { Account, BotReport } from '../types';
import { batchGetItems, type Item, type Store, type TransactItem, updateItem } from './dynamodb';

/**
 * The fleet table: the fleet's change stamps, so a fleet poll costs the same at 5 accounts or 1,000. Each account
 * has a short stamp per aspect the fleet answers show, kept by the writer in the same transaction as the change:
 *
 * - `profile`: a digest of the profile (`/api/accounts`);
 * - `bot`: the bot's state, a digest of its strategy and message, and the time of a recent heartbeat; `trades`: the
 *   open trade count and the latest trade time (`/api/all/status`);
 * - `balance`: the balances item's version (`/api/all/balance`).
 *
 * The stamps of an aspect are spread over SHARDS items (`<aspect>#<n>`, n from a hash of the account id), one
 * attribute per account, so an aspect of the whole fleet is SHARDS items and a key that sees some accounts reads
 * only their shards and looks only at their attributes: what it learns is exactly what its own accounts did.
 *
 * A heartbeat that changes nothing but the time refreshes the bot stamp only once it is STAMP_SECONDS old (the
 * writer's cheap path in between touches the account item alone). So the stamp's heartbeat time is at most
 * STAMP_SECONDS behind the bot's last heartbeat, and staleness can be told from the stamps alone except within
 * that window (see `staleness`).
 */
export const SHARDS = 8;

/** How far behind the last heartbeat the stamped heartbeat time may be. */
export const STAMP_SECONDS = 30;

export type Aspect = 'profile' | 'status' | 'balance';

/** The item that says the stamps are complete: every account has them (markStamped, readStamps). */
const META = { shard: 'meta' };

/** FNV-1a: a stable spread of ids over the shards (not a secret; the same in every process). */
export function shardOf(accountId: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < accountId.length; i++) {
    hash ^= accountId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % SHARDS;
}

function shardKey(aspect: Aspect, shard: number): Item {
  return { shard: `${aspect}#${shard}` };
}

/** Attribute names within a shard item: a prefix no account id can start with, then the id. */
const ATTRIBUTE = { profile: 'p@', bot: 'b@', trades: 't@', balance: 'v@' } as const;
type Field = keyof typeof ATTRIBUTE;
const FIELD_OF = Object.fromEntries(Object.entries(ATTRIBUTE).map(([field, prefix]) => [prefix, field])) as Record<string, Field>;
const ASPECT_OF: Record<Field, Aspect> = { profile: 'profile', bot: 'status', trades: 'status', balance: 'balance' };

/** What a write changed, as stamps (each computed by the functions below). */
export type Stamps = Partial<Record<Field, string | number>>;

function digest(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('base64url').slice(0, 8);
}

export function profileStamp(account: Account): string {
  return digest([account.name, account.currency, account.broker, account.environment, account.createdAt]);
}

const STATE_LETTERS: Record<BotReport['state'], string> = { running: 'r', paused: 'p', stopped: 's', error: 'e' };
const STATE_OF: Record<string, BotReport['state']> = { r: 'running', p: 'paused', s: 'stopped', e: 'error' };

/** A time as few characters as it can be exactly (epoch milliseconds in base 36); '' for none. */
function compactTime(time: string | null): string {
  return time === null ? '' : Date.parse(time).toString(36);
}

/**
 * The bot's state (a letter), an 8-character digest of what else the fleet shows of its report (strategy, message:
 * a change escapes it with a chance of 2^-48), and the heartbeat time being stamped. Short, because every stamped
 * write rewrites the whole shard item and a poll reads eight of them.
 */
export function botStamp(report: BotReport): string {
  return `${STATE_LETTERS[report.state]}${digest([report.strategy, report.message])}${compactTime(report.lastHeartbeatAt)}`;
}

/** The open trade count and the latest trade time, exactly. */
export function tradesStamp(record: { openTradeCount: number; lastTradeAt: string | null }): string {
  return `${record.openTradeCount.toString(36)}|${compactTime(record.lastTradeAt)}`;
}

/**
 * The updates that store `stamps` of one account: one per shard item touched (a transaction may touch an item
 * once). No condition: the transaction's other items carry the conditions, and a stamp only follows them.
 */
export function stampWrites(store: Store, accountId: string, stamps: Stamps): TransactItem[] {
  const byAspect = new Map<Aspect, [Field, string | number][]>();
  for (const [field, value] of Object.entries(stamps) as [Field, string | number][]) {
    if (value === undefined) continue;
    byAspect.set(ASPECT_OF[field], [...(byAspect.get(ASPECT_OF[field]) ?? []), [field, value]]);
  }
  return [...byAspect.entries()].map(([aspect, fields]) => ({
    Update: {
      TableName: store.tables.fleet,
      Key: shardKey(aspect, shardOf(accountId)),
      UpdateExpression: `SET ${fields.map((_, i) => `#f${i} = :f${i}`).join(', ')}`,
      ExpressionAttributeNames: Object.fromEntries(fields.map(([field], i) => [`#f${i}`, ATTRIBUTE[field] + accountId])),
      ExpressionAttributeValues: Object.fromEntries(fields.map(([, value], i) => [`:f${i}`, value])),
    },
  }));
}

/** The stamps of one aspect for some accounts (or every account, `*`), as stored: field → account id → stamp. */
export type FleetStamps = Map<string, Partial<Record<Field, string | number>>>;

/**
 * Reads the shards of `aspect` that hold `accounts` (all SHARDS for `*`) and the meta item, in one BatchGetItem
 * (at most SHARDS + 1 items, whatever the fleet's size). Returns undefined while the stamps are not known to be
 * complete (a stage whose data predates them, until `npm run backfill`): the caller then reads the tables.
 */
export async function readStamps(store: Store, aspect: Aspect, accounts: '*' | readonly string[]): Promise<FleetStamps | undefined> {
  const shards = accounts === '*' ? [...Array(SHARDS).keys()] : [...new Set(accounts.map(shardOf))];
  const result = await batchGetItems(store, { [store.tables.fleet]: [META, ...shards.map((shard) => shardKey(aspect, shard))] });
  const items = result[store.tables.fleet];
  if (!items.some((item) => item.shard === META.shard && item.complete === true)) return undefined;
  const wanted = accounts === '*' ? undefined : new Set(accounts);
  const stamps: FleetStamps = new Map();
  for (const item of items) {
    if (item.shard === META.shard) continue;
    for (const name in item) {
      const field = FIELD_OF[name.slice(0, 2)];
      if (!field) continue;
      const accountId = name.slice(2);
      // Only the accounts asked for: a scoped key never sees its shard-mates' stamps, nor that they exist.
      if (wanted && !wanted.has(accountId)) continue;
      const stamp = stamps.get(accountId) ?? {};
      stamp[field] = item[name] as string | number;
      stamps.set(accountId, stamp);
    }
  }
  return stamps;
}

/** A bot stamp read back: its state, the digest of the rest of the report, and the stamped heartbeat (epoch ms). */
export function parseBotStamp(stamp: string): { state: BotReport['state']; report: string; heartbeatAt: number | null } {
  const heartbeat = stamp.slice(9);
  return { state: STATE_OF[stamp[0]], report: stamp.slice(1, 9), heartbeatAt: heartbeat ? Number.parseInt(heartbeat, 36) : null };
}

/**
 * Whether a bot is stale at `now` as far as its stamp tells: the bot's last heartbeat is at or after the stamped
 * one and less than STAMP_SECONDS after it. `unknown` inside that window, where only the account item can tell.
 * The rule is the status's own: running, and no heartbeat for more than `staleAfterSeconds` whole seconds, or never.
 */
export function staleness(stamp: string, now: number, staleAfterSeconds: number): boolean | 'unknown' {
  const { state, heartbeatAt } = parseBotStamp(stamp);
  if (state !== 'running') return false;
  if (heartbeatAt === null) return true;
  if (Math.floor((now - heartbeatAt) / 1000) <= staleAfterSeconds) return false;
  if (Math.floor((now - heartbeatAt - STAMP_SECONDS * 1000) / 1000) > staleAfterSeconds) return true;
  return 'unknown';
}

/** Marks the stamps complete: every account has them (a new stage, or after the backfill wrote the missing ones). */
export async function markStamped(store: Store, at: string): Promise<void> {
  await updateItem(store, {
    TableName: store.tables.fleet,
    Key: META,
    UpdateExpression: 'SET complete = :true, completedAt = if_not_exists(completedAt, :at)',
    ExpressionAttributeValues: { ':true': true, ':at': at },
  });
}

/** Takes the mark away: the fleet answers read the tables again, as on a stage older than the stamps (bench, tests). */
export async function markUnstamped(store: Store): Promise<void> {
  await updateItem(store, { TableName: store.tables.fleet, Key: META, UpdateExpression: 'REMOVE complete, completedAt' });
}

/** One account's stamps as stored, to compare with what its items say (the backfill). */
export async function readAccountStamps(store: Store, accountId: string): Promise<Stamps> {
  const shard = shardOf(accountId);
  const result = await batchGetItems(
    store,
    { [store.tables.fleet]: (['profile', 'status', 'balance'] as const).map((aspect) => shardKey(aspect, shard)) },
    true,
  );
  const stamps: Stamps = {};
  for (const item of result[store.tables.fleet]) {
    for (const field of Object.keys(ATTRIBUTE) as Field[]) {
      const value = item[ATTRIBUTE[field] + accountId];
      if (value !== undefined) stamps[field] = value as string | number;
    }
  }
  return stamps;
}
