/**
 * What a feed that mirrors a source by a cursor writes (an exchange feed's fills, its deposits and withdrawals): each
 * transaction holds what the source's records turned into AND the feed's checkpoint after them (`feed#<name>` in the
 * ledger: its cursor, the positions it builds), so a feed killed at any moment resumes from a checkpoint that covers
 * exactly what is stored: nothing lost, nothing written twice.
 *
 * - advanceFeed: a run of steps (one per record of the source: the trades it changed, and the checkpoint's state
 *   after it) written in as few transactions as fit, each ending at a step's checkpoint. The trades of a transaction
 *   are folded by id (a position opened, grown and closed by three fills is one closed trade to write), and each is
 *   written against what is stored as recordTrades would: created, updated, closed, or left unchanged.
 *   A step may also carry the source's fills as the exchange recorded them (`fills`): each kept once, in the same
 *   transaction, for the reconciliation of a bot's account against the exchange's (reconcile.ts).
 * - recordTransfers: transfers kept once each (a repeat rewrites the same item), the checkpoint with the last ones.
 *
 * The checkpoint is versioned: a feed gives the version it read, and a transaction whose checkpoint moved meanwhile
 * (another feed mirrors the same account) writes nothing and is WRITE_CONFLICT, never interleaved.
 */
import { canonicalJson } from '@trading-bot-api/core/canonical';
import { getAccountRecord, markTransfers } from '@trading-bot-api/core/store/accounts-table';
import { MAX_TRANSACTION_ITEMS, type Store } from '@trading-bot-api/core/store/dynamodb';
import {
  type CheckpointEntry,
  getCheckpoint,
  getTransfers,
  putCheckpoint,
  putFill,
  putTransfer,
  type TransferEntry,
} from '@trading-bot-api/core/store/ledger-table';
import type { ExchangeFill } from '@trading-bot-api/core/reconciliation';
import type { Trade } from '@trading-bot-api/core/types';
import * as errors from './errors';
import { WriterError } from './errors';
import { decide, decided, OUTCOME_OF, type TradeOutcome } from './history';
import { attempts, commit, Retry } from './retry';
import { periodKeysOf } from './rules';
import { BALANCE_ITEMS, type Change, storedTrades, uniquePeriods, writeTrades } from './trades';
import * as check from './validate';

/** A checkpoint's name: letters, digits, `.`, `_`, `:`, `-` and `/` (an exchange and a market: `binance:BTC/USDT`). */
const CHECKPOINT_NAME = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,199}$/;
/** Room for a checkpoint's state in its item (DynamoDB's 400 KB, less its key and figures). */
const MAX_STATE_CHARS = 300_000;

/** A feed's checkpoint as stored: its state (what the feed gave, as JSON) and version (0: none yet). */
export interface Checkpoint<State = unknown> {
  name: string;
  state: State | null;
  version: number;
  updatedAt: string | null;
}

/** One record of a source, as a feed gives it to advanceFeed: the trades it changed (as they now are) and the state after it. */
export interface FeedStep {
  trades: readonly Trade[];
  state: unknown;
  /** The exchange's fills the step covers, kept as the exchange recorded them (reconcile.ts reads them). */
  fills?: readonly ExchangeFill[];
}

/** What advanceFeed wrote: the checkpoint's version after it, and the trades by outcome. */
export interface FeedAdvance {
  version: number;
  transactions: number;
  outcomes: Partial<Record<TradeOutcome, number>>;
}

/** A deposit or withdrawal as a feed gives it (the ledger's TransferEntry without the account). */
export type Transfer = Omit<TransferEntry, 'accountId'>;

function checkpointName(value: unknown): string {
  if (typeof value !== 'string' || !CHECKPOINT_NAME.test(value))
    throw errors.invalidInput('checkpoint', `must be 1–200 letters, digits, ".", "_", ":", "/" or "-", got ${JSON.stringify(value)}`);
  return value;
}

function stateText(state: unknown): string {
  const text = JSON.stringify(state ?? null);
  if (text.length > MAX_STATE_CHARS) throw errors.invalidInput('state', `is ${text.length} characters of JSON; at most ${MAX_STATE_CHARS}`);
  return text;
}

/** The checkpoint `name` of the account at `state`, the version after `version`. */
function checkpointEntry(accountId: string, name: string, state: unknown, version: number, now: Date): CheckpointEntry {
  return { accountId, name, state: stateText(state), version: version + 1, updatedAt: now.toISOString() };
}

export function checkpointOf(entry: CheckpointEntry | undefined, name: string): Checkpoint {
  return entry
    ? { name, state: JSON.parse(entry.state), version: entry.version, updatedAt: entry.updatedAt }
    : { name, state: null, version: 0, updatedAt: null };
}

/**
 * Items a transaction of these trades may take besides the checkpoint: 2 a trade (the trade, its id), their periods,
 * and a fill each.
 */
function itemsFor(trades: ReadonlyMap<string, Trade>, fills: number): number {
  const closed = [...trades.values()].filter((trade) => trade.status === 'closed');
  return 2 * trades.size + uniquePeriods(closed).length + periodKeysOf(closed).length + BALANCE_ITEMS + fills;
}

/**
 * How many of `steps` (from the first) the next transaction takes: as many as fit DynamoDB's 100 items with the
 * checkpoint, counting each trade as new (2 items) until it is read; at least one.
 */
export function stepsThatFit(steps: readonly FeedStep[], maxItems = MAX_TRANSACTION_ITEMS): number {
  const folded = new Map<string, Trade>();
  let fills = 0;
  for (let count = 0; count < steps.length; count++) {
    const next = new Map(folded);
    for (const trade of steps[count].trades) next.set(trade.id, trade);
    const more = fills + (steps[count].fills?.length ?? 0);
    if (count > 0 && itemsFor(next, more) + 1 > maxItems) return count;
    for (const [id, trade] of next) folded.set(id, trade);
    fills = more;
  }
  return steps.length;
}

/** The trades of `steps` folded by id, the latest of each, in the order first met. */
export function foldSteps(steps: readonly FeedStep[]): Trade[] {
  const folded = new Map<string, Trade>();
  for (const step of steps) for (const trade of step.trades) folded.set(trade.id, trade);
  return [...folded.values()];
}

/** The stored checkpoint, which must still be the version the feed read: else another feed writes the account. */
async function checkpointAt(store: Store, accountId: string, name: string, version: number): Promise<void> {
  const stored = (await getCheckpoint(store, accountId, name))?.version ?? 0;
  if (stored !== version)
    throw new WriterError(
      'WRITE_CONFLICT',
      `the checkpoint ${name} of ${accountId} is at version ${stored}, not ${version}: another feed writes this account; read it again`,
    );
}

/**
 * One transaction: `trades` (folded) against what is stored, with the checkpoint `next` in place of `version`.
 * Returns the outcome of each trade.
 */
async function writeStep(
  store: Store,
  accountId: string,
  trades: readonly Trade[],
  fills: readonly ExchangeFill[],
  checkpoint: CheckpointEntry,
  version: number,
): Promise<TradeOutcome[]> {
  await checkpointAt(store, accountId, checkpoint.name, version);
  const ids = trades.map((trade) => trade.id);
  const stored = await storedTrades(store, accountId, ids);
  const changes: Change[] = [];
  const outcomes: TradeOutcome[] = [];
  for (const given of trades) {
    const read = stored.get(given.id);
    const decision = decide(read?.trade, given);
    if (decision instanceof WriterError) throw decision;
    // A correction or a trade gone: a feed's own record never makes either of its trades.
    if (decision === 'correct' || decision === 'gone')
      throw errors.tradeClosed(given.id, `stored ${read!.trade.status}; a feed's record cannot ${decision} it`);
    if (decision !== 'unchanged') changes.push({ trade: decided(decision, read?.trade, given), read });
    outcomes.push(OUTCOME_OF[decision]);
  }
  const extra = [...fills.map((fill) => putFill(store, accountId, fill)), putCheckpoint(store, checkpoint, version)];
  // A new trade's id registered meanwhile (another writer): read again.
  if (!(await writeTrades(store, accountId, changes, { extra }))) throw new Retry();
  return outcomes;
}

/** Checks a feed's trades as recordTrades does (a refused one refuses the whole call: a feed's record is written whole). */
function checkedSteps(accountId: string, steps: readonly FeedStep[], now: Date): FeedStep[] {
  return steps.map((step, index) => ({
    state: step.state,
    trades: step.trades.map((trade, at) => check.tradeInput(trade, accountId, `steps[${index}].trades[${at}].`, now)),
    fills: (step.fills ?? []).map((fill, at) => check.fillInput(fill, `steps[${index}].fills[${at}].`)),
  }));
}

/** advanceFeed: see the module's comment. `version` is the checkpoint's as the feed read it (0: none). */
export async function advanceFeed(
  store: Store,
  accountId: string,
  name: string,
  version: number,
  input: readonly FeedStep[],
  now: Date,
): Promise<FeedAdvance> {
  check.accountId(accountId);
  checkpointName(name);
  const steps = checkedSteps(accountId, input, now);
  const result: FeedAdvance = { version, transactions: 0, outcomes: {} };
  for (let at = 0; at < steps.length; ) {
    const count = stepsThatFit(steps.slice(at));
    const group = steps.slice(at, at + count);
    const checkpoint = checkpointEntry(accountId, name, group[group.length - 1].state, result.version, now);
    const fills = group.flatMap((step) => step.fills ?? []);
    const outcomes = await attempts(`advancing the feed ${name} of ${accountId}`, () =>
      writeStep(store, accountId, foldSteps(group), fills, checkpoint, result.version),
    );
    for (const outcome of outcomes) result.outcomes[outcome] = (result.outcomes[outcome] ?? 0) + 1;
    result.version = checkpoint.version;
    result.transactions += 1;
    at += count;
  }
  return result;
}

/**
 * Keeps `transfers` of the account (each once: one given again is unchanged), and the checkpoint `name` at `state`
 * in the transaction of the last of them (in place of `version`, as read). Each transaction that keeps a new one marks
 * the account as having transfers (accounts-table's markTransfers), which the comparison reads before looking for any.
 * Returns the new version and how many were new.
 */
export async function recordTransfers(
  store: Store,
  accountId: string,
  inputs: readonly unknown[],
  checkpoint: { name: string; state: unknown; version: number },
  now: Date,
): Promise<{ version: number; recorded: number }> {
  check.accountId(accountId);
  checkpointName(checkpoint.name);
  const transfers = inputs.map((input, index) => check.transferInput(input, index, now));
  if (transfers.length && !(await getAccountRecord(store, accountId, true))) throw errors.accountNotFound(accountId);
  // Room in each transaction for the checkpoint and the account's mark.
  const size = MAX_TRANSACTION_ITEMS - 2;
  let recorded = 0;
  let version = checkpoint.version;
  for (let at = 0; at === 0 || at < transfers.length; at += size) {
    const group = transfers.slice(at, at + size);
    const last = at + size >= transfers.length;
    recorded += await attempts(`recording transfers of ${accountId}`, async () => {
      await checkpointAt(store, accountId, checkpoint.name, version);
      const stored = new Map((await getTransfers(store, accountId, group)).map((entry) => [`${entry.time}#${entry.id}`, entry]));
      const fresh = group.filter((transfer) => {
        const held = stored.get(`${transfer.time}#${transfer.id}`);
        if (!held) return true;
        const { accountId: _, ...kept } = held;
        return canonicalJson(kept) !== canonicalJson(transfer);
      });
      const items = fresh.map((transfer) => putTransfer(store, { ...transfer, accountId }));
      if (fresh.length) items.push(markTransfers(store, accountId));
      if (last) items.push(putCheckpoint(store, checkpointEntry(accountId, checkpoint.name, checkpoint.state, version, now), version));
      if (items.length) await commit(store, items);
      return fresh.length;
    });
    if (last) version += 1;
  }
  return { version, recorded };
}
