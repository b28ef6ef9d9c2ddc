import pMap from 'p-map';
import { toAccount } from '@trading-bot-api/core/store/accounts-table';
import { toBalance, toBalanceRecord } from '@trading-bot-api/core/store/balances-table';
import { getPnlOfAccounts, type PnlEntry } from '@trading-bot-api/core/store/ledger-table';
import { periodStart, timestamp } from '@trading-bot-api/core/time';
import type { Principal } from '../access';
import { readAccountPerformance } from './performance';
import { readStatusItems, statusOf } from './status';
import { store } from '../database';

/**
 * Today's P&L of each account this instance has read, with the day and the version of the balances item it was read
 * under. The writer changes an account's P&L aggregates only in a transaction that also writes its balances item
 * (whose version every write moves): while the version and the day stay, the aggregate has not changed, and a scrape
 * reads only the accounts whose balance moved (a fleet's scrape then costs what its status read costs, not one more
 * item per bot).
 */
const todayHeld = new Map<string, { day: string; version: number; entry: Pick<PnlEntry, 'realizedPL' | 'tradesClosed'> | undefined }>();

/**
 * Today's P&L aggregate of each of `ids` (none: no trade closed today), read where this instance holds none for the
 * version their balances item has now (`versions`; an account without one is read every time). Read consistently: an
 * aggregate must be at least as new as the version it is kept under.
 */
async function todaysPnl(ids: readonly string[], day: string, versions: ReadonlyMap<string, number>) {
  const held = (id: string) => {
    const entry = todayHeld.get(id);
    return entry !== undefined && entry.day === day && entry.version === versions.get(id);
  };
  const missing = ids.filter((id) => !held(id));
  const read = new Map((await getPnlOfAccounts(store, missing, 'day', day, true)).map((entry) => [entry.accountId, entry]));
  for (const id of missing) {
    const version = versions.get(id);
    if (version === undefined) todayHeld.delete(id);
    else todayHeld.set(id, { day, version, entry: read.get(id) });
  }
  return new Map(ids.map((id) => [id, read.get(id) ?? todayHeld.get(id)?.entry]));
}

/**
 * The recent figures of each account this instance has read, with the day and the account's trade activity they
 * were read under (its last trade's time and realized P&L): unlike the balances version, which every heartbeat's
 * balance moves, these move only when a trade opens or closes.
 */
const recentHeld = new Map<
  string,
  { day: string; activity: string; recent: { winRate: string | null; maxDrawdownRatio: string | null } }
>();

/**
 * The last 90 days' win rate and drawdown ratio of each of `ids`, read (a few dozen roll-up items each) only where
 * this instance holds none for today and the account's trade activity now (`activity`).
 */
async function recentFigures(ids: readonly string[], day: string, activity: ReadonlyMap<string, string>, principal: Principal, now: Date) {
  const missing = ids.filter((id) => {
    const held = recentHeld.get(id);
    return !(held && held.day === day && held.activity === activity.get(id));
  });
  // A first scrape reads every account's: a few at a time, so a large fleet's does not flood the table with queries
  // (at 200 bots, all at once, DynamoDB Local timed out and the scrape answered 503).
  const read = await pMap(
    missing,
    async (id) => {
      const [figures] = (await readAccountPerformance(id, {}, principal, now)).currencies;
      return [id, { winRate: figures.winRate, maxDrawdownRatio: figures.maxDrawdown.ratio }] as const;
    },
    { concurrency: 8 },
  );
  for (const [id, recent] of read) recentHeld.set(id, { day, activity: activity.get(id)!, recent });
  const fresh = new Map(read);
  return new Map(ids.map((id) => [id, fresh.get(id) ?? recentHeld.get(id)!.recent]));
}

/**
 * The fleet's figures for a scrape, from what `/api/all/status` reads (status.ts: each visible account's accounts item
 * and balances item, two items per account, for the exact heartbeat times): the same items hold the profiles and the
 * balances too, and each account's P&L aggregate of today is kept under its balances item's version (todaysPnl). No
 * stamp and no listing is read, whatever the fleet's size: the stamps serve conditional polls, which a scrape never
 * sends (every heartbeat age it shows moves), and the profiles and balances they would have spared are in the items
 * read already.
 */
export async function readFleetFigures(principal: Principal, now: Date) {
  const items = await readStatusItems(principal);
  const fleet = statusOf(items, now);
  const ids = fleet.accounts.map((bot) => bot.accountId);
  const versions = new Map(
    ids.flatMap((id) => {
      const balance = items.balances.get(id);
      return balance ? [[id, toBalanceRecord(balance).version] as const] : [];
    }),
  );
  const day = timestamp(periodStart(now.getTime(), 'day'));
  const activity = new Map(
    fleet.accounts.map((bot) => {
      const balance = items.balances.get(bot.accountId);
      return [bot.accountId, `${bot.lastTradeAt} ${balance ? toBalance(balance).realizedPL : ''}`] as const;
    }),
  );
  const [todayOf, recentOf] = await Promise.all([todaysPnl(ids, day, versions), recentFigures(ids, day, activity, principal, now)]);
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
