import { compareIds } from '@trading-bot-api/core/ids';
import { staleChangesAt } from '@trading-bot-api/core/fleet';
import { config } from '../config';
import { accountNotFound } from '../errors';
import { accountKey, readAccountScopedItems, retiredAtOf, toBotReport } from '@trading-bot-api/core/store/accounts-table';
import { balanceKey, toBalanceRecord } from '@trading-bot-api/core/store/balances-table';
import { batchGetItems, type Item } from '@trading-bot-api/core/store/dynamodb';
import { readVersion } from '@trading-bot-api/core/store/fleet-table';
import type { AccountStatus, FleetStatus } from '@trading-bot-api/core/types';
import type { Principal } from '../access';
import { summarize, toAccountStatus } from './account-status';
import { heldStatusTag, statusTag, tagged, tagOf } from './fleet-tags';
import { type Held, Validated } from './validated';
import { store } from '../database';
import { requireVisibleAccount } from './visible';

/** The trade figures of an account without a balances item yet. */
const NO_TRADES = { openTradeCount: 0, lastTradeAt: null };

/** The status of an account from its two items (the balances item may be missing: no trades, no figures yet). */
function statusOfItems(account: Item, balance: Item | undefined, now: Date): AccountStatus {
  const trades = balance ? toBalanceRecord(balance) : NO_TRADES;
  return toAccountStatus(String(account.accountId), toBotReport(account), trades, now, config.staleAfterSeconds, retiredAtOf(account));
}

/** The bot status of one account the principal may see. */
export async function readAccountStatus(accountId: string, principal: Principal, now: Date): Promise<AccountStatus> {
  requireVisibleAccount(principal, accountId);
  // One round trip for the bot's report (accounts table) and the trade figures (balances table).
  const items = await batchGetItems(store, {
    [store.tables.accounts]: [accountKey(accountId)],
    [store.tables.balances]: [balanceKey(accountId)],
  });
  const [account] = items[store.tables.accounts];
  const [balance] = items[store.tables.balances];
  if (!account) throw accountNotFound(accountId);
  return statusOfItems(account, balance, now);
}

/** What the status's tag says of one bot: all the answer shows of it but what a heartbeat moves (its times). */
function statusLine({ lastHeartbeatAt, heartbeatAgeSeconds, updatedAt, ...shown }: AccountStatus) {
  return shown;
}

/**
 * The status of every account the principal may see, sorted by account id, and their summary; none when `held` says
 * the client has it already. For a key that sees every account the tag is the status's version and the first time a
 * bot shown would turn stale or fresh by time alone (fleet.ts's staleChangesAt, in clear at the tag's head): until
 * then an unchanged poll reads the version alone and is a 304; from then on, or once the version moved, the tables
 * are read again. For a key that sees some accounts, the tag is made of what their items show.
 */
export async function readFleetStatus(principal: Principal, now: Date, held: Held): Promise<Validated<FleetStatus>> {
  if (principal.accounts !== '*') {
    const status = statusOf(await readStatusItems(principal), now);
    return tagged(tagOf('status', status.accounts.map(statusLine)), held, status);
  }
  const version = await readVersion(store, 'status');
  const kept = heldStatusTag(held, version, now.getTime());
  if (kept) return new Validated(kept);
  const status = statusOf(await readStatusItems(principal, true), now);
  const changesAt = Math.min(...status.accounts.map((bot) => staleChangesAt(bot, now.getTime(), config.staleAfterSeconds)));
  return tagged(statusTag(version, changesAt), held, status);
}

/**
 * The items of every account the principal may see: two per account, its accounts item (the bot's report, whose
 * heartbeat times the answer shows exactly) and its balances item (the trade figures), read whole for `*` and by key
 * for a scoped key, both tables at once. Retired accounts are left out (the probe reads this too).
 */
export async function readStatusItems(principal: Principal, consistent = false) {
  const [accounts, balances] = await Promise.all([
    readAccountScopedItems(store, store.tables.accounts, principal.accounts, consistent),
    readAccountScopedItems(store, store.tables.balances, principal.accounts, consistent),
  ]);
  return {
    accounts: accounts
      .filter((account) => retiredAtOf(account) === null)
      .sort((a, b) => compareIds(a.accountId as string, b.accountId as string)),
    balances: new Map(balances.map((item) => [item.accountId as string, item])),
  };
}

/**
 * What the fleet status shows, as read: the visible accounts' items sorted by id (retired ones left out), and their
 * balances items by id.
 */
type StatusItems = Awaited<ReturnType<typeof readStatusItems>>;

/** The fleet status of the items read, in their order. */
export function statusOf(items: StatusItems, now: Date): FleetStatus {
  const statuses = items.accounts.map((account) => statusOfItems(account, items.balances.get(account.accountId as string), now));
  return { accounts: statuses, summary: summarize(statuses) };
}

/** The status of every account the principal may see, read from the tables (readStatusItems). */
export async function fleetStatusOf(principal: Principal, now: Date): Promise<FleetStatus> {
  return statusOf(await readStatusItems(principal), now);
}
