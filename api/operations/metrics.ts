import type { Held } from '../http/validated';
import type { FleetStamps } from '@trading-bot-api/core/store/fleet-table';
import { getPnlOfAccounts, type PnlEntry } from '@trading-bot-api/core/store/ledger-table';
import { periodStart, timestamp } from '@trading-bot-api/core/time';
import type { Account, AccountStatus, Balance, FleetSummary } from '@trading-bot-api/core/types';
import type { Principal } from '../access';
import { stampedAccounts, stampedBalances } from './fleet';
import { readStamps } from './fleet-stamps';
import { readFleetStatus } from './status';
import { store } from '../database';

/** One bot's figures, as the fleet answers give them, and its realized P&L of the current UTC day. */
export interface BotFigures {
  status: AccountStatus;
  /** Undefined for an account whose profile or balance the fleet's reads did not return (created a moment ago). */
  account: Account | undefined;
  balance: Balance | undefined;
  today: { realizedPL: string; tradesClosed: number };
}

/** What `GET /api/metrics` shows: every visible bot (retired ones left out, as in the fleet answers) and the counts. */
export interface FleetFigures {
  bots: BotFigures[];
  summary: FleetSummary;
}

/**
 * Today's P&L of each account this instance has read, with the day and the balance stamp it was read under. The writer
 * changes an account's P&L aggregates only in a transaction that also writes its balances item, whose version the
 * balance stamp is: while the stamp and the day stay, the aggregate has not changed, and a scrape reads only the
 * accounts whose balance moved (a fleet's scrape then costs what its status read costs, not one more item per bot).
 */
const todayHeld = new Map<string, { day: string; stamp: number; entry: Pick<PnlEntry, 'realizedPL' | 'tradesClosed'> | undefined }>();

/**
 * Today's P&L aggregate of each of `ids` (none: no trade closed today), read where this instance holds none for the
 * stamp; without stamps (a stage before its summary is complete) every account's is read. Read consistently: an
 * aggregate must be at least as new as the stamp it is kept under.
 */
async function todaysPnl(ids: readonly string[], day: string, stamps: FleetStamps | undefined) {
  const stampOf = (id: string) => stamps?.get(id)?.balance;
  const held = (id: string) => {
    const entry = todayHeld.get(id);
    return entry !== undefined && entry.day === day && stampOf(id) !== undefined && entry.stamp === stampOf(id);
  };
  const missing = ids.filter((id) => !held(id));
  const read = new Map((await getPnlOfAccounts(store, missing, 'day', day, true)).map((entry) => [entry.accountId, entry]));
  for (const id of missing) {
    const stamp = stampOf(id);
    if (stamp === undefined) todayHeld.delete(id);
    else todayHeld.set(id, { day, stamp, entry: read.get(id) });
  }
  return new Map(ids.map((id) => [id, held(id) ? todayHeld.get(id)!.entry : read.get(id)]));
}

/** Always read: a scrape sends no If-None-Match, and every heartbeat age it shows moves with the clock. */
const notHeld: Held = Object.assign(() => false, { any: false });

/**
 * The fleet's figures for a scrape, read as the fleet polls read them (status.ts, fleet.ts): the bots' status (two
 * items per account, for the exact heartbeat times), the profiles and balances through this instance's stamped
 * caches (only those whose stamp moved), and each account's P&L aggregate of today, kept likewise under its balance
 * stamp (todaysPnl). No listing is queried, whatever the fleet's size.
 */
export async function readFleetFigures(principal: Principal, now: Date): Promise<FleetFigures> {
  const [status, accounts, balances, stamps] = await Promise.all([
    readFleetStatus(principal, now, notHeld),
    stampedAccounts(principal, notHeld),
    stampedBalances(principal, notHeld),
    readStamps(store, 'balance', principal.accounts),
  ]);
  const fleet = status.body!;
  const ids = fleet.accounts.map((bot) => bot.accountId);
  const todayOf = await todaysPnl(ids, timestamp(periodStart(now.getTime(), 'day')), stamps);
  const accountOf = new Map(accounts.body!.map((account) => [account.id, account]));
  const balanceOf = new Map(balances.body!.map((balance) => [balance.accountId, balance]));
  return {
    bots: fleet.accounts.map((bot) => ({
      status: bot,
      account: accountOf.get(bot.accountId),
      balance: balanceOf.get(bot.accountId),
      today: {
        realizedPL: todayOf.get(bot.accountId)?.realizedPL ?? '0',
        tradesClosed: todayOf.get(bot.accountId)?.tradesClosed ?? 0,
      },
    })),
    summary: fleet.summary,
  };
}
