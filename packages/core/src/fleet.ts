import { decimalScale, negateDecimal, sumDecimals } from './decimal';
import { mergePeriods, type PeriodFigures, replacePeriod } from './rollups';
import { MAX_CLOCK_AHEAD_MS } from './time';
import type { Account, Balance, BotReport, PnlPoint } from './types';

/**
 * The fleet summary's rules, pure: which fleet answers a change of an account's items moves, when a bot turns stale,
 * and how the accounts' figures sum per currency and period. The fleet projector (api/projector/) applies them to the
 * tables' streams; packages/core/src/store/fleet-table.ts stores what they decide (docs/design.md).
 */

/** A fleet answer with a version of its own: `/api/accounts`, `/api/all/status`, `/api/all/balance`. */
export type Aspect = 'profile' | 'status' | 'balance';

export const ASPECTS: readonly Aspect[] = ['profile', 'status', 'balance'];

type Heartbeat = Pick<BotReport, 'state' | 'lastHeartbeatAt'>;

/**
 * The one staleness rule: a bot is stale when it is running and silent for more than `staleAfterSeconds` whole
 * seconds, was never heard from, or reports a heartbeat further ahead than a clock may drift (not believed).
 */
export function isStale(bot: Heartbeat, now: number, staleAfterSeconds: number): boolean {
  if (bot.state !== 'running') return false;
  if (bot.lastHeartbeatAt === null) return true;
  const since = now - Date.parse(bot.lastHeartbeatAt);
  return Math.floor(since / 1000) > staleAfterSeconds || -since > MAX_CLOCK_AHEAD_MS;
}

/** When isStale next changes for `bot` after `now` with no write (Infinity: never): believed, or past the threshold. */
export function staleChangesAt(bot: Heartbeat, now: number, staleAfterSeconds: number): number {
  if (bot.state !== 'running' || bot.lastHeartbeatAt === null) return Number.POSITIVE_INFINITY;
  const at = Date.parse(bot.lastHeartbeatAt);
  return [at - MAX_CLOCK_AHEAD_MS, at + (staleAfterSeconds + 1) * 1000].find((time) => time > now) ?? Number.POSITIVE_INFINITY;
}

/** An accounts item as the fleet answers show it. */
export interface AccountFacts {
  account: Account;
  bot: BotReport;
  retiredAt: string | null;
}

/** A balances item as the fleet answers show it: the balance, and the status's trade figures. */
export interface BalanceFacts {
  balance: Balance;
  lastTradeAt: string | null;
  retiredAt: string | null;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** What a change of an item that joins, leaves or stays out of the fleet (retired) moves: all of `aspects`, or none. */
function membership(before: { retiredAt: string | null } | undefined, after: { retiredAt: string | null } | undefined) {
  if (!before || !after || (before.retiredAt === null) !== (after.retiredAt === null)) return 'moved';
  return before.retiredAt !== null ? 'out' : 'in';
}

/**
 * The answers a change of an accounts item moves (`now`: when it is projected). The status's tag follows a running
 * bot's staleness by time alone (it holds until staleChangesAt), so a heartbeat moves the status only when the bot
 * was or is stale then, or its heartbeat went back; a change of anything else the answers show moves them.
 */
export function accountMoves(
  before: AccountFacts | undefined,
  after: AccountFacts | undefined,
  now: number,
  staleAfterSeconds: number,
): Aspect[] {
  const joined = membership(before, after);
  if (joined !== 'in') return joined === 'out' ? [] : ['profile', 'status'];
  const [was, is] = [before!.bot, after!.bot];
  const beat = (bot: BotReport) => bot.lastHeartbeatAt !== null && !isStale(bot, now, staleAfterSeconds);
  const quiet =
    was.state === is.state &&
    was.strategy === is.strategy &&
    was.message === is.message &&
    (is.state !== 'running' || (beat(was) && beat(is) && is.lastHeartbeatAt! >= was.lastHeartbeatAt!));
  return [...(same(before!.account, after!.account) ? [] : (['profile'] as const)), ...(quiet ? [] : (['status'] as const))];
}

/** The answers a change of a balances item moves: the balances, and the status's open trades and latest trade. */
export function balanceMoves(before: BalanceFacts | undefined, after: BalanceFacts | undefined): Aspect[] {
  const joined = membership(before, after);
  if (joined !== 'in') return joined === 'out' ? [] : ['balance', 'status'];
  const trades = (facts: BalanceFacts) => [facts.balance.openTradeCount, facts.lastTradeAt];
  return [
    ...(same(before!.balance, after!.balance) ? [] : (['balance'] as const)),
    ...(same(trades(before!), trades(after!)) ? [] : (['status'] as const)),
  ];
}

// --- The sums: per currency and period, its accounts' figures together.

/** One account's figures in a sum, from the version of its item they came from. */
export interface Contribution<T> {
  accountId: string;
  version: number;
  value: T;
}

/** A change of one account's item, as its stream tells it: its figures before and after (null: no item). */
export interface SumChange<T> {
  accountId: string;
  before: Omit<Contribution<T>, 'accountId'> | null;
  after: Omit<Contribution<T>, 'accountId'> | null;
}

/** A sum as held: the accounts' figures together, and the version of each account's it holds. */
export interface Summed<T> {
  total: T;
  versions: ReadonlyMap<string, number>;
}

/** How one kind of figures sums. */
export interface SumRules<T> {
  empty: T;
  merge(a: T, b: T): T;
  /** `total` with one account's `before` replaced by `after` (null: none); undefined when the three cannot tell. */
  replace(total: T, before: T | null, after: T | null): T | undefined;
}

/** A sum made from the accounts' own figures. */
export function sumOf<T>(rules: SumRules<T>, entries: readonly Contribution<T>[]): Summed<T> {
  return {
    total: entries.reduce((total, entry) => rules.merge(total, entry.value), rules.empty),
    versions: new Map(entries.map((entry) => [entry.accountId, entry.version])),
  };
}

/**
 * `changes` folded into `held`: each account's figures replace what the sum held of it, unless the sum holds that
 * version or a later one (a record delivered again). A change that cannot be folded (a correction that makes a best
 * trade worse) or that starts from another version than the one held asks for a `recount` of the accounts named,
 * from their own figures. Undefined when nothing changes.
 */
export function foldSum<T>(
  rules: SumRules<T>,
  held: Summed<T> | undefined,
  changes: readonly SumChange<T>[],
): Summed<T> | { recount: string[] } | undefined {
  let total: T | undefined = held?.total ?? rules.empty;
  const versions = new Map(held?.versions);
  let moved = false;
  for (const { accountId, before, after } of changes) {
    const had = versions.get(accountId);
    if (after ? had !== undefined && had >= after.version : had === undefined) continue;
    moved = true;
    const fits = had === undefined || before?.version === had;
    total = total !== undefined && fits ? rules.replace(total, had === undefined ? null : before!.value, after?.value ?? null) : undefined;
    if (after) versions.set(accountId, after.version);
    else versions.delete(accountId);
  }
  if (!moved) return undefined;
  return total === undefined ? { recount: [...versions.keys()] } : { total, versions };
}

/** The performance roll-ups of one period: every instrument's figures and days' nets, summed (rollups.ts). */
export const PERIOD_SUMS: SumRules<PeriodFigures> = { empty: {}, merge: mergePeriods, replace: replacePeriod };

/** The P&L of one period: sums and counts (a P&L point's figures). */
export type PnlSum = Omit<PnlPoint, 'start'>;

/** P&L by currency: the fleet's of one period, or one account's share of it (its currency alone). */
export type PnlByCurrency = Record<string, PnlSum>;

function addPnl(a: PnlByCurrency, b: PnlByCurrency, sign: 1 | -1): PnlByCurrency {
  const sum = { ...a };
  for (const [currency, each] of Object.entries(b)) {
    const held = sum[currency] ?? { realizedPL: '0', tradesClosed: 0, wins: 0, losses: 0 };
    sum[currency] = {
      realizedPL: sumDecimals([held.realizedPL, sign > 0 ? each.realizedPL : negateDecimal(each.realizedPL)]),
      tradesClosed: held.tradesClosed + sign * each.tradesClosed,
      wins: held.wins + sign * each.wins,
      losses: held.losses + sign * each.losses,
    };
  }
  return sum;
}

/**
 * The P&L aggregates. A sum has the places of its most precise term: a change that drops places (a bot's float
 * corrected to cents) is recounted, or the fleet would keep the float's places ("12.790000000000000" for "12.79").
 */
export const PNL_SUMS: SumRules<PnlByCurrency> = {
  empty: {},
  merge: (a, b) => addPnl(a, b, 1),
  replace: (total, before, after) =>
    Object.entries(before ?? {}).some(
      ([currency, was]) => decimalScale(was.realizedPL) > decimalScale(after?.[currency]?.realizedPL ?? '0'),
    )
      ? undefined
      : addPnl(addPnl(total, before ?? {}, -1), after ?? {}, 1),
};

/** An account's P&L aggregate as its currency's share of the fleet's. */
export function pnlShare(currency: string, entry: PnlSum): PnlByCurrency {
  return { [currency]: { realizedPL: entry.realizedPL, tradesClosed: entry.tradesClosed, wins: entry.wins, losses: entry.losses } };
}
