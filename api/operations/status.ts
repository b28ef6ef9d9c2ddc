import { compareIds } from '@trading-bot-api/core/ids';
import { config } from '../config';
import { accountNotFound } from '../errors';
import { accountKey, readAccountScopedItems, retiredAtOf, toBotReport } from '@trading-bot-api/core/store/accounts-table';
import { type BalanceRecord, balanceKey, toBalanceRecord } from '@trading-bot-api/core/store/balances-table';
import { batchGetItems, type Item } from '@trading-bot-api/core/store/dynamodb';
import { type BotStamp, parseBotStamp, reportDigest, staleness, tradesStamp } from '@trading-bot-api/core/store/fleet-table';
import { holdsStamps, readStamps } from './fleet-stamps';
import type { AccountStatus, BotReport, FleetStatus } from '@trading-bot-api/core/types';
import type { Principal } from '../access';
import { summarize, toAccountStatus } from './account-status';
import { derivedOnce, idsWith, tagOf } from './fleet-tags';
import { type Held, unlessHeld, Validated } from './validated';
import { store } from '../database';
import { requireVisibleAccount } from './visible';

/** The status of an account from its two items (the balances item may be missing: no trades, no figures yet). */
export function statusOfItems(account: Item, balance: Item | undefined, now: Date): AccountStatus {
  return statusOfParts(account, toBotReport(account), balance && toBalanceRecord(balance), now);
}

/** The trade figures of an account without a balances item yet. */
const NO_TRADES = { openTradeCount: 0, lastTradeAt: null };

/** The status of an account from its item, the report on it and its balance record (none: no trades yet). */
function statusOfParts(account: Item, report: BotReport, trades: BalanceRecord | undefined, now: Date): AccountStatus {
  return toAccountStatus(account.accountId as string, report, trades ?? NO_TRADES, now, config.staleAfterSeconds, retiredAtOf(account));
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

/**
 * The tag of `/api/all/status`: each visible bot's state and report digest, its trade counts, and whether it is
 * stale now. A bot's staleness is told from its stamp; only a bot inside the stamp's uncertainty window (its last
 * heartbeat may be up to the stamp's window after the stamped one) has its account item read.
 */
async function statusTag(principal: Principal, now: Date): Promise<string | undefined> {
  const stamps = await readStamps(store, 'status', principal.accounts);
  if (!stamps) return undefined;
  const { ids, bots, digest } = statusStamps(stamps);
  const stale = bots.map((bot) => staleness(bot, now.getTime(), config.staleAfterSeconds));
  const unknown = ids.filter((_, i) => stale[i] === 'unknown');
  if (unknown.length) {
    const items = (await batchGetItems(store, { [store.tables.accounts]: unknown.map(accountKey) }))[store.tables.accounts];
    const known = new Map(items.map((item) => [item.accountId as string, statusOfItems(item, undefined, now).stale]));
    ids.forEach((id, i) => {
      if (known.has(id)) stale[i] = known.get(id)!;
    });
  }
  // What the stamps say (their digest), and which bots are stale now.
  return statusTagOf(
    digest,
    ids.map((id, i) => ({ id, stale: stale[i] })),
  );
}

/** The status stamps' bots parsed, and a digest of all they say but the heartbeat times (per stamps object). */
const statusStamps = derivedOnce((stamps) => {
  const ids = idsWith(stamps, 'bot');
  const bots = ids.map((id) => parseBotStamp(stamps.get(id)!.bot!));
  const lines = ids.map((id, i) => statusLine(id, bots[i], stamps.get(id)!.trades ?? ''));
  return { ids, bots, digest: tagOf('status', lines) };
});

/** What the tag says of one bot: its state, the digest of its strategy and message, and its trades stamp. */
function statusLine(id: string, bot: Pick<BotStamp, 'state' | 'report'>, trades: string): string {
  return `${id} ${bot.state} ${bot.report} ${trades}`;
}

/** The tag of the digest of the bots' lines and of which bots are stale now ('unknown': an account item not found). */
function statusTagOf(digest: string, stale: readonly { id: string; stale: boolean | 'unknown' }[]): string {
  return tagOf('status', [digest, ...stale.flatMap((bot) => (bot.stale === false ? [] : [`${bot.id} ${bot.stale}`]))]);
}

/**
 * The status of every account the principal may see, sorted by account id, and their summary; none when `held`
 * says the client has it already (decided from the fleet's stamps, before anything else is read).
 */
export async function readFleetStatus(principal: Principal, now: Date, held: Held): Promise<Validated<FleetStatus>> {
  // A client that holds no answer gets the body whatever the tag, tagged from the same items as the stamps would tag it.
  // Only an instance that never read the stamps reads them too, at once with the tables: the client's next,
  // conditional poll then compares their change counts with a copy (9 items, not every shard whole at 1,000 bots).
  // Once it holds a copy, conditional polls keep it current, and an unconditional one reads what it shows and no more
  // (the stamps' counts beside the tables took it from 1.2 to 1.7 × its plain reads).
  if (!held.any) {
    const first = !holdsStamps(store, 'status', principal.accounts);
    const [stamped, items] = await Promise.all([first ? statusTag(principal, now) : undefined, readStatusItems(principal)]);
    const { status, tag } = taggedStatusOf(items, now);
    return new Validated(stamped ?? tag, status);
  }
  const stamped = await statusTag(principal, now);
  if (stamped !== undefined) return unlessHeld(stamped, held, () => fleetStatusOf(principal, now));
  // Stamps not complete (a stage whose data predates the projector): the tables, tagged from their items.
  const { status, tag } = taggedStatusOf(await readStatusItems(principal), now);
  return held(tag) ? new Validated(tag) : new Validated(tag, status);
}

/** What the fleet status shows, as read: the visible accounts' items sorted by id (retired ones left out), and their balances items by id. */
export interface StatusItems {
  accounts: Item[];
  balances: ReadonlyMap<string, Item>;
}

/**
 * The items of every account the principal may see: two per account, its accounts item (the bot's report, whose
 * heartbeat times the answer shows exactly) and its balances item (the trade figures), read whole for `*` and by key
 * for a scoped key, both tables at once. Retired accounts are left out (the probe reads this too).
 */
export async function readStatusItems(principal: Principal): Promise<StatusItems> {
  const [accounts, balances] = await Promise.all([
    readAccountScopedItems(store, store.tables.accounts, principal.accounts),
    readAccountScopedItems(store, store.tables.balances, principal.accounts),
  ]);
  return {
    accounts: accounts
      .filter((account) => retiredAtOf(account) === null)
      .sort((a, b) => compareIds(a.accountId as string, b.accountId as string)),
    balances: new Map(balances.map((item) => [item.accountId as string, item])),
  };
}

/** The fleet status of the items read, in their order. */
export function statusOf(items: StatusItems, now: Date): FleetStatus {
  const statuses = items.accounts.map((account) => statusOfItems(account, items.balances.get(account.accountId as string), now));
  return { accounts: statuses, summary: summarize(statuses) };
}

/** The status of every account the principal may see, read from the tables (readStatusItems). */
export async function fleetStatusOf(principal: Principal, now: Date): Promise<FleetStatus> {
  return statusOf(await readStatusItems(principal), now);
}

/**
 * The fleet status of the items read and its tag as the stamps give it (statusTag), in one pass: each account's
 * report and balance record serve both, and its line holds what its stamps would (reportDigest is the bot stamp's).
 */
function taggedStatusOf(items: StatusItems, now: Date): { status: FleetStatus; tag: string } {
  const lines: string[] = [];
  const statuses = items.accounts.map((account) => {
    const id = account.accountId as string;
    const report = toBotReport(account);
    const balance = items.balances.get(id);
    const trades = balance && toBalanceRecord(balance);
    lines.push(statusLine(id, { state: report.state, report: reportDigest(report) }, trades ? tradesStamp(trades) : ''));
    return statusOfParts(account, report, trades, now);
  });
  const tag = statusTagOf(
    tagOf('status', lines),
    statuses.map((bot) => ({ id: bot.accountId, stale: bot.stale })),
  );
  return { status: { accounts: statuses, summary: summarize(statuses) }, tag };
}
