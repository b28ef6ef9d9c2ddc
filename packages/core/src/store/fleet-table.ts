import { randomUUID } from 'node:crypto';
import { canonicalJson } from '../canonical';
import {
  type Aspect,
  type Contribution,
  foldSum,
  PERIOD_SUMS,
  PNL_SUMS,
  type PnlByCurrency,
  type SumChange,
  type Summed,
  type SumRules,
  sumOf,
} from '../fleet';
import type { PeriodFigures, PeriodKey } from '../rollups';
import type { Period } from '../time';
import { batchGetItems, getItem, type Item, putItem, queryItems, type Store, updateItem } from './dynamodb';
import { FleetItemMalformed, FleetSumContended } from './errors';
import { entryKeyOf, type PeriodPartition, periodAttributes } from './ledger-table';

/**
 * The fleet table: the fleet's summary, so a fleet answer costs the same at 5 accounts or 1,000. The fleet projector
 * (api/projector/) alone writes it, from the streams of the accounts, balances and ledger tables, by the rules of
 * packages/core/src/fleet.ts; no bot's transaction touches it. Its items, each small or bounded by the periods and
 * instruments it sums (never by the number of accounts but for a currency's list and a sum's versions):
 *
 *   version / <aspect>               a change count `n` per fleet answer and the table's `epoch`: an unchanged poll
 *                                    reads this one item
 *   members / <currency>             the currency's account ids (a string set; retired accounts too)
 *   perf#<currency> / perf#<unit>#<start>   the currency's performance roll-ups summed, sorted as an account's own
 *   pnl / pnl#<period>#<start>       the P&L aggregates of every currency, summed
 *
 * Each sum holds the version of each account's item it counts (`v@<id>`: a record delivered again is skipped, a
 * correction recounted) and a `revision` it is rewritten on condition of.
 */

/** An item's key in the fleet table. */
type FleetKey = { part: string; key: string };

// --- Versions: one per fleet answer.

/** A fleet answer's version: the table's epoch (set when the item is first written) and the answer's change count. */
export interface FleetVersion {
  epoch: string;
  n: number;
}

const versionKey = (aspect: Aspect): FleetKey => ({ part: 'version', key: aspect });

/** Moves the versions of `aspects`: one small update each, whatever the fleet's size. */
export async function bumpVersions(store: Store, aspects: Iterable<Aspect>): Promise<void> {
  await Promise.all(
    [...new Set(aspects)].map((aspect) =>
      updateItem(store, {
        TableName: store.tables.fleet,
        Key: versionKey(aspect),
        UpdateExpression: 'SET epoch = if_not_exists(epoch, :epoch) ADD n :one',
        ExpressionAttributeValues: { ':epoch': randomUUID(), ':one': 1 },
      }),
    ),
  );
}

/** A version item as read (absent: n 0, before any write). */
function versionOf(aspect: Aspect, item: Item | undefined): FleetVersion {
  if (item && (typeof item.epoch !== 'string' || typeof item.n !== 'number')) throw new FleetItemMalformed(versionKey(aspect), 'epoch, n');
  return { epoch: (item?.epoch as string | undefined) ?? '', n: (item?.n as number | undefined) ?? 0 };
}

/** The version of one fleet answer (eventually consistent: one small item); n 0 before any write. */
export async function readVersion(store: Store, aspect: Aspect): Promise<FleetVersion> {
  return versionOf(aspect, await getItem(store, store.tables.fleet, versionKey(aspect)));
}

/** The versions of several answers, in their order, in one BatchGetItem (a request, where each GetItem is one). */
export async function readVersions(store: Store, aspects: readonly Aspect[]): Promise<FleetVersion[]> {
  const found = (await batchGetItems(store, { [store.tables.fleet]: aspects.map(versionKey) }))[store.tables.fleet];
  const byAspect = new Map(found.map((item) => [item.key, item]));
  return aspects.map((aspect) => versionOf(aspect, byAspect.get(aspect)));
}

// --- The accounts of each currency.

const membersKey = (currency: string): FleetKey => ({ part: 'members', key: currency });

/** Adds accounts to their currency's list, or takes them out (`present` false). A set's ADD and DELETE: replays are harmless. */
export async function writeMembers(store: Store, changes: readonly { accountId: string; currency: string; present: boolean }[]) {
  for (const { accountId, currency, present } of changes) {
    await updateItem(store, {
      TableName: store.tables.fleet,
      Key: membersKey(currency),
      UpdateExpression: `${present ? 'ADD' : 'DELETE'} accounts :ids`,
      ExpressionAttributeValues: { ':ids': new Set([accountId]) },
    });
  }
}

/** Every currency's accounts (one Query, an item per currency), by currency; a currency with none is absent. */
export async function readMembers(store: Store): Promise<Map<string, string[]>> {
  const items = await queryItems(store, {
    TableName: store.tables.fleet,
    KeyConditionExpression: 'part = :part',
    ExpressionAttributeValues: { ':part': 'members' },
  });
  const members = new Map<string, string[]>();
  for (const item of items) {
    // A set's last member deleted takes the attribute with it.
    if (item.accounts === undefined) continue;
    if (!(item.accounts instanceof Set)) throw new FleetItemMalformed(membersKey(String(item.key)), 'accounts is not a string set');
    members.set(String(item.key), [...item.accounts] as string[]);
  }
  return members;
}

// --- The sums.

/** Where a sum lives and how its figures are stored. */
export interface SumPlace<T> {
  key: FleetKey;
  rules: SumRules<T>;
  decode(item: Item): T;
  encode(total: T): Item;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/** One period of a currency's performance roll-ups. */
export function periodSum(currency: string, period: PeriodKey): SumPlace<PeriodFigures> {
  const key = { part: `perf#${currency}`, key: entryKeyOf('perf', period.unit, period.start) };
  return {
    key,
    rules: PERIOD_SUMS,
    decode: (item) => {
      if (!isObject(item.instruments) || !Object.values(item.instruments).every(isObject)) throw new FleetItemMalformed(key, 'instruments');
      return item.instruments as PeriodFigures;
    },
    encode: (total) => periodAttributes(period, total),
  };
}

/** One P&L aggregate of the fleet, every currency's. */
export function pnlSum(period: Period, start: string): SumPlace<PnlByCurrency> {
  const key = { part: 'pnl', key: entryKeyOf('pnl', period, start) };
  return { key, rules: PNL_SUMS, decode: (item) => pnlOfItem(key, item), encode: (total) => ({ period, start, currencies: total }) };
}

function pnlOfItem(key: FleetKey, item: Item): PnlByCurrency {
  const currencies = item.currencies ?? {};
  const valid = (sum: unknown) =>
    isObject(sum) &&
    typeof sum.realizedPL === 'string' &&
    ['tradesClosed', 'wins', 'losses'].every((count) => typeof sum[count] === 'number');
  if (!isObject(currencies) || !Object.values(currencies).every(valid)) throw new FleetItemMalformed(key, 'currencies');
  return currencies as PnlByCurrency;
}

/** How many times a sum is read and written again when another projector wrote it meanwhile. */
const SUM_ATTEMPTS = 20;

/**
 * Rewrites one sum with what `next` makes of it as held (undefined: nothing to change), on condition that no other
 * projector wrote it meanwhile; read again and retried when one did. A malformed sum is `held` undefined when
 * `overwrite` (the rebuild's), and FleetItemMalformed otherwise. True when written.
 */
async function rewriteSum<T>(
  store: Store,
  place: SumPlace<T>,
  next: (held: Summed<T> | undefined) => Promise<Summed<T> | undefined>,
  overwrite = false,
): Promise<boolean> {
  for (let attempt = 1; attempt <= SUM_ATTEMPTS; attempt++) {
    const item = await getItem(store, store.tables.fleet, place.key, true);
    let held: Summed<T> | undefined;
    try {
      held = item && heldSum(place, item);
    } catch (error) {
      if (!overwrite) throw error;
    }
    const summed = await next(held);
    if (!summed) return false;
    const versions = Object.fromEntries([...summed.versions].map(([accountId, version]) => [`v@${accountId}`, version]));
    const written = await putItem(store, {
      TableName: store.tables.fleet,
      Item: { ...place.key, ...place.encode(summed.total), ...versions, revision: (Number(item?.revision) || 0) + 1 },
      ...(item?.revision === undefined
        ? { ConditionExpression: item ? 'attribute_not_exists(revision)' : 'attribute_not_exists(part)' }
        : { ConditionExpression: 'revision = :revision', ExpressionAttributeValues: { ':revision': item.revision } }),
    });
    if (written) return true;
  }
  throw new FleetSumContended(place.key, SUM_ATTEMPTS);
}

function heldSum<T>(place: SumPlace<T>, item: Item): Summed<T> {
  const versions = new Map<string, number>();
  for (const [name, version] of Object.entries(item)) {
    if (!name.startsWith('v@')) continue;
    if (typeof version !== 'number') throw new FleetItemMalformed(place.key, name);
    versions.set(name.slice(2), version);
  }
  if (typeof item.revision !== 'number') throw new FleetItemMalformed(place.key, 'revision');
  return { total: place.decode(item), versions };
}

/** The accounts' own figures of one sum, read (consistently) for a recount. */
export type ReadContributions<T> = (accountIds: readonly string[]) => Promise<Contribution<T>[]>;

/** Folds the accounts' changes of one sum in (fleet.ts's foldSum), recounting from their own figures when it asks. */
export async function foldIntoSum<T>(store: Store, place: SumPlace<T>, changes: readonly SumChange<T>[], read: ReadContributions<T>) {
  await rewriteSum(store, place, async (held) => {
    const folded = foldSum(place.rules, held, changes);
    return folded && 'recount' in folded ? sumOf(place.rules, await read(folded.recount)) : folded;
  });
}

/**
 * Recounts one sum from the accounts' own figures (`accountIds` and any the sum holds; `read` after the sum is read,
 * so a fold meanwhile makes the write fail and the recount start again). True when it was missing or held other figures.
 */
export function rebuildSum<T>(store: Store, place: SumPlace<T>, accountIds: readonly string[], read: ReadContributions<T>) {
  return rewriteSum(
    store,
    place,
    async (held) => {
      const summed = sumOf(place.rules, await read([...new Set([...accountIds, ...(held?.versions.keys() ?? [])])]));
      const same = (sum: Summed<T>) => canonicalJson([place.encode(sum.total), Object.fromEntries(sum.versions)]);
      return held && same(held) === same(summed) ? undefined : summed;
    },
    true,
  );
}

/** Where a currency's roll-ups are read (ledger-table's readPeriods). */
export function fleetPeriods(store: Store, currency: string): PeriodPartition {
  const { part } = periodSum(currency, { unit: 'day', start: '' }).key;
  return { table: store.tables.fleet, partitionKey: 'part', partition: part, sortKey: 'key' };
}

/** The fleet's P&L of `period` from `first` to `last` (period starts), oldest first: one key range, an item per period with a close. */
export async function readFleetPnl(store: Store, period: Period, first: string, last: string) {
  const [low, high] = [pnlSum(period, first).key, pnlSum(period, last).key];
  const items = await queryItems(store, {
    TableName: store.tables.fleet,
    KeyConditionExpression: 'part = :part AND #key BETWEEN :first AND :last',
    ExpressionAttributeNames: { '#key': 'key' },
    ExpressionAttributeValues: { ':part': low.part, ':first': low.key, ':last': high.key },
  });
  return items.map((item) => ({ start: String(item.start), currencies: pnlOfItem({ part: low.part, key: String(item.key) }, item) }));
}
