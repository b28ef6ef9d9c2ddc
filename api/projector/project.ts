/**
 * The fleet projector: the one owner of the fleet table (packages/core/src/store/fleet-table.ts). It reads the changes
 * of the accounts, balances and ledger tables from their DynamoDB Streams (deployed: an event source mapping per
 * table invokes functions/fleet-projector.ts; locally: scripts/local-stack/stream-pump.ts reads DynamoDB Local's
 * streams) and keeps the fleet's stamps and statistics from them. No bot's transaction touches the fleet table, so
 * whatever wrote a change (this writer, an older one, a script) shows in the next fleet poll once projected.
 *
 * Every change is derived from the item as it now is (a stream record's new image), so a record delivered twice, or
 * a batch retried after a failure, leaves what one delivery leaves.
 */
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { toAccount, toBotReport } from '@trading-bot-api/core/store/accounts-table';
import { toBalanceRecord } from '@trading-bot-api/core/store/balances-table';
import { getItem, type Item, type Store } from '@trading-bot-api/core/store/dynamodb';
import {
  botStamp,
  completeSources,
  foldPeriod,
  foldPnl,
  markComplete,
  type PnlByCurrency,
  pnlShare,
  profileStamp,
  type Source,
  type StampChange,
  type SummedChange,
  tradesStamp,
  writeMembers,
  writeStamps,
} from '@trading-bot-api/core/store/fleet-table';
import {
  getPeriodOfOwners,
  getPnlOfOwners,
  isEntryOf,
  type PeriodEntry,
  type PnlEntry,
  toPeriodEntry,
  toPnlEntry,
} from '@trading-bot-api/core/store/ledger-table';
import type { PeriodFigures, PeriodKey } from '@trading-bot-api/core/rollups';
import type { Period } from '@trading-bot-api/core/time';

/** One change of a source table as its stream tells it: the item before and after (absent: none), unmarshalled. */
export interface SourceRecord {
  source: Source;
  before?: Item;
  after?: Item;
}

export interface Projection {
  store: Store;
  /** The bot stamps' window (fleet-table's stampSecondsFor of the stage's stale threshold). */
  windowSeconds: number;
  now?: () => Date;
}

/** What a batch did: stamp items written and fleet sums folded (the bench's and the tests' figures). */
export interface Projected {
  stampWrites: number;
  sums: number;
}

/** The profile and bot stamps of an account item; every one null (none) for a retired or deleted account. */
export function accountStamps(item: Item | undefined, windowSeconds: number): StampChange {
  if (!item || item.retiredAt !== undefined) return { profile: null, bot: null };
  return { profile: profileStamp(toAccount(item)), bot: botStamp(toBotReport(item), windowSeconds) };
}

/** The trades and balance stamps of a balances item; null for a retired account's. */
export function balanceStamps(item: Item | undefined): StampChange {
  if (!item || item.retiredAt !== undefined) return { trades: null, balance: null };
  const record = toBalanceRecord(item);
  return { trades: tradesStamp(record), balance: record.version.toString(36) };
}

/** An account's roll-up of a ledger item (not the register, P&L or equity entries, nor an older writer's fleet sums). */
function periodOf(item: Item | undefined): PeriodEntry | null {
  if (!item || !isEntryOf(item, 'perf') || String(item.accountId).startsWith('@')) return null;
  return toPeriodEntry(item);
}

/** An account's P&L aggregate of a ledger item. */
function pnlOf(item: Item | undefined): PnlEntry | null {
  if (!item || !isEntryOf(item, 'pnl') || String(item.accountId).startsWith('@')) return null;
  return toPnlEntry(item);
}

/** Fleet sums folded at once: a batch of a history's import touches hundreds of periods. */
const FOLDS_AT_ONCE = 16;

/** The accounts' currencies, read once each: a currency never changes. */
const currencies = new Map<string, string>();

async function currencyOf(store: Store, accountId: string): Promise<string | undefined> {
  const key = `${store.tables.accounts}/${accountId}`;
  if (!currencies.has(key)) {
    const item = await getItem(store, store.tables.accounts, { accountId }, true, ['currency']);
    if (item) currencies.set(key, item.currency as string);
  }
  return currencies.get(key);
}

/**
 * The sources this container has already judged, per fleet table: each table is described once, fresh or not (a table
 * older than its stream waits for the backfill, and DescribeTable is a control-plane call with a low rate limit).
 */
const judged = new Map<string, Set<Source>>();

/**
 * How long after its table's creation a stream may begin and still hold the table's whole history, and how long a
 * stream keeps records (24 h): a table created with its stream, younger than that, has every change in it.
 */
const STREAM_BEGUN_WITH_TABLE_MS = 60_000;
const STREAM_RETENTION_MS = 24 * 3600_000;

/**
 * Marks the summary complete for the sources of a batch whose tables were created with their streams, less than a
 * day ago: this projector sees (or saw) every change they ever had, so a fresh deploy is on the cheap path without a
 * backfill. A table whose data predates its stream waits for `npm run backfill`.
 */
async function markFreshSources(projection: Projection, sources: ReadonlySet<Source>): Promise<void> {
  const { store } = projection;
  let known = judged.get(store.tables.fleet);
  if (!known) {
    known = new Set(await completeSources(store));
    judged.set(store.tables.fleet, known);
  }
  const unknown = [...sources].filter((source) => !known.has(source));
  if (!unknown.length) return;
  const now = (projection.now?.() ?? new Date()).getTime();
  const fresh: Source[] = [];
  for (const source of unknown) {
    const { Table } = await store.client.send(new DescribeTableCommand({ TableName: store.tables[source] }));
    const created = Table?.CreationDateTime?.getTime();
    // The stream's label is the time it began (ISO 8601 without a zone, UTC).
    const label = Table?.LatestStreamLabel;
    const begun = label ? Date.parse(label.endsWith('Z') ? label : `${label}Z`) : Number.NaN;
    if (created === undefined || Number.isNaN(begun)) continue;
    if (begun - created <= STREAM_BEGUN_WITH_TABLE_MS && now - created < STREAM_RETENTION_MS) fresh.push(source);
  }
  await markComplete(store, fresh, new Date(now).toISOString());
  // Judged only once the batch got this far: a failed call is tried again with the retried batch.
  for (const source of unknown) known.add(source);
}

/** Whether two stamp changes store the same stamps. */
function sameStamps(a: StampChange, b: StampChange): boolean {
  return (Object.keys(a) as (keyof StampChange)[]).every((name) => a[name] === b[name]);
}

/**
 * Projects a batch of changes, in the order each source's stream gave them (a stream keeps the order of each item's
 * changes): an account's stamps are written when its last image's stamps differ from its first's, and each roll-up
 * period and P&L aggregate that moved is folded into its currency's.
 */
export async function project(projection: Projection, records: readonly SourceRecord[]): Promise<Projected> {
  const { store, windowSeconds } = projection;
  if (!records.length) return { stampWrites: 0, sums: 0 };
  await markFreshSources(projection, new Set(records.map((record) => record.source)));
  // Per account and source: the stamps before the batch and after it.
  const spans = new Map<string, { accountId: string; before: StampChange; after: StampChange }>();
  const members: { accountId: string; currency: string; present: boolean }[] = [];
  // Per currency and item: the accounts' changes, folded together.
  const sums = new Map<string, { fold: (changes: unknown[]) => Promise<void>; changes: unknown[] }>();
  for (const record of records) {
    const item = record.after ?? record.before!;
    const accountId = item.accountId as string;
    if (record.source === 'ledger') {
      // Only roll-up periods and P&L aggregates count in the fleet's sums: the register and the equity points (most
      // of a balance history's records) need no currency read.
      if (!summed(record)) continue;
      // Figures of an account no longer there: nothing of the fleet's can hold them. (Its currency is read once.)
      const currency = await currencyOf(store, accountId);
      const change = currency === undefined ? undefined : sumChange(store, record, currency);
      if (!change) continue;
      const group = sums.get(change.id) ?? { fold: change.fold, changes: [] };
      group.changes.push(change.change);
      sums.set(change.id, group);
      continue;
    }
    // A new account joins its currency's list, a deleted one leaves it (a retired one stays: its history counts).
    if (record.source === 'accounts' && (!record.before || !record.after))
      members.push({ accountId, currency: item.currency as string, present: !!record.after });
    const stampsOf = (image: Item | undefined) =>
      record.source === 'accounts' ? accountStamps(image, windowSeconds) : balanceStamps(image);
    const span = `${record.source}/${accountId}`;
    const held = spans.get(span);
    spans.set(span, { accountId, before: held?.before ?? stampsOf(record.before), after: stampsOf(record.after) });
  }
  const changes = new Map<string, StampChange>();
  for (const { accountId, before, after } of spans.values()) {
    if (sameStamps(before, after)) continue;
    changes.set(accountId, { ...changes.get(accountId), ...after });
  }
  const stampWrites = await writeStamps(store, changes);
  await writeMembers(store, members);
  // Each period is an item of its own: folded side by side, a few at a time.
  const groups = [...sums.values()];
  for (let at = 0; at < groups.length; at += FOLDS_AT_ONCE) {
    await Promise.all(groups.slice(at, at + FOLDS_AT_ONCE).map((group) => group.fold(group.changes)));
  }
  return { stampWrites, sums: sums.size };
}

/** Whether a ledger record is of an item the fleet's sums count: an account's roll-up period or P&L aggregate. */
function summed(record: SourceRecord): boolean {
  return !!(periodOf(record.before) || periodOf(record.after) || pnlOf(record.before) || pnlOf(record.after));
}

/**
 * The change to a fleet sum a ledger record makes (a roll-up period's, in its account's currency's sums; a P&L
 * aggregate's, as its currency's share of the fleet's; none for the register or the equity points): the sum's id,
 * the account's figures before and after, and how to fold a group of such changes.
 */
function sumChange(
  store: Store,
  record: SourceRecord,
  currency: string,
): { id: string; change: unknown; fold: (changes: unknown[]) => Promise<void> } | undefined {
  const accountId = (record.after ?? record.before)!.accountId as string;
  const [beforePeriod, afterPeriod] = [periodOf(record.before), periodOf(record.after)];
  if (beforePeriod || afterPeriod) {
    const key: PeriodKey = { unit: (afterPeriod ?? beforePeriod)!.unit, start: (afterPeriod ?? beforePeriod)!.start };
    const side = (entry: PeriodEntry | null) => entry && { version: entry.version, value: entry.figures };
    const change: SummedChange<PeriodFigures> = { accountId, before: side(beforePeriod), after: side(afterPeriod) };
    return {
      id: `${currency}#perf#${key.unit}#${key.start}`,
      change,
      fold: (changes) =>
        foldPeriod(store, currency, key, changes as SummedChange<PeriodFigures>[], (ids) => getPeriodOfOwners(store, ids, key)),
    };
  }
  const [beforePnl, afterPnl] = [pnlOf(record.before), pnlOf(record.after)];
  if (beforePnl || afterPnl) {
    const key: { period: Period; start: string } = { period: (afterPnl ?? beforePnl)!.period, start: (afterPnl ?? beforePnl)!.start };
    const side = (entry: PnlEntry | null) => entry && { version: entry.version, value: pnlShare(currency, entry) };
    const change: SummedChange<PnlByCurrency> = { accountId, before: side(beforePnl), after: side(afterPnl) };
    // Every account's share, each in its own currency (a recount after a change that cannot be folded).
    const readShares = async (ids: readonly string[]) =>
      Promise.all(
        (await getPnlOfOwners(store, ids, key)).map(async (entry) => ({
          accountId: entry.accountId,
          version: entry.version,
          value: pnlShare((await currencyOf(store, entry.accountId)) ?? '', entry),
        })),
      );
    return {
      id: `pnl#${key.period}#${key.start}`,
      change,
      fold: (changes) => foldPnl(store, key, changes as SummedChange<PnlByCurrency>[], readShares),
    };
  }
  return undefined;
}
