import { createHash } from 'node:crypto';
import type { AccountScope } from '../ids';
import { MAX_CLOCK_AHEAD_MS } from '../time';
import type { Account, BotReport } from '../types';
import { batchGetItems, getItem, type Item, type Store, type TransactItem, updateItem } from './dynamodb';

/**
 * The fleet table: the fleet's change stamps, so a fleet poll costs the same at 5 accounts or 1,000. Each account
 * has a short stamp per aspect the fleet answers show, kept by the writer in the same transaction as the change:
 *
 * - `profile`: a digest of the profile (`/api/accounts`);
 * - `bot`: the bot's state, a digest of its strategy and message, the stamp's window and the time of a recent
 *   heartbeat; `trades`: the open trade count and the latest trade time (`/api/all/status`);
 * - `balance`: the balances item's version, in base 36 (`/api/all/balance`): strings, as DynamoDB Local returned
 *   1,000 short strings in two thirds of the time it took for 1,000 numbers.
 *
 * The stamps of an aspect are spread over SHARDS items (`<aspect>#<n>`, n from a hash of the account id), one
 * attribute per account, so an aspect of the whole fleet is SHARDS items and a key that sees some accounts reads
 * only their shards and looks only at their attributes: what it learns is exactly what its own accounts did.
 *
 * One attribute, not one per stamp: a read's time grows with the number of attribute values it returns (DynamoDB
 * Local took twice as long for 2,000 short strings as for 1,000 of the same total length), so the status's two
 * stamps share one attribute, `<bot>|<trades>`. A write that changes one half reads the attribute first
 * (readStatusStamp) and is conditioned on it being as read, so concurrent heartbeats and trades never lose each
 * other's half: one of them is cancelled and retried.
 *
 * A heartbeat that changes nothing but the time refreshes the bot stamp only once its window has passed: the
 * stamp says how many seconds that is, and the writer's cheap path in between touches the account item alone. So
 * the stamp's heartbeat time is less than its window behind the bot's last heartbeat, and staleness can be told
 * from the stamps alone except within that window past the threshold (see `staleness`).
 */
export const SHARDS = 8;

/**
 * What the meta item's `format` says the writer keeps. 1: a bot stamp and a trades stamp in two attributes, no window
 * in the bot stamp, balance versions as numbers. 2: one status attribute, the window in the bot stamp, versions in
 * base 36. 3: format 2, and the fleet's statistics per currency and shard (ledger-table's fleetStatsOwner). The
 * fleet answers trust the stamps and sums only when the meta item says they are complete in this format; the
 * backfill rewrites older ones.
 */
export const STAMP_FORMAT = 3;

/**
 * The refresh window of a bot stamp for a stale threshold: a minute short of the threshold, so a bot heartbeating
 * at least once a minute is always vouched fresh by its stamp alone; or half the threshold when that is longer.
 * Each refresh rewrites a whole shard item (4 KB at 1,000 bots, twice that in units within a transaction), so
 * the window sets what the fleet's heartbeats cost in writes (docs/performance.md): the longer the cheaper. In
 * exchange a bot that falls silent is, for up to the window past its threshold, one whose account item the status
 * reads.
 */
export function stampSecondsFor(staleAfterSeconds: number): number {
  const window = Math.max(staleAfterSeconds - 60, Math.ceil(staleAfterSeconds / 2));
  return Math.min(MAX_STAMP_SECONDS, Math.max(MIN_STAMP_SECONDS, window));
}

/** The shortest window a writer takes (a refresh at every heartbeat costs the most), and the longest a stamp can say (two base-36 digits). */
export const MIN_STAMP_SECONDS = 10;
export const MAX_STAMP_SECONDS = 1200;

/** The window for the deployed stale threshold of 300 s (resources/stages.js; a unit test keeps them together). */
export const DEFAULT_STAMP_SECONDS = stampSecondsFor(300);

export type Aspect = 'profile' | 'status' | 'balance';

/** The item that says the stamps are complete: every account has them (markStamped, readShardCounts). */
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

/** Attribute names within a shard item: a prefix no account id can start with (packages/core/src/ids.ts), then the id. One per aspect. */
const ATTRIBUTE: Record<Aspect, string> = { profile: 'p@', status: 's@', balance: 'v@' };
const ASPECT_OF = Object.fromEntries(Object.entries(ATTRIBUTE).map(([aspect, prefix]) => [prefix, aspect])) as Record<string, Aspect>;

/** What a write changed, as stamps (each computed by the functions below); `bot` and `trades` are the status's halves. */
export interface Stamps {
  profile?: string;
  bot?: string;
  trades?: string;
  balance?: number;
}

/** The status stamp of an account as stored, read before a write that changes one half of it (readStatusStamp). */
export interface StoredStatus {
  stamp: string | undefined;
}

/** The two halves of a status stamp as stored ('' for a half never written: a stage older than the stamps). */
function splitStatus(stamp: string): Pick<Stamps, 'bot' | 'trades'> {
  // Plain assignments: a fleet poll splits a thousand of these.
  const at = stamp.indexOf('|');
  const halves: Pick<Stamps, 'bot' | 'trades'> = {};
  if (at > 0) halves.bot = stamp.slice(0, at);
  if (at + 1 < stamp.length) halves.trades = stamp.slice(at + 1);
  return halves;
}

/** The stamps an attribute of a shard item holds. */
function stampsOf(aspect: Aspect, value: unknown): Stamps {
  if (aspect === 'profile') return { profile: value as string };
  if (aspect === 'balance') return { balance: Number.parseInt(value as string, 36) };
  return splitStatus(value as string);
}

/**
 * The status stamp a write of `stamps` leaves, given the one stored (needed when only one half changes); undefined
 * when the write changes neither half. A bot stamp holds no '|' (a letter, base64url and base36), so the first '|'
 * ends it.
 */
export function statusAfter(stamps: Stamps, stored: StoredStatus | undefined): string | undefined {
  if (stamps.bot === undefined && stamps.trades === undefined) return undefined;
  if ((stamps.bot === undefined || stamps.trades === undefined) && !stored) {
    throw new Error('statusAfter: a write of one half of a status stamp needs the stored stamp (readStatusStamp)');
  }
  const had = stored?.stamp === undefined ? {} : splitStatus(stored.stamp);
  return `${stamps.bot ?? had.bot ?? ''}|${stamps.trades ?? had.trades ?? ''}`;
}

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
 * a change escapes it with a chance of 2^-48), the stamp's window in seconds (two base-36 digits: the writer
 * refreshes the stamp for a heartbeat that much later), and the heartbeat time being stamped. Short, because every
 * stamped write rewrites the whole shard item.
 */
export function botStamp(report: BotReport, windowSeconds: number): string {
  const window = windowSeconds.toString(36).padStart(2, '0');
  return `${STATE_LETTERS[report.state]}${digest([report.strategy, report.message])}${window}${compactTime(report.lastHeartbeatAt)}`;
}

/** Until when a bot stamp of the heartbeat at `heartbeatAt` with this window vouches for later heartbeats. */
export function restampBy(heartbeatAt: string, windowSeconds: number): string {
  return new Date(Date.parse(heartbeatAt) + windowSeconds * 1000).toISOString();
}

/** The open trade count and the latest trade time, exactly. */
export function tradesStamp(record: { openTradeCount: number; lastTradeAt: string | null }): string {
  return `${record.openTradeCount.toString(36)}|${compactTime(record.lastTradeAt)}`;
}

/**
 * The updates that store `stamps` of one account: one per shard item touched (a transaction may touch an item
 * once). A write of both status halves, or of none, has no condition of its own: the transaction's other items
 * carry the conditions, and a stamp only follows them. A write of one half is conditioned on the attribute being
 * as `stored` says, since the other half is copied from it.
 */
export function stampWrites(store: Store, accountId: string, stamps: Stamps, stored?: StoredStatus): TransactItem[] {
  const status = statusAfter(stamps, stored);
  const values: [Aspect, string | undefined][] = [
    ['profile', stamps.profile],
    ['status', status],
    ['balance', stamps.balance?.toString(36)],
  ];
  const halfOnly = status !== undefined && (stamps.bot === undefined || stamps.trades === undefined);
  return values
    .filter(([, value]) => value !== undefined)
    .map(([aspect, value]) => {
      const conditioned = aspect === 'status' && halfOnly;
      const was = stored?.stamp;
      return {
        Update: {
          TableName: store.tables.fleet,
          Key: shardKey(aspect, shardOf(accountId)),
          // The shard's change count moves with every stamp it takes (readShardCounts).
          UpdateExpression: 'SET #a = :a ADD #n :one',
          ...(conditioned ? { ConditionExpression: was === undefined ? 'attribute_not_exists(#a)' : '#a = :was' } : {}),
          ExpressionAttributeNames: { '#a': ATTRIBUTE[aspect] + accountId, '#n': COUNT },
          ExpressionAttributeValues: { ':a': value, ':one': 1, ...(conditioned && was !== undefined ? { ':was': was } : {}) },
        },
      };
    });
}

/**
 * The updates that take every stamp of one account out of its shards (a retired account: no fleet answer lists it),
 * each moving the shard's change count so polls see it go.
 */
export function removeStamps(store: Store, accountId: string): TransactItem[] {
  return (['profile', 'status', 'balance'] as const).map((aspect) => ({
    Update: {
      TableName: store.tables.fleet,
      Key: shardKey(aspect, shardOf(accountId)),
      UpdateExpression: 'REMOVE #a ADD #n :one',
      ExpressionAttributeNames: { '#a': ATTRIBUTE[aspect] + accountId, '#n': COUNT },
      ExpressionAttributeValues: { ':one': 1 },
    },
  }));
}

/** The status stamp of one account as stored, read consistently: what a write of one half is conditioned on. */
export async function readStatusStamp(store: Store, accountId: string): Promise<StoredStatus> {
  const item = await getItem(store, store.tables.fleet, shardKey('status', shardOf(accountId)), true, [ATTRIBUTE.status + accountId]);
  return { stamp: item?.[ATTRIBUTE.status + accountId] as string | undefined };
}

/** The stamps of some accounts (or every account, `*`), as stored: account id → stamps. */
export type FleetStamps = ReadonlyMap<string, Stamps>;

/** A shard item's change count: every stamp written to it adds one, in the same update. */
const COUNT = 'n';

/** What a shard item holds: its change count and the stamps of one aspect, by account. */
export interface ShardStamps {
  count: number;
  stamps: Map<string, Stamps>;
}

/** The stamps a shard item holds, by account (its attributes of `aspect`; any other, such as format 1's, skipped). */
function shardOfItem(aspect: Aspect, item: Item): ShardStamps {
  const stamps = new Map<string, Stamps>();
  for (const name in item) {
    if (ASPECT_OF[name.slice(0, 2)] === aspect) stamps.set(name.slice(2), stampsOf(aspect, item[name]));
  }
  return { count: Number(item[COUNT] ?? 0), stamps };
}

/** The shards that hold the stamps of `accounts`: every one for `*`. */
export function shardsHolding(accounts: AccountScope): number[] {
  return accounts === '*' ? [...Array(SHARDS).keys()] : [...new Set(accounts.map(shardOf))];
}

/**
 * The change counts of the `shards` of `aspect`, read with the meta item in one BatchGetItem (at most SHARDS + 1
 * small items, whatever the fleet's size; eventually consistent). A shard no write reached yet has no item, and no
 * count here. Undefined while the stamps are not known to be complete (a stage whose data predates them, until
 * `npm run backfill`): the caller then reads the tables.
 */
export async function readShardCounts(store: Store, aspect: Aspect, shards: readonly number[]): Promise<Map<number, number> | undefined> {
  const keys = shards.map((shard) => shardKey(aspect, shard));
  const counted = (await batchGetItems(store, { [store.tables.fleet]: [META, ...keys] }, false, ['shard', COUNT, 'complete', 'format']))[
    store.tables.fleet
  ];
  if (!isComplete(counted.find((item) => item.shard === META.shard))) return undefined;
  return new Map(counted.filter((item) => item.shard !== META.shard).map((item) => [shardNumber(item), Number(item[COUNT] ?? 0)]));
}

/** The `shards` of `aspect` read whole, by shard (a shard no write reached yet is absent). */
export async function readShards(
  store: Store,
  aspect: Aspect,
  shards: readonly number[],
  consistent: boolean,
): Promise<Map<number, ShardStamps>> {
  const keys = shards.map((shard) => shardKey(aspect, shard));
  const items = (await batchGetItems(store, { [store.tables.fleet]: keys }, consistent))[store.tables.fleet];
  return new Map(items.map((item) => [shardNumber(item), shardOfItem(aspect, item)]));
}

function shardNumber(item: Item): number {
  return Number(String(item.shard).split('#')[1]);
}

/** A bot stamp read back: its state, the digest of the rest of the report, its window, and the stamped heartbeat (epoch ms). */
export interface BotStamp {
  state: BotReport['state'];
  report: string;
  windowSeconds: number;
  heartbeatAt: number | null;
}

export function parseBotStamp(stamp: string): BotStamp {
  const heartbeat = stamp.slice(11);
  return {
    state: STATE_OF[stamp[0]],
    report: stamp.slice(1, 9),
    windowSeconds: Number.parseInt(stamp.slice(9, 11), 36),
    heartbeatAt: heartbeat ? Number.parseInt(heartbeat, 36) : null,
  };
}

/**
 * Whether a bot is stale at `now` as far as its stamp tells: the bot's last heartbeat is at or after the stamped
 * one and less than the stamp's window after it. `unknown` inside that window past the threshold, where only the
 * account item can tell. The rule is the status's own: running, and no heartbeat for more than
 * `staleAfterSeconds` whole seconds, or never.
 */
export function staleness(stamp: BotStamp, now: number, staleAfterSeconds: number): boolean | 'unknown' {
  const { state, heartbeatAt, windowSeconds } = stamp;
  if (state !== 'running') return false;
  if (heartbeatAt === null) return true;
  // Stamped further ahead than a clock may drift: the account item may hold a true, later report (the writer no
  // longer lets such a time hold them back), so only it can tell.
  if (heartbeatAt - now > MAX_CLOCK_AHEAD_MS) return 'unknown';
  if (Math.floor((now - heartbeatAt) / 1000) <= staleAfterSeconds) return false;
  if (Math.floor((now - heartbeatAt - windowSeconds * 1000) / 1000) > staleAfterSeconds) return true;
  return 'unknown';
}

/**
 * Whether the stamps and the fleet's statistics are complete in this format (the meta item, eventually consistent):
 * until then the fleet's performance is read account by account.
 */
export async function fleetComplete(store: Store): Promise<boolean> {
  return isComplete(await getItem(store, store.tables.fleet, META, false, ['complete', 'format']));
}

/** Whether the meta item as read says the stamps and sums are complete in this format (markStamped). */
function isComplete(meta: Item | undefined): boolean {
  return meta?.complete === true && meta.format === STAMP_FORMAT;
}

/** Marks the stamps complete: every account has them (a new stage, or after the backfill wrote the missing ones). */
export async function markStamped(store: Store, at: string): Promise<void> {
  await updateItem(store, {
    TableName: store.tables.fleet,
    Key: META,
    UpdateExpression: 'SET complete = :true, #format = :format, completedAt = if_not_exists(completedAt, :at)',
    ExpressionAttributeNames: { '#format': 'format' },
    ExpressionAttributeValues: { ':true': true, ':format': STAMP_FORMAT, ':at': at },
  });
}

/** Takes the mark away: the fleet answers read the tables again, as on a stage older than the stamps (bench, tests). */
export async function markUnstamped(store: Store): Promise<void> {
  await updateItem(store, {
    TableName: store.tables.fleet,
    Key: META,
    UpdateExpression: 'REMOVE complete, #format, completedAt',
    ExpressionAttributeNames: { '#format': 'format' },
  });
}

/** The attributes of an account in format 1 (its bot and trades stamps, in the status shard). */
const FORMAT_1 = ['b@', 't@'];

/**
 * Removes an account's stamps of format 1 (the backfill, once it wrote the current ones): nothing reads them, and
 * every stamped write of the shard would pay for their bytes. True when there were some.
 */
export async function removeFormat1Stamps(store: Store, accountId: string): Promise<boolean> {
  return updateItem(store, {
    TableName: store.tables.fleet,
    Key: shardKey('status', shardOf(accountId)),
    UpdateExpression: `REMOVE ${FORMAT_1.map((_, i) => `#old${i}`).join(', ')}`,
    ConditionExpression: FORMAT_1.map((_, i) => `attribute_exists(#old${i})`).join(' OR '),
    ExpressionAttributeNames: Object.fromEntries(FORMAT_1.map((prefix, i) => [`#old${i}`, prefix + accountId])),
  });
}

/**
 * One account's stamps as stored, to compare with what its items say (the backfill), and whether stamps of format
 * 1 are left of it (removeFormat1Stamps).
 */
export async function readAccountStamps(store: Store, accountId: string): Promise<{ stamps: Stamps; format1: boolean }> {
  const shard = shardOf(accountId);
  const result = await batchGetItems(
    store,
    { [store.tables.fleet]: (['profile', 'status', 'balance'] as const).map((aspect) => shardKey(aspect, shard)) },
    true,
  );
  const stamps: Stamps = {};
  let format1 = false;
  for (const item of result[store.tables.fleet]) {
    const aspect = (item.shard as string).split('#')[0] as Aspect;
    const value = item[ATTRIBUTE[aspect] + accountId];
    if (value !== undefined) Object.assign(stamps, stampsOf(aspect, value));
    if (FORMAT_1.some((prefix) => item[prefix + accountId] !== undefined)) format1 = true;
  }
  return { stamps, format1 };
}
