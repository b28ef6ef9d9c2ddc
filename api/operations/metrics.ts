import { getPnlOfAccounts } from '@trading-bot-api/core/store/ledger-table';
import { periodStart, timestamp } from '@trading-bot-api/core/time';
import type { Account, AccountStatus, Balance, FleetSummary } from '@trading-bot-api/core/types';
import type { Principal } from '../access';
import { stampedAccounts, stampedBalances } from './fleet';
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

/** Always read: a scrape sends no If-None-Match, and every heartbeat age it shows moves with the clock. */
const notHeld = () => false;

/**
 * The fleet's figures for a scrape, read as the fleet polls read them (status.ts, fleet.ts): the bots' status (two
 * items per account, for the exact heartbeat times), the profiles and balances through this instance's stamped
 * caches (only those whose stamp moved), and each account's P&L aggregate of today (one item per account, batched).
 * No listing is queried, whatever the fleet's size.
 */
export async function readFleetFigures(principal: Principal, now: Date): Promise<FleetFigures> {
  const [status, accounts, balances] = await Promise.all([
    readFleetStatus(principal, now, notHeld),
    stampedAccounts(principal, notHeld),
    stampedBalances(principal, notHeld),
  ]);
  const fleet = status.body!;
  const ids = fleet.accounts.map((bot) => bot.accountId);
  const today = await getPnlOfAccounts(store, ids, 'day', timestamp(periodStart(now.getTime(), 'day')));
  const accountOf = new Map(accounts.body!.map((account) => [account.id, account]));
  const balanceOf = new Map(balances.body!.map((balance) => [balance.accountId, balance]));
  const todayOf = new Map(today.map((entry) => [entry.accountId, entry]));
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
