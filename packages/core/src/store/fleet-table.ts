import { createHash } from 'node:crypto';
import type { AccountScope } from '../ids';
import { canonicalJson } from '../canonical';
import { decimalScale, negateDecimal, sumDecimals } from '../decimal';
import { type PeriodFigures, type PeriodKey, mergePeriods, replacePeriod, storedPeriod } from '../rollups';
import type { Period } from '../time';
import { MAX_CLOCK_AHEAD_MS } from '../time';
import type { Account, BotReport } from '../types';
import { batchGetItems, getItem, type Item, putItem, queryItems, type Store, updateItem } from './dynamodb';
import { type PeriodEntry, type PeriodPartition, type PnlEntry, periodAttributes, periodKey, pnlKey } from './ledger-table';

/**
 * The fleet table: the fleet's summary, so a fleet poll costs the same at 5 accounts or 1,000. One program writes it,
 * the fleet projector (api/projector/), from the DynamoDB Streams of the accounts, balances and ledger tables; no
 * bot's transaction touches it, so a write by any version of the writer shows in it (docs/design.md).
 *
 * Stamps: per account, a short string per thing a fleet answer shows, computed from the account's own items alone:
 *
 * - `profile` (`p@<id>`): a digest of the profile (`/api/accounts`);
 * - `bot` (`r@<id>`): the bot's state, a digest of its strategy and message, the stamp's window and its heartbeat
 *   time rounded down to the window; `trades` (`o@<id>`): the open trade count and the latest trade time; both in
 *   the `status` items (`/api/all/status`), in two attributes because two streams write them;
 * - `balance` (`v@<id>`): the balances item's version, in base 36 (`/api/all/balance`).
 *
 * The stamps of an aspect are spread over SHARDS items (`<aspect>#<n>`, n from a hash of the account id), so an aspect
 * of the whole fleet is SHARDS items, and a key that sees some accounts reads only their shards and looks only at
 * their attributes. Each item has a change count `n` that every write moves: an unchanged poll reads the counts alone.
 *
 * Sums: per currency, its accounts' performance roll-ups (`perf#<currency>`: per day, block and month, as an
 * account's own) merged; and the accounts' P&L aggregates (`pnl`: per day, week and month, every currency's in one
 * item) summed; each item with the version of each account's item it holds (`v@<id>`): what makes replaying a stream
 * record harmless, and a correction recomputable from the accounts' own.
 */
export const SHARDS = 8;

/** Every stamp item's sort key: the stamps are one item per aspect and shard. */
const STAMPS = 'stamps';

/**
 * The refresh window of a bot stamp for a stale threshold: a minute short of the threshold, so a bot heartbeating
 * at least once a minute is always vouched fresh by its stamp alone; or half the threshold when that is longer. The
 * stamp's heartbeat moves once per window, so the window sets what the fleet's heartbeats cost the projector in
 * writes (docs/performance.md): the longer the cheaper. In exchange a bot that falls silent is, for up to the window
 * past its threshold, one whose account item the status reads.
 */
export function stampSecondsFor(staleAfterSeconds: number): number {
  const window = Math.max(staleAfterSeconds - 60, Math.ceil(staleAfterSeconds / 2));
  return Math.min(MAX_STAMP_SECONDS, Math.max(MIN_STAMP_SECONDS, window));
}

/** The shortest window (a new stamp at every heartbeat costs the most), and the longest a stamp can say (two base-36 digits). */
export const MIN_STAMP_SECONDS = 10;
export const MAX_STAMP_SECONDS = 1200;

/** The window for the deployed stale threshold of 300 s (resources/stages.js; a unit test keeps them together). */
export const DEFAULT_STAMP_SECONDS = stampSecondsFor(300);

export type Aspect = 'profile' | 'status' | 'balance';

/** What an account's stamps are about: the aspects' halves, each written from one table's stream. */
export type StampName = 'profile' | 'bot' | 'trades' | 'balance';

/** The source tables the projector reads: the stamps and statistics each one feeds. */
export type Source = 'accounts' | 'balances' | 'ledger';

/** The item that says which sources the summary is complete for (markComplete, readShardCounts). */
const META = { part: 'meta', key: 'meta' };

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
  return { part: `${aspect}#${shard}`, key: STAMPS };
}

/** Where each stamp lives: its aspect's items, under a prefix no account id can start with (packages/core/src/ids.ts). */
const PLACE: Record<StampName, { aspect: Aspect; prefix: string }> = {
  profile: { aspect: 'profile', prefix: 'p@' },
  bot: { aspect: 'status', prefix: 'r@' },
  trades: { aspect: 'status', prefix: 'o@' },
  balance: { aspect: 'balance', prefix: 'v@' },
};
const NAME_OF = Object.fromEntries(Object.entries(PLACE).map(([name, { prefix }]) => [prefix, name])) as Record<string, StampName>;

/** An account's stamps, each a short string (a balance version in base 36 read back as a number). */
export interface Stamps {
  profile?: string;
  bot?: string;
  trades?: string;
  balance?: number;
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
function compactTime(time: number | null): string {
  return time === null ? '' : time.toString(36);
}

/**
 * The bot's state (a letter), an 8-character digest of what else the fleet shows of its report (strategy, message:
 * a change escapes it with a chance of 2^-48), the stamp's window in seconds (two base-36 digits), and the
 * heartbeat's time rounded down to a multiple of the window: the stamp moves once per window while only the time
 * moves, and the bot's true last heartbeat is at or after the stamped one, less than a window later (staleness).
 */
export function botStamp(report: BotReport, windowSeconds: number): string {
  const window = windowSeconds.toString(36).padStart(2, '0');
  const at = report.lastHeartbeatAt === null ? null : Date.parse(report.lastHeartbeatAt);
  const rounded = at === null ? null : at - (((at % (windowSeconds * 1000)) + windowSeconds * 1000) % (windowSeconds * 1000));
  return `${STATE_LETTERS[report.state]}${reportDigest(report)}${window}${compactTime(rounded)}`;
}

/** The digest a bot stamp holds of the report's strategy and message (BotStamp's `report`). */
export function reportDigest(report: Pick<BotReport, 'strategy' | 'message'>): string {
  return digest([report.strategy, report.message]);
}

/** The open trade count and the latest trade time, exactly. */
export function tradesStamp(record: { openTradeCount: number; lastTradeAt: string | null }): string {
  return `${record.openTradeCount.toString(36)}|${compactTime(record.lastTradeAt === null ? null : Date.parse(record.lastTradeAt))}`;
}

/** One account's stamps to store (a string), to take away (null: the account retired or went), or to leave (absent). */
export type StampChange = Partial<Record<StampName, string | null>>;

/**
 * Stores stamp changes, one update per shard item touched, each moving the item's change count. Idempotent: a stamp
 * set again is the same value, so a stream batch replayed after a failure leaves what one run leaves.
 */
export async function writeStamps(store: Store, changes: ReadonlyMap<string, StampChange>): Promise<number> {
  const byItem = new Map<string, { key: Item; set: [string, string][]; remove: string[] }>();
  for (const [accountId, change] of changes) {
    for (const [name, value] of Object.entries(change) as [StampName, string | null | undefined][]) {
      if (value === undefined) continue;
      const key = shardKey(PLACE[name].aspect, shardOf(accountId));
      const id = key.part as string;
      const item = byItem.get(id) ?? { key, set: [], remove: [] };
      if (value === null) item.remove.push(PLACE[name].prefix + accountId);
      else item.set.push([PLACE[name].prefix + accountId, value]);
      byItem.set(id, item);
    }
  }
  // Each shard item's updates in order; the items side by side.
  const counts = await Promise.all(
    [...byItem.values()].map(async ({ key, set, remove }) => {
      let writes = 0;
      // An update expression holds at most 4 KB: a few dozen attributes at a time.
      for (let at = 0; at < set.length + remove.length; at += UPDATE_ATTRIBUTES) {
        const part = [...set.map(([name, value]) => ({ name, value })), ...remove.map((name) => ({ name, value: null }))].slice(
          at,
          at + UPDATE_ATTRIBUTES,
        );
        const names = Object.fromEntries(part.map((entry, i) => [`#a${i}`, entry.name]));
        const values = Object.fromEntries(part.flatMap((entry, i) => (entry.value === null ? [] : [[`:a${i}`, entry.value]])));
        const sets = part.flatMap((entry, i) => (entry.value === null ? [] : [`#a${i} = :a${i}`]));
        const removes = part.flatMap((entry, i) => (entry.value === null ? [`#a${i}`] : []));
        await updateItem(store, {
          TableName: store.tables.fleet,
          Key: key,
          UpdateExpression: [
            sets.length ? `SET ${sets.join(', ')}` : '',
            removes.length ? `REMOVE ${removes.join(', ')}` : '',
            'ADD #n :one',
          ]
            .filter(Boolean)
            .join(' '),
          ExpressionAttributeNames: { ...names, '#n': COUNT },
          ExpressionAttributeValues: { ...values, ':one': 1 },
        });
        writes += 1;
      }
      return writes;
    }),
  );
  return counts.reduce((sum, writes) => sum + writes, 0);
}

const UPDATE_ATTRIBUTES = 40;

/** The stamps of some accounts (or every account, `*`), as stored: account id → stamps. */
export type FleetStamps = ReadonlyMap<string, Stamps>;

/** A shard item's change count: every write to it adds one, in the same update. */
const COUNT = 'n';

/** What a shard item holds: its change count and the stamps of one aspect, by account. */
export interface ShardStamps {
  count: number;
  stamps: Map<string, Stamps>;
}

/** The stamps a shard item holds, by account. */
function shardOfItem(item: Item): ShardStamps {
  const stamps = new Map<string, Stamps>();
  for (const attribute in item) {
    const name = NAME_OF[attribute.slice(0, 2)];
    if (name === undefined) continue;
    const accountId = attribute.slice(2);
    const held = stamps.get(accountId) ?? {};
    const value = item[attribute] as string;
    if (name === 'balance') held.balance = Number.parseInt(value, 36);
    else held[name] = value;
    stamps.set(accountId, held);
  }
  return { count: Number(item[COUNT] ?? 0), stamps };
}

/** The shards that hold the stamps of `accounts`: every one for `*`. */
export function shardsHolding(accounts: AccountScope): number[] {
  return accounts === '*' ? [...Array(SHARDS).keys()] : [...new Set(accounts.map(shardOf))];
}

/** The sources each aspect's stamps come from: the summary serves an aspect once all of them are complete. */
const SOURCES_OF: Record<Aspect, Source[]> = { profile: ['accounts'], status: ['accounts', 'balances'], balance: ['balances'] };

/**
 * The change counts of the `shards` of `aspect`, read with the meta item in one BatchGetItem (at most SHARDS + 1
 * small items, whatever the fleet's size; eventually consistent). A shard no write reached yet has no item, and no
 * count here. Undefined while the summary is not complete for the aspect's sources (a stage whose data predates the
 * projector, until `npm run backfill`): the caller then reads the tables.
 */
export async function readShardCounts(store: Store, aspect: Aspect, shards: readonly number[]): Promise<Map<number, number> | undefined> {
  const keys = shards.map((shard) => shardKey(aspect, shard));
  const counted = (await batchGetItems(store, { [store.tables.fleet]: [META, ...keys] }, false, ['part', COUNT, 'complete']))[
    store.tables.fleet
  ];
  const meta = counted.find((item) => item.part === META.part);
  if (!SOURCES_OF[aspect].every((source) => isComplete(meta, source))) return undefined;
  return new Map(counted.filter((item) => item.part !== META.part).map((item) => [shardNumber(item), Number(item[COUNT] ?? 0)]));
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
  return new Map(items.map((item) => [shardNumber(item), shardOfItem(item)]));
}

function shardNumber(item: Item): number {
  return Number(String(item.part).split('#')[1]);
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
 * one and less than the stamp's window later, so 'unknown' only within that window past the threshold (the account
 * item then tells). The rule is the status's own: running, and no heartbeat for more than `staleAfterSeconds` whole
 * seconds, or never.
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

/** Whether the meta item as read says the summary holds everything `source` ever had (markComplete). */
/**
 * The meta item's entry that says a source is complete. The ledger's is `rollups`: a stage whose fleet summary was
 * complete for the ledger before the roll-ups (`ledger`, per day and instrument) holds no roll-ups of the fleet, and
 * reads performance and P&L account by account until `npm run backfill` builds them.
 */
const MARK: Record<Source, string> = { accounts: 'accounts', balances: 'balances', ledger: 'rollups' };

function isComplete(meta: Item | undefined, source: Source): boolean {
  const complete = meta?.complete as Record<string, unknown> | undefined;
  return typeof complete?.[MARK[source]] === 'string';
}

/**
 * Whether the fleet's roll-ups and P&L sums are complete (the meta item, eventually consistent): until then
 * performance and P&L are read account by account.
 */
export async function statsComplete(store: Store): Promise<boolean> {
  return isComplete(await getItem(store, store.tables.fleet, META, false, ['complete']), 'ledger');
}

/** The sources the summary is complete for, read consistently: what the projector need not check again. */
export async function completeSources(store: Store): Promise<Source[]> {
  const meta = await getItem(store, store.tables.fleet, META, true, ['complete']);
  return (['accounts', 'balances', 'ledger'] as const).filter((source) => isComplete(meta, source));
}

/**
 * Marks the summary complete for `sources` at `at`: it holds everything they ever had (the projector, for a table
 * whose stream began with it; the backfill, once it projected every account).
 */
export async function markComplete(store: Store, sources: readonly Source[], at: string): Promise<void> {
  if (!sources.length) return;
  // The map first (a fresh item has none), then its entries.
  await updateItem(store, {
    TableName: store.tables.fleet,
    Key: META,
    UpdateExpression: 'SET complete = if_not_exists(complete, :none)',
    ExpressionAttributeValues: { ':none': {} },
  });
  await updateItem(store, {
    TableName: store.tables.fleet,
    Key: META,
    UpdateExpression: `SET ${sources.map((_, i) => `complete.#s${i} = if_not_exists(complete.#s${i}, :at)`).join(', ')}`,
    ExpressionAttributeNames: Object.fromEntries(sources.map((source, i) => [`#s${i}`, MARK[source]])),
    ExpressionAttributeValues: { ':at': at },
  });
}

/** Takes the marks away: the fleet answers read the tables again, as on a stage whose data predates the summary (bench, tests). */
export async function markIncomplete(store: Store): Promise<void> {
  await updateItem(store, { TableName: store.tables.fleet, Key: META, UpdateExpression: 'REMOVE complete' });
}

/** One account's stamps as stored (the backfill compares them with what its items say; tests). */
export async function readAccountStamps(store: Store, accountId: string): Promise<Stamps> {
  const shard = shardOf(accountId);
  const result = await batchGetItems(
    store,
    { [store.tables.fleet]: (['profile', 'status', 'balance'] as const).map((aspect) => shardKey(aspect, shard)) },
    true,
  );
  const stamps: Stamps = {};
  for (const item of result[store.tables.fleet]) Object.assign(stamps, shardOfItem(item).stamps.get(accountId) ?? {});
  return stamps;
}

// --- The fleet's performance roll-ups and P&L, per currency ---

/**
 * The partition of one currency's performance roll-ups (`perf#<currency>`, sorted as an account's own in the ledger:
 * `perf#<unit>#<start>`): one partition per currency, whatever its number of accounts, so a window of the fleet reads
 * what one account's does. Only the projector writes it (one writer per stream shard, retried on a revision), so it
 * needs no shards.
 */
export function perfPart(currency: string): string {
  return `perf#${currency}`;
}

/**
 * The partition of the fleet's P&L aggregates (`pnl#<period>#<start>`, as an account's own), each item holding every
 * currency's sums: a year of daily P&L is 366 items, however many currencies and accounts.
 */
export const PNL_PART = 'pnl';

/** Where a currency's roll-ups are read (ledger-table's readPeriods). */
export function fleetPeriods(store: Store, currency: string): PeriodPartition {
  return { table: store.tables.fleet, partitionKey: 'part', partition: perfPart(currency), sortKey: 'key' };
}

/** An account's item of one period or P&L aggregate as a stream record shows it, before and after a change (null: none). */
export interface SummedChange<T> {
  accountId: string;
  before: { version: number; value: T } | null;
  after: { version: number; value: T } | null;
}

/** How a kind of fleet sum is stored and folded. */
interface SumKind<T> {
  /** The sum an item holds, and the attributes that hold `total` (beside the key, the revision and the versions). */
  decode: (item: Item) => T;
  encode: (total: T) => Item;
  empty: T;
  /** `total` with one account's `before` replaced by `after`; undefined when that cannot be told from the three. */
  replace: (total: T, before: T | null, after: T | null) => T | undefined;
  merge: (a: T, b: T) => T;
}

/** The version attribute of an account's figures in a fleet sum. */
const versionOf = (accountId: string) => `v@${accountId}`;

interface Summed<T> {
  total: T;
  versions: Map<string, number>;
}

/**
 * Rewrites one fleet sum with what `next` makes of it as read (undefined: nothing to change), on condition that no
 * other projector wrote it meanwhile (its revision); read again and retried when one did.
 */
async function rewriteSum<T>(
  store: Store,
  key: Item,
  kind: SumKind<T>,
  next: (held: Summed<T> | undefined) => Promise<Summed<T> | undefined>,
): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const item = await getItem(store, store.tables.fleet, key, true);
    const revision = Number(item?.revision ?? 0);
    const held = item && {
      total: kind.decode(item),
      versions: new Map(
        Object.entries(item)
          .filter(([name]) => name.startsWith('v@'))
          .map(([name, version]) => [name.slice(2), Number(version)]),
      ),
    };
    const summed = await next(held);
    if (!summed) return;
    const written = await putItem(store, {
      TableName: store.tables.fleet,
      Item: {
        ...key,
        ...kind.encode(summed.total),
        revision: revision + 1,
        ...Object.fromEntries([...summed.versions].map(([accountId, version]) => [versionOf(accountId), version])),
      },
      ConditionExpression: item ? 'revision = :revision' : 'attribute_not_exists(part)',
      ...(item ? { ExpressionAttributeValues: { ':revision': revision } } : {}),
    });
    if (written) return;
    if (attempt >= 20) throw new Error(`the fleet's sum ${key.part} ${key.key} kept changing under the projector`);
  }
}

/**
 * Folds the accounts' changes of one item (a currency's period or P&L aggregate) into the fleet's sum: each account's
 * figures replace what the sum held of it, unless the sum holds that version or a later one already (a replayed
 * record). When a change cannot be folded (a correction made a best trade worse, say) or the sum holds another
 * version than the change started from, the sum is recomputed from every account's own (`readEntries`, read after
 * the sum).
 */
async function foldSum<T>(
  store: Store,
  key: Item,
  kind: SumKind<T>,
  changes: readonly SummedChange<T>[],
  readEntries: (accountIds: readonly string[]) => Promise<{ accountId: string; version: number; value: T }[]>,
): Promise<void> {
  await rewriteSum(store, key, kind, async (held) => {
    let total: T | undefined = held?.total ?? kind.empty;
    const versions = new Map(held?.versions);
    let moved = false;
    for (const change of changes) {
      const had = versions.get(change.accountId);
      const next = change.after?.version;
      if (next !== undefined && had !== undefined && had >= next) continue;
      if (next === undefined && had === undefined) continue;
      moved = true;
      // The sum holds the figures the change started from, or none of the account's: fold the change in.
      const fits = had === undefined || change.before?.version === had;
      const base = had === undefined ? null : (change.before?.value ?? null);
      total = total !== undefined && fits ? kind.replace(total, base, change.after?.value ?? null) : undefined;
      if (next === undefined) versions.delete(change.accountId);
      else versions.set(change.accountId, next);
    }
    if (!moved) return undefined;
    return total !== undefined ? { total, versions } : summedOf(kind, await readEntries([...versions.keys()]));
  });
}

function summedOf<T>(kind: SumKind<T>, entries: readonly { accountId: string; version: number; value: T }[]): Summed<T> {
  return {
    total: entries.reduce((sum, entry) => kind.merge(sum, entry.value), kind.empty),
    versions: new Map(entries.map((entry) => [entry.accountId, entry.version])),
  };
}

/**
 * Recomputes one fleet sum from the accounts' own (`accountIds` and any the sum holds; `readEntries` reads them
 * after the sum): the backfill's, for a stage whose data predates the projector. True when the sum was missing or
 * held other figures, and was written.
 */
async function rebuildSum<T>(
  store: Store,
  key: Item,
  kind: SumKind<T>,
  accountIds: readonly string[],
  readEntries: (accountIds: readonly string[]) => Promise<{ accountId: string; version: number; value: T }[]>,
): Promise<boolean> {
  let rewritten = false;
  await rewriteSum(store, key, kind, async (held) => {
    const summed = summedOf(kind, await readEntries([...new Set([...accountIds, ...(held?.versions.keys() ?? [])])]));
    rewritten =
      !held ||
      canonicalJson({ ...held, versions: Object.fromEntries(held.versions) }) !==
        canonicalJson({ ...summed, versions: Object.fromEntries(summed.versions) });
    return rewritten ? summed : undefined;
  });
  return rewritten;
}

/** The performance roll-ups: every instrument's figures, and its days' nets, summed over the accounts. */
function periodKind(period: PeriodKey): SumKind<PeriodFigures> {
  return {
    decode: (item) => storedPeriod(item.instruments),
    encode: (total) => periodAttributes(period, total),
    empty: {},
    replace: replacePeriod,
    merge: mergePeriods,
  };
}

/** The P&L of one period: sums and counts. */
export type PnlSum = Pick<PnlEntry, 'realizedPL' | 'tradesClosed' | 'wins' | 'losses'>;

/** P&L sums by currency: the fleet's of one period, or one account's (its currency alone). */
export type PnlByCurrency = Record<string, PnlSum>;

const NO_PNL: PnlSum = { realizedPL: '0', tradesClosed: 0, wins: 0, losses: 0 };

/** `a` plus (or minus) `b`, currency by currency. */
function addPnl(a: PnlByCurrency, b: PnlByCurrency, sign: 1 | -1): PnlByCurrency {
  const sum = { ...a };
  for (const [currency, each] of Object.entries(b)) {
    const held = sum[currency] ?? NO_PNL;
    sum[currency] = {
      realizedPL: sumDecimals([held.realizedPL, sign > 0 ? each.realizedPL : negateDecimal(each.realizedPL)]),
      tradesClosed: held.tradesClosed + sign * each.tradesClosed,
      wins: held.wins + sign * each.wins,
      losses: held.losses + sign * each.losses,
    };
  }
  return sum;
}

function pnlKind(key: { period: Period; start: string }): SumKind<PnlByCurrency> {
  return {
    decode: (item) => (item.currencies ?? {}) as PnlByCurrency,
    encode: (total) => ({ ...key, currencies: total }),
    empty: {},
    // A sum has the places of its most precise term. When an account's P&L loses places (a bot's float corrected to
    // its currency's cents, say), the other accounts' places are not in the sum: it is counted again from every
    // account's own, or the fleet would keep showing the float's places ("12.790000000000000" for "12.79").
    replace: (total, before, after) =>
      Object.entries(before ?? {}).some(
        ([currency, was]) => decimalScale(was.realizedPL) > decimalScale(after?.[currency]?.realizedPL ?? '0'),
      )
        ? undefined
        : addPnl(addPnl(total, before ?? {}, -1), after ?? {}, 1),
    merge: (a, b) => addPnl(a, b, 1),
  };
}

/** An account's P&L aggregate as its currency's share of the fleet's. */
export function pnlShare(currency: string, entry: PnlSum): PnlByCurrency {
  return { [currency]: { realizedPL: entry.realizedPL, tradesClosed: entry.tradesClosed, wins: entry.wins, losses: entry.losses } };
}

/** The fleet's item of one period of a currency's roll-ups. */
function periodItemKey(currency: string, period: PeriodKey): Item {
  return { part: perfPart(currency), key: periodKey('', period).entryKey };
}

/** The fleet's item of one P&L aggregate, every currency's. */
function pnlItemKey(key: { period: Period; start: string }): Item {
  return { part: PNL_PART, key: pnlKey('', key.period, key.start).entryKey };
}

const asChange = <T>(entry: { accountId: string; version: number; value: T }) => entry;

/** Folds the accounts' changes of one period of one currency into the fleet's roll-ups (foldSum). */
export function foldPeriod(
  store: Store,
  currency: string,
  period: PeriodKey,
  changes: readonly SummedChange<PeriodFigures>[],
  readEntries: (accountIds: readonly string[]) => Promise<PeriodEntry[]>,
): Promise<void> {
  const read = async (ids: readonly string[]) => (await readEntries(ids)).map((entry) => asChange({ ...entry, value: entry.figures }));
  return foldSum(store, periodItemKey(currency, period), periodKind(period), changes, read);
}

/**
 * Folds the accounts' changes of one P&L aggregate into the fleet's (foldSum), each account's as its currency's share
 * (`shareOf` reads the accounts' own again when a change cannot be folded).
 */
export function foldPnl(
  store: Store,
  key: { period: Period; start: string },
  changes: readonly SummedChange<PnlByCurrency>[],
  readShares: (accountIds: readonly string[]) => Promise<{ accountId: string; version: number; value: PnlByCurrency }[]>,
): Promise<void> {
  return foldSum(store, pnlItemKey(key), pnlKind(key), changes, readShares);
}

/** Recomputes one period of a currency's roll-ups from its accounts' (the backfill's). True when it was written. */
export function rebuildPeriod(
  store: Store,
  currency: string,
  period: PeriodKey,
  accountIds: readonly string[],
  readEntries: (accountIds: readonly string[]) => Promise<PeriodEntry[]>,
): Promise<boolean> {
  const read = async (ids: readonly string[]) => (await readEntries(ids)).map((entry) => asChange({ ...entry, value: entry.figures }));
  return rebuildSum(store, periodItemKey(currency, period), periodKind(period), accountIds, read);
}

/** Recomputes one P&L aggregate of the fleet from its accounts' shares (the backfill's). True when it was written. */
export function rebuildPnl(
  store: Store,
  key: { period: Period; start: string },
  accountIds: readonly string[],
  readShares: (accountIds: readonly string[]) => Promise<{ accountId: string; version: number; value: PnlByCurrency }[]>,
): Promise<boolean> {
  return rebuildSum(store, pnlItemKey(key), pnlKind(key), accountIds, readShares);
}

/**
 * The fleet's P&L aggregates of `period` starting from `first` to `last` (both period starts), oldest first, each
 * with every currency's sums: one key range, one item per period that had a close.
 */
export async function readFleetPnl(
  store: Store,
  period: Period,
  first: string,
  last: string,
): Promise<{ start: string; currencies: PnlByCurrency }[]> {
  const items = await queryItems(store, {
    TableName: store.tables.fleet,
    KeyConditionExpression: 'part = :part AND #key BETWEEN :first AND :last',
    ExpressionAttributeNames: { '#key': 'key' },
    ExpressionAttributeValues: {
      ':part': PNL_PART,
      ':first': pnlKey('', period, first).entryKey,
      ':last': pnlKey('', period, last).entryKey,
    },
  });
  return items.map((item) => ({ start: item.start as string, currencies: (item.currencies ?? {}) as PnlByCurrency }));
}

// --- The accounts of each currency ---

/** The item listing one currency's accounts, retired ones too (their history counts in the fleet's figures). */
function membersKey(currency: string): Item {
  return { part: 'members', key: currency };
}

/**
 * Adds accounts to their currency's list, or takes them out (`present` false: the account item was deleted). A set's
 * ADD and DELETE: a replayed change leaves what one leaves.
 */
export async function writeMembers(
  store: Store,
  changes: readonly { accountId: string; currency: string; present: boolean }[],
): Promise<void> {
  for (const { accountId, currency, present } of changes) {
    await updateItem(store, {
      TableName: store.tables.fleet,
      Key: membersKey(currency),
      UpdateExpression: `${present ? 'ADD' : 'DELETE'} accounts :ids`,
      ExpressionAttributeValues: { ':ids': new Set([accountId]) },
    });
  }
}

/** Every currency's accounts (one Query, an item per currency, whatever the fleet's size), by currency. */
export async function readMembers(store: Store): Promise<Map<string, string[]>> {
  const items = await queryItems(store, {
    TableName: store.tables.fleet,
    KeyConditionExpression: 'part = :part',
    ExpressionAttributeValues: { ':part': 'members' },
  });
  return new Map(
    items
      .map((item) => [item.key as string, [...((item.accounts as Set<string> | undefined) ?? [])]] as [string, string[]])
      .filter(([, ids]) => ids.length),
  );
}
