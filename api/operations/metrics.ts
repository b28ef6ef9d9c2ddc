import pMap from 'p-map';
import { toAccount } from '@trading-bot-api/core/store/accounts-table';
import { toBalance, toBalanceRecord } from '@trading-bot-api/core/store/balances-table';
import { getPnlOfAccounts, type PnlEntry } from '@trading-bot-api/core/store/ledger-table';
import { periodStart, timestamp } from '@trading-bot-api/core/time';
import type { Principal } from '../access';
import { readHeld } from './held';
import { readAccountPerformance } from './performance';
import { readStatusItems, statusOf } from './status';
import { store } from '../database';

/**
 * Today's P&L of each account this instance has read, under the day and the version of the balances item it was read
 * under. The writer changes an account's P&L aggregates only in a transaction that also writes its balances item
 * (whose version every write moves): while the version and the day stay, the aggregate has not changed, and a scrape
 * reads only the accounts whose balance moved (a fleet's scrape then costs what its status read costs, not one more
 * item per bot). Read consistently: an aggregate must be at least as new as the version it is kept under; none: no
 * trade closed today.
 */
const todayHeld = new Map<string, { stamp: string; value: Pick<PnlEntry, 'realizedPL' | 'tradesClosed'> | undefined }>();

/**
 * The last 90 days' win rate and drawdown ratio of each account this instance has read (a few dozen roll-up items
 * each), under the day and the account's trade activity (its last trade's time and realized P&L): unlike the
 * balances version, which every heartbeat's balance moves, these move only when a trade opens or closes.
 */
const recentHeld = new Map<string, { stamp: string; value: { winRate: string | null; maxDrawdownRatio: string | null } }>();

/**
 * The fleet's figures for a scrape, from what `/api/all/status` reads (status.ts: each visible account's accounts item
 * and balances item, two items per account, for the exact heartbeat times): the same items hold the profiles and the
 * balances too, and each account's P&L aggregate of today is kept under its balances item's version (todayHeld). No
 * stamp and no listing is read, whatever the fleet's size: the stamps serve conditional polls, which a scrape never
 * sends (every heartbeat age it shows moves), and the profiles and balances they would have spared are in the items
 * read already.
 */
export async function readFleetFigures(principal: Principal, now: Date) {
  const items = await readStatusItems(principal);
  const fleet = statusOf(items, now);
  const ids = fleet.accounts.map((bot) => bot.accountId);
  const records = new Map(ids.map((id) => [id, items.balances.get(id) && toBalanceRecord(items.balances.get(id)!)]));
  const day = timestamp(periodStart(now.getTime(), 'day'));
  const [todayOf, recentOf] = await Promise.all([
    readHeld(
      todayHeld,
      ids,
      (id) => records.get(id) && `${day} ${records.get(id)!.version}`,
      async (stale) => (await getPnlOfAccounts(store, stale, 'day', day, true)).map((entry) => [entry.accountId, entry] as const),
    ),
    // A first scrape reads every account's: a few at a time, so a large fleet's does not flood the table with queries
    // (at 200 bots, all at once, DynamoDB Local timed out and the scrape answered 503).
    readHeld(
      recentHeld,
      ids,
      (id) => `${day} ${records.get(id)?.lastTradeAt} ${records.get(id)?.realizedPL}`,
      (stale) =>
        pMap(
          stale,
          async (id) => {
            const [figures] = (await readAccountPerformance(id, {}, principal, now)).currencies;
            return [id, { winRate: figures.winRate, maxDrawdownRatio: figures.maxDrawdown.ratio }] as const;
          },
          { concurrency: 8 },
        ),
    ),
  ]);
  return {
    bots: fleet.accounts.map((bot, i) => {
      const balance = items.balances.get(bot.accountId);
      const today = todayOf.get(bot.accountId);
      return {
        status: bot,
        account: toAccount(items.accounts[i]),
        // Undefined for an account with no balances item yet (created a moment ago).
        balance: balance && toBalance(balance),
        // Its realized P&L of the current UTC day.
        today: { realizedPL: today?.realizedPL ?? '0', tradesClosed: today?.tradesClosed ?? 0 },
        // The last 90 days' win rate and largest drawdown against equity (the performance operation's default window).
        recent: recentOf.get(bot.accountId)!,
      };
    }),
    summary: fleet.summary,
  };
}

/** What `GET /api/metrics` shows: every visible bot (retired ones left out, as in the fleet answers) and the counts. */
export type FleetFigures = Awaited<ReturnType<typeof readFleetFigures>>;

/** One bot's figures, as the fleet answers give them, and its realized P&L of the current UTC day. */
export type BotFigures = FleetFigures['bots'][number];
