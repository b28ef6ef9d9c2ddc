/**
 * The one-off backfill of what the writer keeps beside the data, for data written before it kept them: the
 * performance roll-ups (issue 29), per account the figures of every day, block and month recomputed from its closed
 * trades, each written where missing or different (API 1.5 added the fees paid to them), and the statistics of the
 * format before them (one item per day and instrument, which nothing reads) removed; and the account's currency on
 * each of its trades stored before API 1.5 (the writer stamps it on every trade it writes since); and the mark of an
 * account whose deposits or withdrawals were kept before the writer marked them (accounts-table's markTransfers),
 * without which the comparison would not read them. Running it again changes nothing. (The fleet's summary is the fleet
 * projector's: `npm run backfill` rebuilds it after the accounts, api/projector/rebuild.ts.)
 *
 * A bot may write while it runs. The stored roll-ups are read first and the trades after, and each write is
 * conditioned on the version read: a close the writer counted in between changes that version, the write is
 * refused, and the account is done again from the start. A close it counted before is in both reads.
 */
import {
  MAX_TRANSACTION_ITEMS,
  type Store,
  TransactionCancelled,
  type TransactItem,
  transactWrite,
} from '@trading-bot-api/core/store/dynamodb';
import {
  deletePeriod,
  holdsTransfers,
  legacyStatsRemovals,
  type PeriodEntry,
  putPeriod,
  readAllPeriods,
} from '@trading-bot-api/core/store/ledger-table';
import { getAccountItem, hasTransfers, markTransfers } from '@trading-bot-api/core/store/accounts-table';
import pRetry from 'p-retry';
import { canonicalJson } from '@trading-bot-api/core/canonical';
import { periodId } from '@trading-bot-api/core/rollups';
import { getBalanceRecord } from '@trading-bot-api/core/store/balances-table';
import { readTrades, stampCurrency, tradeListing } from '@trading-bot-api/core/store/trades-table';
import { periodsAfter } from './rules';

/** What the backfill did to one account. */
export interface BackfillResult {
  accountId: string;
  closedTrades: number;
  /** Days, blocks and months with closed trades. */
  entries: number;
  /** Trades given their account's currency (stored before API 1.5). */
  stamped: number;
  /** The account marked as having deposits or withdrawals kept (before the writer marked them). */
  markedTransfers: boolean;
  written: number;
  unchanged: number;
  attempts: number;
}

const MAX_ATTEMPTS = 8;

/** The figures alone (no version), for telling whether a stored entry already holds them, the best and worst included. */
function figures({ version: _version, ...entry }: PeriodEntry): string {
  return canonicalJson(entry);
}

/**
 * Stores the roll-ups `computed` of one owner in place of those `stored`, where missing or different, each
 * conditioned on the version read; a stored entry nothing computed any more is removed, and so is every item of the
 * format before the roll-ups (`legacy`). Returns how many entries it wrote (`put`) and removed.
 */
async function rewritePeriods(
  store: Store,
  stored: readonly PeriodEntry[],
  computed: readonly PeriodEntry[],
  legacy: readonly TransactItem[],
): Promise<{ put: number; removed: number }> {
  const storedBy = new Map(stored.map((entry) => [periodId(entry), entry]));
  const computedIds = new Set(computed.map((entry) => periodId(entry)));
  // Each entry's version is the stored one plus one, or 1 for a new entry.
  const puts = computed
    .map((entry) => ({
      entry: { ...entry, version: (storedBy.get(periodId(entry))?.version ?? 0) + 1 },
      read: storedBy.get(periodId(entry)),
    }))
    .filter(({ entry, read }) => !read || figures(read) !== figures(entry))
    .map(({ entry, read }) => putPeriod(store, entry, read));
  const removals: TransactItem[] = [
    ...stored.filter((entry) => !computedIds.has(periodId(entry))).map((entry) => deletePeriod(store, entry)),
    ...legacy,
  ];
  const writes = [...puts, ...removals];
  for (let at = 0; at < writes.length; at += MAX_TRANSACTION_ITEMS)
    await transactWrite(store, writes.slice(at, at + MAX_TRANSACTION_ITEMS));
  return { put: puts.length, removed: removals.length };
}

async function backfillOnce(store: Store, accountId: string): Promise<Omit<BackfillResult, 'attempts' | 'markedTransfers'>> {
  // First what is stored (with its versions), then the trades: see the module's comment.
  const [stored, legacy, balance] = await Promise.all([
    readAllPeriods(store, accountId),
    legacyStatsRemovals(store, accountId),
    getBalanceRecord(store, accountId),
  ]);
  if (!balance) throw new Error(`account ${accountId} has no balance item: it was not written by a writer`);
  // Every trade of the account (one Query, followed to the end).
  const trades = await readTrades(store, tradeListing(accountId, {}), {});
  const unstamped = trades.filter((trade) => trade.currency === null).map((trade) => stampCurrency(store, trade, balance.currency));
  for (let at = 0; at < unstamped.length; at += MAX_TRANSACTION_ITEMS)
    await transactWrite(store, unstamped.slice(at, at + MAX_TRANSACTION_ITEMS));
  const closed = trades.filter((trade) => trade.status === 'closed');
  const computed = periodsAfter(accountId, balance.currency, [], closed);
  const { put, removed } = await rewritePeriods(store, stored, computed, legacy);
  return {
    accountId,
    closedTrades: closed.length,
    entries: computed.length,
    stamped: unstamped.length,
    written: put + removed,
    unchanged: computed.length - put,
  };
}

/**
 * Backfills one account, again from the start whenever a writer got in the way; then marks it as having transfers
 * when it keeps some and its item does not say so: once, after the retries, so the result says whether this run did.
 */
export async function backfillAccount(store: Store, accountId: string): Promise<BackfillResult> {
  const result = await pRetry(async (attempts) => ({ ...(await backfillOnce(store, accountId)), attempts }), {
    retries: MAX_ATTEMPTS - 1,
    minTimeout: 0,
    shouldRetry: ({ error }) => error instanceof TransactionCancelled,
  });
  const [account, transfers] = await Promise.all([getAccountItem(store, accountId, true), holdsTransfers(store, accountId)]);
  const markedTransfers = transfers && account !== undefined && !hasTransfers(account);
  if (markedTransfers) await transactWrite(store, [markTransfers(store, accountId)]);
  return { ...result, markedTransfers };
}
