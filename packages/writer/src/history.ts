/**
 * Writing a history of trades (recordTrades): the importer's, a bridge's, an ingester's batches. Each trade is given
 * whole, as the API shows it, open or closed; what is stored decides what is written:
 *
 * - a trade not stored yet is created, with as many others as fit one transaction (the fast path of an import);
 * - a stored open trade that comes closed is closed; one that comes with other marks or another position (units,
 *   open price: the bot added to it or exited part of it) is updated; one that comes identical is unchanged;
 * - a stored trade that comes with another instrument, side or open time is another trade with the same id
 *   (TRADE_CONFLICT); a stored closed trade that comes with anything different is refused (TRADE_CLOSED), unless
 *   the history is the source's own record (`correct`): then it is corrected, and every figure that counted it moves;
 * - a stored gone trade (markGone) that comes closed is closed (the bot knew its outcome after all); gone is final
 *   otherwise: one that comes open is TRADE_CLOSED;
 * - what a trade says besides (API 1.5: its market, leverage, fees, funding, liquidation price, order ids, why it
 *   closed) is taken where given and kept where given null (trades.ts, withDetails); on a closed trade, what was
 *   unknown (null) is filled in, and every figure that counted it moves (as a correction), while a value that was
 *   known changes only in the source's own record (`correct`). A futures trade stored under its pair before 1.5 takes
 *   the instrument that names its contract (`SOL_USDT_PERP`). A trade given with a `currency` other than its account's
 *   is CURRENCY_MISMATCH.
 *
 * Which trades are stored is read in batches (the ids' registers, then the trades), so a history given again, as a
 * bridge does when it starts, costs reads and no writes.
 */
import { MAX_TRANSACTION_ITEMS, type Store } from '@trading-bot-api/core/store/dynamodb';
import { entryKeyOf, getRegisteredOpenTimes } from '@trading-bot-api/core/store/ledger-table';
import { getTradeRecords, putTrade } from '@trading-bot-api/core/store/trades-table';
import type { Trade } from '@trading-bot-api/core/types';
import * as errors from './errors';
import { isRefusal, WriterError } from './errors';
import { attempts, commit, Retry } from './retry';
import { periodKeysOf, pnlPeriodsOf } from './rules';
import { getBalanceRecord } from '@trading-bot-api/core/store/balances-table';
import {
  BALANCE_ITEMS,
  CLOSING,
  closedAs,
  DETAILS,
  differing,
  IDENTITY,
  MARKS,
  namesContractOf,
  pick,
  POSITION,
  preload,
  storedTrade,
  writeTrades,
  withDetails,
  writeCorrection,
  type Corrections,
  type Written,
} from './trades';
import * as check from './validate';

export type TradeOutcome = 'opened' | 'created' | 'closed' | 'updated' | 'corrected' | 'gone' | 'unchanged';

/** How recordTrades takes its history. */
export interface RecordOptions {
  /**
   * The history is the source's own record of its trades (a bridge mirroring a bot): a stored closed trade given
   * with other figures is corrected to them (the source corrected its record: freqtrade reloading a trade from the
   * exchange, or an earlier bridge's float noise), instead of refused as TRADE_CLOSED.
   */
  correct?: boolean;
  /** The writer's clock: a time more than a few minutes after it is refused (validate.ts). */
  now?: Date;
}

/**
 * What became of one trade of a batch: written, or refused with the reason. A trade refused with UNAVAILABLE was
 * not written (the database stopped answering; the trades after it in the batch are not tried either): give it
 * again.
 */
export type TradeResult =
  | { id: string; index: number; outcome: TradeOutcome }
  | { id: string | undefined; index: number; error: WriterError };

/** A trade of the call, and its place in the input. */
type Entry = { trade: Trade; index: number };

type Decision = 'create' | 'unchanged' | 'close' | 'update' | 'correct' | 'gone' | WriterError;

/** The fields a trade's details may change (withDetails): its instrument only as a contract named (namesContractOf). */
const SAID = ['instrument', ...DETAILS] as const;

/** What must happen for `given` when `stored` is what is stored under its id (undefined: nothing). */
export function decide(stored: Trade | undefined, given: Trade, correct = false): Decision {
  if (!stored) return 'create';
  const other = differing(stored, given, IDENTITY).filter((field) => field !== 'instrument' || !namesContractOf(stored, given));
  if (other.length) return errors.tradeConflict(given.id, `stored with other ${other.join(', ')}`);
  const merged = withDetails(stored, given);
  const said = differing(stored, merged, SAID);
  if (stored.status === 'gone') {
    if (given.status === 'closed') return 'close';
    if (given.status === 'gone') return said.length ? 'update' : 'unchanged';
    return errors.tradeClosed(given.id, `it is gone from the bot (${stored.closeReason}), and gone is final`);
  }
  if (given.status === 'gone') return stored.status === 'open' ? 'gone' : errors.tradeClosed(given.id, 'a closed trade cannot be gone');
  if (stored.status === 'closed') {
    const changed = [
      ...differing(stored, given, ['status', ...POSITION, ...CLOSING, ...MARKS]),
      ...differing(stored, merged, [...SAID, 'closeReason']),
    ];
    if (!changed.length) return 'unchanged';
    if (correct && given.status === 'closed') return 'correct';
    // What was unknown, filled in: not a change of the record, which any source may make.
    const unknownBefore = (field: keyof Trade) => stored[field] === null || (field === 'instrument' && namesContractOf(stored, given));
    if (given.status === 'closed' && changed.every(unknownBefore)) return 'correct';
    return errors.tradeClosed(given.id, `stored closed, given other ${changed.join(', ')}`);
  }
  if (given.status === 'closed') return 'close';
  return said.length || differing(stored, given, [...POSITION, ...MARKS]).length ? 'update' : 'unchanged';
}

/** The outcome of each decision (decide), carried out. */
export const OUTCOME_OF = {
  create: 'created',
  close: 'closed',
  gone: 'gone',
  correct: 'corrected',
  update: 'updated',
  unchanged: 'unchanged',
} as const satisfies Record<Exclude<Decision, WriterError>, TradeOutcome>;

/** The trade to store when `decision` (decide) is taken for `given` on `stored`, what is stored under its id (none: new). */
export function decided(decision: Exclude<Decision, WriterError>, stored: Trade | undefined, given: Trade): Trade {
  if (!stored) return given;
  // Why it closed is the close's own (a gone trade's reason was why it was gone).
  if (decision === 'close') return closedAs(stored, given);
  const merged = withDetails(stored, given);
  if (decision === 'gone')
    return { ...merged, ...pick(given, ['status', 'closePrice', 'closeTime', 'realizedPL', 'unrealizedPL', 'closeReason']) };
  if (decision === 'correct') return { ...merged, ...pick(given, [...POSITION, ...CLOSING, ...MARKS]) };
  // An update: a gone trade takes what is said of it, never a position or marks again.
  return stored.status === 'gone' ? merged : { ...merged, ...pick(given, [...POSITION, ...MARKS]) };
}

/** One trade against what is stored: one attempt (read, decide, write), retried as a whole by its caller. */
async function recordOne(
  store: Store,
  accountId: string,
  trade: Trade,
  options: { correct?: boolean; corrections?: Corrections } = {},
): Promise<TradeOutcome> {
  const read = await storedTrade(store, accountId, trade.id);
  const decision = decide(read?.trade, trade, options.correct);
  if (decision instanceof WriterError) throw decision;
  const next = decided(decision, read?.trade, trade);
  if (decision === 'correct') await writeCorrection(store, accountId, read!, next, options.corrections ?? {});
  // An update moves no figure: the trade alone.
  else if (decision === 'update') await commit(store, [putTrade(store, next, read)]);
  // A new trade's id registered meanwhile by another writer: read what it stored.
  else if (decision !== 'unchanged' && !(await writeTrades(store, accountId, [{ trade: next, read }]))) throw new Retry();
  return OUTCOME_OF[decision];
}

/** Writes a history of trades of one account; see the module's comment. Each trade gets a result, in input order. */
export async function recordTrades(
  store: Store,
  accountId: string,
  inputs: readonly unknown[],
  options: RecordOptions = {},
): Promise<TradeResult[]> {
  check.accountId(accountId);
  const now = options.now ?? new Date();
  const correct = { correct: options.correct, corrections: {} as Corrections };
  const results: TradeResult[] = [];
  const refuse = (entry: Entry, error: WriterError) => results.push({ id: entry.trade.id, index: entry.index, error });
  let valid: Entry[] = [];
  inputs.forEach((input, index) => {
    try {
      valid.push({ trade: check.tradeInput(input, accountId, '', now), index });
    } catch (error) {
      if (!(error instanceof WriterError)) throw error;
      const id = (input as { id?: unknown } | null)?.id;
      results.push({ id: typeof id === 'string' ? id : undefined, index, error });
    }
  });
  const sorted = () => results.sort((a, b) => a.index - b.index);

  // Once the database stops answering, the trades not yet written get UNAVAILABLE without being tried.
  let down: WriterError | undefined;
  /** `work` for `entries`, retried as `what`; once the database is down, undefined and each entry refused UNAVAILABLE. */
  const attempt = async <T>(entries: readonly Entry[], what: string, work: () => Promise<T>): Promise<T | undefined> => {
    if (!down) {
      try {
        return await attempts(what, work);
      } catch (error) {
        if (!(error instanceof WriterError) || error.code !== 'UNAVAILABLE') throw error;
        down = error;
      }
    }
    for (const entry of entries) refuse(entry, down);
    return undefined;
  };
  const settle = async (entry: Entry) => {
    try {
      const outcome = await attempt([entry], `recording trade ${entry.trade.id}`, () => recordOne(store, accountId, entry.trade, correct));
      if (outcome) results.push({ id: entry.trade.id, index: entry.index, outcome });
    } catch (error) {
      // A refusal of this trade is its result; a database that refuses the writer refuses every trade alike, and
      // the whole call says so (a caller would otherwise take each trade as refused for itself, and go past it).
      if (!isRefusal(error)) throw error;
      refuse(entry, error);
    }
  };

  // A trade that says its currency says the account's: read once, when one does.
  if (valid.some(({ trade }) => trade.currency !== null)) {
    const balance = await attempt(valid, `reading the account ${accountId}`, () => getBalanceRecord(store, accountId));
    if (down) return sorted();
    if (!balance) throw errors.accountNotFound(accountId);
    const mismatched = valid.filter(({ trade }) => trade.currency !== null && trade.currency !== balance.currency);
    for (const entry of mismatched) refuse(entry, errors.currencyMismatch(accountId, balance.currency, entry.trade.currency!));
    valid = valid.filter((entry) => !mismatched.includes(entry));
  }
  // An id given twice: its first trade goes with the others, the rest one by one afterwards, in order.
  const seen = new Set<string>();
  const once = valid.filter(({ trade }) => !seen.has(trade.id) && seen.add(trade.id));
  const repeated = valid.filter((entry) => !once.includes(entry));

  const ids = once.map(({ trade }) => trade.id);
  const registered = await attempt(once, `reading the trade ids of ${accountId}`, () => getRegisteredOpenTimes(store, accountId, ids));
  if (registered) {
    const fresh = once.filter(({ trade }) => !registered.has(trade.id));
    const known = once.filter(({ trade }) => registered.has(trade.id));
    // Fast path: new trades in groups, one transaction each, after one read of what they all build on.
    const written: Written = { pnl: new Map(), perf: new Map() };
    const freshTrades = fresh.map(({ trade }) => trade);
    if (fresh.length) await attempt(fresh, `reading the figures of ${accountId}`, () => preload(store, accountId, freshTrades, written));
    for (const group of down ? [] : groupsForTransactions(fresh)) {
      const created = await attempt(group, `writing trades of ${accountId}`, () => writeTrades(store, accountId, group, { written }));
      if (created) results.push(...group.map(({ trade, index }) => ({ id: trade.id, index, outcome: 'created' as const })));
      else if (created === false) {
        // Another writer registered some of these ids meanwhile (what was carried is dropped): each against what it stored.
        for (const entry of group) await settle(entry);
      }
    }
    // Trades stored already: read in batches; only those that differ are written, each on its own.
    const keys = known.map(({ trade }) => ({ accountId, id: trade.id, openTime: registered.get(trade.id)! }));
    const stored = await attempt(known, `reading the trades of ${accountId}`, () => getTradeRecords(store, keys));
    if (stored) {
      for (const entry of known) {
        const decision = decide(stored.get(entry.trade.id)?.trade, entry.trade, options.correct);
        if (decision === 'unchanged') results.push({ id: entry.trade.id, index: entry.index, outcome: 'unchanged' });
        else if (decision instanceof WriterError) refuse(entry, decision);
        else await settle(entry);
      }
    }
  }
  for (const entry of repeated) await settle(entry);
  return sorted();
}

/**
 * Splits new trades into groups that fit one transaction: two items per trade (the trade and its id), one per P&L
 * period, one per roll-up period (day, block, month) of its close's performance figures, and the balance.
 */
function groupsForTransactions<T extends Entry>(entries: readonly T[]): T[][] {
  const groups: T[][] = [];
  let group: T[] = [];
  let periods = new Set<string>();
  for (const entry of entries) {
    const closed = entry.trade.status === 'closed';
    const added = closed
      ? [
          ...pnlPeriodsOf(entry.trade.closeTime!).map((key) => entryKeyOf('pnl', key.period, key.start)),
          ...periodKeysOf([entry.trade]).map((key) => entryKeyOf('perf', key.unit, key.start)),
        ]
      : [];
    const nextPeriods = new Set([...periods, ...added]);
    if (group.length && 2 * (group.length + 1) + nextPeriods.size + BALANCE_ITEMS > MAX_TRANSACTION_ITEMS) {
      groups.push(group);
      group = [];
      periods = new Set(added);
    } else {
      periods = nextPeriods;
    }
    group.push(entry);
  }
  if (group.length) groups.push(group);
  return groups;
}
