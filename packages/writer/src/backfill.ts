/**
 * The one-off backfill of what the writer keeps beside the data, for data written before it kept them: the
 * performance statistics (API 1.2), per account the figures of every day and instrument recomputed from its closed
 * trades, and the fleet's stamps (fleet-table.ts) recomputed from its account and balances items; each written where
 * missing or different. Running it again changes nothing. Once every account is done the stamps are marked complete
 * (`markStamped`), and the fleet polls use them from then on.
 *
 * A bot may write while it runs. The stored statistics are read first and the trades after, and each write is
 * conditioned on the version read: a close the writer counted in between changes that version, the write is
 * refused, and the account is done again from the start. A close it counted before is in both reads.
 */
import { compareIds } from '@trading-bot-api/core/ids';
import { getAccountItem, markBotStamped, toAccount, toBotReport } from '@trading-bot-api/core/store/accounts-table';
import { balanceUnchanged, getBalanceRecord } from '@trading-bot-api/core/store/balances-table';
import { type Store, scanAll, TransactionCancelled, transactWrite } from '@trading-bot-api/core/store/dynamodb';
import {
  botStamp,
  DEFAULT_STAMP_SECONDS,
  parseBotStamp,
  profileStamp,
  readAccountStamps,
  removeFormat1Stamps,
  removeStamps,
  restampBy,
  shardOf,
  type Stamps,
  stampWrites,
  tradesStamp,
} from '@trading-bot-api/core/store/fleet-table';
import { deleteStats, fleetStatsOwner, putStats, readStatsEntries, type StatsEntry } from '@trading-bot-api/core/store/ledger-table';
import { mergeStats } from '@trading-bot-api/core/performance';
import { readTrades, tradeListing } from '@trading-bot-api/core/store/trades-table';
import type { Trade } from '@trading-bot-api/core/types';
import { statsAfter, statsId } from './rules';

/** What the backfill did to one account. */
export interface BackfillResult {
  accountId: string;
  closedTrades: number;
  /** Days × instruments with closed trades. */
  entries: number;
  written: number;
  unchanged: number;
  /** Whether the account's fleet stamps were missing or wrong, and written. */
  stamped: boolean;
  attempts: number;
}

const MAX_TRANSACTION_ITEMS = 100;
const MAX_ATTEMPTS = 8;

/** Every closed trade of the account (one Query, followed to the end). */
function closedTrades(store: Store, accountId: string): Promise<Trade[]> {
  return readTrades(store, tradeListing(accountId, { status: 'closed' }), {});
}

/** A value as JSON with every object's keys sorted, at every depth: equal figures give equal text. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonical(item)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The figures alone (no version), for telling whether a stored entry already holds them, the best and worst included. */
function figures({ version: _version, ...entry }: StatsEntry): string {
  return canonical(entry);
}

/** Every day's statistics of `owner` (an account, or a fleet sum). */
function allStats(store: Store, owner: string): Promise<StatsEntry[]> {
  return readStatsEntries(store, owner, '0000-01-01T00:00:00.000Z', '9999-12-31T00:00:00.000Z');
}

/**
 * Stores the statistics `computed` of one owner in place of those `stored`, where missing or different, each
 * conditioned on the version read; a stored entry nothing computed any more is removed. Returns how many entries
 * it wrote (`put`) and removed.
 */
async function rewriteStats(
  store: Store,
  stored: readonly StatsEntry[],
  computed: readonly StatsEntry[],
): Promise<{ put: number; removed: number }> {
  const storedBy = new Map(stored.map((entry) => [statsId(entry), entry]));
  const computedIds = new Set(computed.map((entry) => statsId(entry)));
  // Each entry's version is the stored one plus one, or 1 for a new entry.
  const puts = computed
    .map((entry) => ({
      entry: { ...entry, version: (storedBy.get(statsId(entry))?.version ?? 0) + 1 },
      read: storedBy.get(statsId(entry)),
    }))
    .filter(({ entry, read }) => !read || figures(read) !== figures(entry))
    .map(({ entry, read }) => putStats(store, entry, read));
  const removals = stored.filter((entry) => !computedIds.has(statsId(entry))).map((entry) => deleteStats(store, entry));
  const writes = [...puts, ...removals];
  for (let at = 0; at < writes.length; at += MAX_TRANSACTION_ITEMS)
    await transactWrite(store, writes.slice(at, at + MAX_TRANSACTION_ITEMS));
  return { put: puts.length, removed: removals.length };
}

async function backfillOnce(store: Store, accountId: string, stampSeconds: number): Promise<Omit<BackfillResult, 'attempts'>> {
  // First what is stored (with its versions), then the trades: see the module's comment.
  const stored = await allStats(store, accountId);
  const trades = await closedTrades(store, accountId);
  const computed = statsAfter(accountId, [], trades);
  const { put, removed } = await rewriteStats(store, stored, computed);
  return {
    accountId,
    closedTrades: trades.length,
    entries: computed.length,
    written: put + removed,
    unchanged: computed.length - put,
    stamped: await backfillStamps(store, accountId, stampSeconds),
  };
}

/**
 * Whether a stored bot stamp still says what the report does: the same state and report, and a heartbeat time
 * less than its own window behind (the writer refreshes it no less often).
 */
function botStampHolds(stored: string | undefined, expected: string, lastHeartbeatAt: string | null): boolean {
  if (stored === undefined) return false;
  const [have, want] = [parseBotStamp(stored), parseBotStamp(expected)];
  if (have.state !== want.state || have.report !== want.report) return false;
  if (lastHeartbeatAt === null || have.heartbeatAt === null) return lastHeartbeatAt === null && have.heartbeatAt === null;
  const behind = Date.parse(lastHeartbeatAt) - have.heartbeatAt;
  return behind >= 0 && behind < have.windowSeconds * 1000;
}

/**
 * Writes the account's fleet stamps when one is missing or wrong, conditioned on the account and balances items
 * being as read (a heartbeat, profile change or balance write in between cancels it, and the account is redone);
 * a bot stamp with a window of `stampSeconds`. Then removes its stamps of an older format, if any.
 */
async function backfillStamps(store: Store, accountId: string, stampSeconds: number): Promise<boolean> {
  const [item, balance, { stamps: stored, format1 }] = await Promise.all([
    getAccountItem(store, accountId, true),
    getBalanceRecord(store, accountId),
    readAccountStamps(store, accountId),
  ]);
  if (!item || !balance) return false;
  if (balance.retiredAt !== null) {
    // A retired account has no stamps (no fleet answer lists it): take away any left, on condition that it is still
    // retired at the version read.
    const any = Object.values(stored).some((stamp) => stamp !== undefined);
    if (any) await transactWrite(store, [balanceUnchanged(store, accountId, balance.version), ...removeStamps(store, accountId)]);
    return (format1 && (await removeFormat1Stamps(store, accountId))) || any;
  }
  const account = toAccount(item);
  const report = toBotReport(item);
  const expected: Stamps = {
    profile: profileStamp(account),
    bot: botStamp(report, stampSeconds),
    trades: tradesStamp(balance),
    balance: balance.version,
  };
  const holds =
    stored.profile === expected.profile &&
    stored.trades === expected.trades &&
    stored.balance === expected.balance &&
    botStampHolds(stored.bot, expected.bot as string, report.lastHeartbeatAt);
  if (!holds) {
    const restamp = report.lastHeartbeatAt === null ? null : restampBy(report.lastHeartbeatAt, stampSeconds);
    await transactWrite(store, [
      markBotStamped(store, account, report, restamp),
      balanceUnchanged(store, accountId, balance.version),
      ...stampWrites(store, accountId, expected),
    ]);
  }
  const cleaned = format1 && (await removeFormat1Stamps(store, accountId));
  return !holds || cleaned;
}

/**
 * Backfills one account, again from the start whenever a writer got in the way; its bot stamp with a window of
 * `stampSeconds` (the writer's, WriterOptions.stampSeconds).
 */
export async function backfillAccount(store: Store, accountId: string, stampSeconds = DEFAULT_STAMP_SECONDS): Promise<BackfillResult> {
  for (let attempt = 1; ; attempt++) {
    try {
      return { ...(await backfillOnce(store, accountId, stampSeconds)), attempts: attempt };
    } catch (error) {
      if (!(error instanceof TransactionCancelled) || attempt >= MAX_ATTEMPTS) throw error;
    }
  }
}

/** What the backfill did to the fleet's statistics of one currency and shard. */
export interface FleetSumsResult {
  currency: string;
  shard: number;
  accounts: number;
  /** Days × instruments the shard's accounts traded. */
  entries: number;
  written: number;
  attempts: number;
}

/**
 * The fleet's statistics of one currency and shard (ledger-table's fleetStatsOwner) recomputed from its accounts'
 * statistics (backfilled first), written where missing or different. The sums are read first, then the shard's
 * accounts are listed and their entries read: a close counted in between (even an account's created meanwhile)
 * changes the sum too, so the write conditioned on the sum's version is refused and the shard is done again; one
 * counted before is in both reads.
 */
export async function backfillFleetSums(store: Store, currency: string, shard: number): Promise<FleetSumsResult> {
  const owner = fleetStatsOwner(currency, shard);
  for (let attempt = 1; ; attempt++) {
    try {
      const stored = await allStats(store, owner);
      const accountIds =
        (await fleetSumGroups(store)).find((group) => group.currency === currency && group.shard === shard)?.accountIds ?? [];
      const sums = new Map<string, StatsEntry>();
      for (const entry of (await Promise.all(accountIds.map((id) => allStats(store, id)))).flat()) {
        const sum = sums.get(statsId(entry));
        sums.set(statsId(entry), sum ? { ...sum, ...mergeStats(sum, entry) } : { ...entry, accountId: owner });
      }
      const { put, removed } = await rewriteStats(store, stored, [...sums.values()]);
      return { currency, shard, accounts: accountIds.length, entries: sums.size, written: put + removed, attempts: attempt };
    } catch (error) {
      if (!(error instanceof TransactionCancelled) || attempt >= MAX_ATTEMPTS) throw error;
    }
  }
}

/** The accounts of the store by currency and fleet shard: the fleet's sums there are to backfill. */
export async function fleetSumGroups(store: Store): Promise<{ currency: string; shard: number; accountIds: string[] }[]> {
  const groups = new Map<string, { currency: string; shard: number; accountIds: string[] }>();
  for (const item of await scanAll(store, store.tables.accounts)) {
    const [accountId, currency] = [String(item.accountId), String(item.currency)];
    const shard = shardOf(accountId);
    const group = groups.get(`${currency}#${shard}`) ?? { currency, shard, accountIds: [] };
    group.accountIds.push(accountId);
    groups.set(`${currency}#${shard}`, group);
  }
  return [...groups.values()].sort((a, b) => compareIds(a.currency, b.currency) || a.shard - b.shard);
}

/** The ids of every account of the store, sorted. */
export async function accountIds(store: Store): Promise<string[]> {
  const items = await scanAll(store, store.tables.accounts);
  return items.map((item) => String(item.accountId)).sort();
}
