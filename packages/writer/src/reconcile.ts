/**
 * A bot's account reconciled against the exchange account an exchange feed mirrors (issue 47): both sides read (the
 * bot's trades, the fills the feed kept, the two balances), compared by core's pure rules (reconciliation.ts), and the
 * answer kept in the bot's ledger (`reconciliation`), each difference with when it was first seen. What is returned
 * besides are the differences new to this check, which are what an alert says, once each: the write is conditional on
 * the version read, so of two checks racing, one writes and alerts and the other fails as WRITE_CONFLICT.
 */
import { getBalanceRecord } from '@trading-bot-api/core/store/balances-table';
import type { Store } from '@trading-bot-api/core/store/dynamodb';
import {
  getReconciliation,
  putReconciliation,
  type ReconciliationEntry,
  readFills,
  type StoredDifference,
} from '@trading-bot-api/core/store/ledger-table';
import { readTrades, tradeListing } from '@trading-bot-api/core/store/trades-table';
import { type Difference, differenceKey, reconcile } from '@trading-bot-api/core/reconciliation';
import { attempts, commit } from './retry';
import * as check from './validate';

/** The most differences a reconciliation keeps (its item's 400 KB); `differenceCount` says how many there were. */
const MAX_DIFFERENCES = 1000;

/** What a check found: the answer as kept, and the differences it saw first. */
export interface Reconciliation {
  entry: ReconciliationEntry;
  fresh: Difference[];
}

/** Checks `accountId` (the bot's) against `exchangeAccountId` (the feed's) and keeps the answer; see the module's comment. */
export async function reconcileAccount(store: Store, accountId: string, exchangeAccountId: string, now: Date): Promise<Reconciliation> {
  check.accountId(accountId);
  check.accountId(exchangeAccountId);
  return attempts(`reconciling ${accountId} with ${exchangeAccountId}`, async () => {
    const [trades, fills, bot, exchange, previous] = await Promise.all([
      readTrades(store, tradeListing(accountId, {}), {}),
      readFills(store, exchangeAccountId),
      getBalanceRecord(store, accountId),
      getBalanceRecord(store, exchangeAccountId),
      getReconciliation(store, accountId, true),
    ]);
    const found = reconcile({
      trades: trades.filter((trade) => trade.status !== 'gone'),
      fills,
      balances: {
        // A NAV only from a snapshot: an account that never recorded one has a balance item, not a known NAV.
        bot: bot?.snapshotAt ? { nav: bot.nav, currency: bot.currency } : null,
        exchange: exchange?.snapshotAt ? { nav: exchange.nav, currency: exchange.currency } : null,
      },
    });
    const checkedAt = now.toISOString();
    const seen = new Map((previous?.differences ?? []).map((difference) => [differenceKey(difference), difference.since]));
    const fresh = found.differences.filter((difference) => !seen.has(differenceKey(difference)));
    const differences: StoredDifference[] = found.differences.map((difference) => ({
      ...difference,
      since: seen.get(differenceKey(difference)) ?? checkedAt,
    }));
    const entry: ReconciliationEntry = {
      accountId,
      exchangeAccountId,
      checkedAt,
      matched: found.matched,
      unchecked: found.unchecked,
      differences: differences.slice(0, MAX_DIFFERENCES),
      differenceCount: differences.length,
      version: (previous?.version ?? 0) + 1,
    };
    await commit(store, [putReconciliation(store, entry, previous?.version ?? 0)]);
    return { entry, fresh };
  });
}
