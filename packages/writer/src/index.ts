/**
 * The bot side of the API: a module a bot imports to write its accounts, trades, balances and heartbeats so that
 * every listing key, counter and total the read API relies on stays exact.
 *
 *   const writer = createWriter({ stage: 'prod' });            // AWS credentials and region from the environment
 *   await writer.upsertAccount({ id: 'main', name: 'Main', currency: 'USD', broker: 'OANDA', environment: 'live' });
 *   await writer.openTrade('main', { id: 't-1', instrument: 'EUR_USD', side: 'buy', units: '10000',
 *                                    openPrice: '1.08420', openTime: '2026-11-22T09:00:00.000Z' });
 *   await writer.closeTrade('main', 't-1', { closePrice: '1.08610', closeTime: '2026-11-22T11:30:00.000Z', realizedPL: '19.00' });
 *   await writer.recordBalance('main', { balance: '10019.00', unrealizedPL: '0', nav: '10019.00', marginUsed: '0',
 *                                        marginAvailable: '10019.00', time: '2026-11-22T11:30:01.000Z' });
 *   await writer.heartbeat('main', { state: 'running', strategy: 'trend-h4' });
 *
 * Each call checks its input first (a WriterError names the field) and makes one DynamoDB transaction with
 * conditions, so it is written whole or not at all. Items shared between calls (the balance, the P&L aggregates)
 * are read and rewritten on condition that nobody changed them meanwhile; a call that loses such a race reads again
 * and retries. Repeating a call (after a timeout, say) has no second effect: it answers `unchanged`. Two writers
 * racing on the same trade: one wins, the other gets TRADE_CLOSED or TRADE_CONFLICT, and no counter drifts.
 */
import tables from '../../../resources/tables.js';
import {
  type AccountRecord,
  adoptCurrency,
  createAccount,
  getAccountRecord,
  NO_CURRENCY,
  readAccountRecords,
  reportBot,
  restore,
  retire,
  updateProfile,
} from '@trading-bot-api/core/store/accounts-table';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ABOVE_EVERY_ID, compareIds } from '@trading-bot-api/core/ids';
import { getBalanceRecord, newBalanceRecord, putBalance, readBalances } from '@trading-bot-api/core/store/balances-table';
import {
  createStore,
  MAX_TRANSACTION_ITEMS,
  type Store,
  type Tables,
  TransactionCancelled,
  transactWrite,
} from '@trading-bot-api/core/store/dynamodb';
import {
  type EquityEntry,
  entryPrefix,
  getLimits,
  putEquity,
  putLimits,
  putRates,
  readCheckpoints,
  readKeyRange,
} from '@trading-bot-api/core/store/ledger-table';
import { putTrade, readTrades, tradeListing } from '@trading-bot-api/core/store/trades-table';
import type { Account, Balance, BotReport, Trade } from '@trading-bot-api/core/types';
import * as backfill from './backfill';
import * as errors from './errors';
import * as feed from './feed';
import { type Reconciliation, reconcileAccount } from './reconcile';
import type { RatesEntry } from '@trading-bot-api/core/reporting';
import { type RecordOptions, recordTrades, type TradeResult } from './history';
import { attempts, commit, Retry } from './retry';
import { balanceAfterSnapshot, equityEntriesOf } from './rules';
import {
  BALANCE_ITEMS,
  balanceOf,
  CLOSING,
  differing,
  MARKS,
  POSITION,
  storedTrade,
  writeTrades,
  storedTrades,
  tradeAfterClose,
  tradeAfterMarks,
} from './trades';
import type { Checkpoint, FeedAdvance, FeedStep } from './feed';
import * as check from './validate';
import type { Snapshot, TradeMarks } from './validate';

export { isRefusal, WriterError } from './errors';
export type { WriterErrorCode } from './errors';
export type { RecordOptions, TradeOutcome, TradeResult } from './history';
export type { BackfillResult } from './backfill';
export type { Checkpoint, FeedAdvance, FeedStep, Transfer } from './feed';
export type { Reconciliation } from './reconcile';
export type { RatesEntry } from '@trading-bot-api/core/reporting';
export type { Difference, ExchangeFill } from '@trading-bot-api/core/reconciliation';
/** How a close and marks change a trade, as the writer's calls store them (for a feed that folds several calls into one). */
export { tradeAfterClose, tradeAfterMarks } from './trades';
export type { Close, Gone, Heartbeat, Snapshot, TradeMarks } from './validate';
export type { Tables } from '@trading-bot-api/core/store/dynamodb';
export type { Account, Balance, BotReport, BotState, Fee, Market, Trade } from '@trading-bot-api/core/types';
/**
 * The writer's own input checks, for a feed that checks what it is given before writing it (the event lines' parser):
 * each returns the value as the writer stores it, or throws WriterError INVALID_INPUT naming the field.
 */
export {
  accountId as checkAccountId,
  accountInput as checkAccount,
  closeInput as checkClose,
  goneInput as checkGone,
  heartbeatInput as checkHeartbeat,
  marksInput as checkMarks,
  snapshotInput as checkSnapshot,
  tradeId as checkTradeId,
  tradeInput as checkTrade,
  MAX_ORDER_IDS,
} from './validate';
/**
 * How far ahead of the writer's clock a bot's time may be; and the rules of amounts and instruments the writer
 * stores by, for a bot or feed that turns its own figures (floats, other spellings) into the writer's.
 */
export { MAX_CLOCK_AHEAD_MS } from '@trading-bot-api/core/time';
// Every decimal helper the API's own figures use (core/decimal.ts), for a bot's figures read at the same precision.
export * from '@trading-bot-api/core/decimal';
export { canonicalInstrument } from '@trading-bot-api/core/instruments';
export { NO_CURRENCY } from '@trading-bot-api/core/store/accounts-table';
export { isAccountId } from '@trading-bot-api/core/ids';

export interface WriterOptions {
  /** The stage whose tables to write (`trading-bot-api-<stage>-*`); or give `tables`. */
  stage?: string;
  tables?: Tables;
  /** Default: AWS_REGION, else us-east-1. */
  region?: string;
  /**
   * DynamoDB Local's endpoint (`npm start`: http://127.0.0.1:8000, or its DB_PORT); unset for AWS. DynamoDB Local
   * takes any credentials: for an endpoint on this machine (localhost, 127.0.0.1, [::1]) given without
   * `credentials`, the writer signs with placeholder ones, so nothing needs configuring.
   */
  endpoint?: string;
  /** Default: the AWS SDK's own chain (environment, AWS_PROFILE, the instance's or container's role). */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /**
   * A DynamoDB document client of your own (your retry settings, middleware, tracing), used instead of one the
   * writer builds; `region`, `endpoint` and `credentials` are then its own. `close()` leaves it open: it is yours.
   */
  client?: DynamoDBDocumentClient;
  /** The clock for defaults (`createdAt`, a heartbeat's `time`). */
  now?: () => Date;
}

export type AccountOutcome = 'created' | 'updated' | 'unchanged';
export type RecordOutcome = 'recorded' | 'stale';

/** An account as stored: its profile, what its bot last reported, when it was retired (null: in the fleet), and its balance. */
export interface StoredAccount extends AccountRecord {
  /** Null only for an account whose balance item is missing (written by hand, not by a writer). */
  balance: Balance | null;
}

export interface Writer {
  /**
   * Creates the account, or updates its name, broker and environment; its currency never changes, but for an account
   * created in NO_CURRENCY (`XXX`: before its bot said its own), which takes the first other currency given while it
   * has no trade.
   */
  upsertAccount(account: Omit<Account, 'createdAt'> & { createdAt?: string }): Promise<AccountOutcome>;
  /**
   * Stores a new open trade with every listing key; counts it open; advances lastTradeAt. Opening it again with the
   * same instrument, side, units, price and time is a repeat (`unchanged`), even after it changed or closed. Its
   * market, leverage, fees (leg `open` unless said), liquidation price and order ids may be given (API 1.5).
   */
  openTrade(accountId: string, trade: OpenTrade): Promise<'opened' | 'unchanged'>;
  /**
   * Closes an open trade (whole); adds its realizedPL to the account and to its day, week and month. `realizedPL` is
   * the trade's, net of its fees (and a future's funding) as the bot counts them: the exports take it so. `reason`
   * says why it closed (`stop_loss`, `take_profit`, …); `fees` are those charged at the close (leg `close` unless
   * said: given with leg `open` too, they are the trade's whole list); `orderIds` are added to those of its opening.
   */
  closeTrade(accountId: string, tradeId: string, close: CloseTrade): Promise<'closed' | 'unchanged'>;
  /**
   * Updates an open trade: its marks (unrealizedPL; stopLoss and takeProfit, null clears them) and its position
   * (units and the average openPrice, after the bot added to it or exited part of it); and (API 1.5) its liquidation
   * price (null clears it), funding so far, leverage, its opening orders' fees so far (they replace those stored) and
   * order ids (added to those stored). A field left out keeps its value.
   */
  updateTradeMarks(
    accountId: string,
    tradeId: string,
    marks: Omit<TradeMarks, 'fees'> & { fees?: FeeInput[] },
  ): Promise<'updated' | 'unchanged'>;
  /**
   * Records the broker's figures, and keeps them as the equity point of their hour and day. A snapshot no newer than
   * the one stored (a repeat, or one that arrived late) is `stale` and changes nothing.
   */
  recordBalance(accountId: string, snapshot: Snapshot): Promise<RecordOutcome>;
  /**
   * Records a history of snapshots (a bot's balance history, a dataset), ending exactly as recordBalance called for
   * each in the given order would, each with the same outcome, in far fewer transactions: each holds as many
   * snapshots as fit (the equity point of each hour and day they reach, their latest in it, and the balance after
   * them). A call that fails part way has written whole transactions only, each ending as the calls up to its last
   * snapshot would have: give the history again, and what was written is `stale`. Every snapshot is checked before
   * anything is written: an invalid one throws, naming its index.
   */
  recordBalances(accountId: string, snapshots: readonly Snapshot[]): Promise<RecordOutcome[]>;
  /**
   * Ends an open trade the bot no longer has (its database was reset, the trade deleted there): it becomes `gone`,
   * with `reason` and the `time` it was found gone (default now), leaves the open count and moves no figure, since its
   * outcome is unknown. Gone is final: it never counts as open again (a later close of it, should the bot report one
   * after all, still closes it). A trade gone already is `unchanged`; a closed one is TRADE_CLOSED.
   */
  markGone(accountId: string, tradeId: string, gone: { reason: string; time?: string }): Promise<'gone' | 'unchanged'>;
  /**
   * Takes the account out of the fleet: out of `/api/accounts`, the fleet's status and balances, the probe and its
   * alarms, while its history stays readable by id. Its bot may go on writing (nothing is lost); it stays retired
   * until restoreAccount. `unchanged` when it is retired already.
   */
  retireAccount(accountId: string): Promise<'retired' | 'unchanged'>;
  /** Brings a retired account back into the fleet. `unchanged` when it is not retired. */
  restoreAccount(accountId: string): Promise<'restored' | 'unchanged'>;
  /** The account's open trades as stored, newest first: what a bridge compares with the bot's own. */
  openTrades(accountId: string): Promise<Trade[]>;
  /**
   * The stored trades among `tradeIds` of the account, by id (ids no trade has are absent), read in batches: what a
   * feed that resumes after a stop compares with what it is about to write.
   */
  storedTrades(accountId: string, tradeIds: readonly string[]): Promise<Map<string, Trade>>;
  /** What the account's bot last reported, as stored; undefined when there is no such account. */
  botReport(accountId: string): Promise<BotReport | undefined>;
  /** Every account of the stage, retired ones included, sorted by id (a small table, read whole). */
  listAccounts(): Promise<StoredAccount[]>;
  /** Reports the bot's state (a heartbeat); `time` defaults to now. */
  heartbeat(
    accountId: string,
    heartbeat: { state: 'running' | 'paused' | 'stopped' | 'error'; strategy?: string | null; message?: string | null; time?: string },
  ): Promise<RecordOutcome>;
  /**
   * Writes a history of trades (open or closed, in the API's Trade shape) as few transactions as fit: new trades are
   * created; a stored open trade that comes closed is closed, one that comes with other marks or another position is
   * updated, an identical one is unchanged; a stored trade given with another instrument, side or open time is
   * TRADE_CONFLICT, a closed one given with anything different TRADE_CLOSED. Each trade gets its own result, in input
   * order; UNAVAILABLE marks the trades that were not written because the database stopped answering. With
   * `correct`, the history is the source's own record: a stored closed trade given with other figures is corrected
   * (`corrected`), and every figure that counted it moves with it.
   */
  recordTrades(accountId: string, trades: readonly unknown[], options?: Pick<RecordOptions, 'correct'>): Promise<TradeResult[]>;
  /**
   * A feed's checkpoints of the account (its cursors and what it builds from them: feed.ts), those whose names start
   * with `prefix`, sorted by name.
   */
  readCheckpoints(accountId: string, prefix?: string): Promise<Checkpoint[]>;
  /**
   * Writes what a feed made of its source's records, step by step, each transaction ending with the checkpoint after
   * its last step (feed.ts): a feed stopped at any moment resumes from a checkpoint that covers exactly what is
   * stored. `version` is the checkpoint's as read (0: none); WRITE_CONFLICT when it moved (another feed).
   */
  advanceFeed(accountId: string, name: string, version: number, steps: readonly FeedStep[]): Promise<FeedAdvance>;
  /**
   * Keeps deposits and withdrawals of the account (each once), never counted as P&L, with the checkpoint `name` at
   * `state` in the transaction of the last (`version` as read).
   */
  recordTransfers(
    accountId: string,
    transfers: readonly unknown[],
    checkpoint: { name: string; state: unknown; version: number },
  ): Promise<{ version: number; recorded: number }>;
  /** The instruments the account's trades are of: its open trades' and those of its performance figures (its closed ones). */
  instrumentsOf(accountId: string): Promise<string[]>;
  /**
   * Reconciles the bot's account `accountId` against the exchange account `exchangeAccountId` an exchange feed
   * mirrors (reconcile.ts): the answer kept for GET /api/{account}/reconciliation, and the differences new to it.
   */
  reconcile(accountId: string, exchangeAccountId: string): Promise<Reconciliation>;
  /** Keeps the last prices the exchange feed of `accountId` read (replacing its last), for the reporting currency. */
  recordRates(accountId: string, entry: RatesEntry): Promise<void>;
  /**
   * What a scheduled exchange feed's last run left of `exchange`'s request-weight limiter (its JSON state; undefined:
   * none yet), so one limiter paces the exchange across runs.
   */
  exchangeLimits(exchange: string): Promise<unknown>;
  /** Keeps `exchange`'s limiter state (replacing the last) for the next run. */
  keepExchangeLimits(exchange: string, state: unknown): Promise<void>;
  /** Releases the connections of the client the writer built (a client given in WriterOptions stays open). */
  close(): void;
}

/** A fee as a call gives it: `leg` may be left out where the call says it (an open's are `open`, a close's `close`). */
export type FeeInput = { amount: string; currency: string; leg?: 'open' | 'close' };

export type OpenTrade = Pick<Trade, 'id' | 'instrument' | 'side' | 'units' | 'openPrice' | 'openTime'> &
  Partial<Pick<Trade, 'unrealizedPL' | 'stopLoss' | 'takeProfit' | 'market' | 'leverage' | 'liquidationPrice' | 'orderIds'>> & {
    fees?: FeeInput[] | null;
  };

export type CloseTrade = {
  closePrice: string;
  closeTime: string;
  realizedPL: string;
  unrealizedPL?: string;
  reason?: string | null;
  fees?: FeeInput[] | null;
  fundingFees?: string | null;
  orderIds?: string[] | null;
};

/** What updateTradeMarks may change besides the position and marks (API 1.5). */
const MARKED = ['liquidationPrice', 'fundingFees', 'leverage', 'fees', 'orderIds'] as const;

/** The fields an open repeated must match: whoever opened it with these opened this one. */
const OPENING = ['instrument', 'side', 'units', 'openPrice', 'openTime'] as const;

/**
 * The store each writer writes through, kept here rather than on the Writer: nothing outside the package reads the
 * tables through a writer, and the backfill below reaches them through it.
 */
const stores = new WeakMap<Writer, Store>();

function storeOf(writer: Writer): Store {
  const store = stores.get(writer);
  if (!store) throw new Error('not a writer made by createWriter');
  return store;
}

/** Creates a writer over its own DynamoDB client (or the one given in `options.client`). */
export function createWriter(options: WriterOptions): Writer {
  if (!options.tables && !options.stage) throw new Error('createWriter: give a stage or the table names');
  const tableNames = options.tables ?? tables.tableNames(options.stage!);
  const store: Store = options.client
    ? { client: options.client, tables: tableNames }
    : createStore({
        tables: tableNames,
        region: options.region ?? process.env.AWS_REGION ?? 'us-east-1',
        endpoint: options.endpoint,
        credentials:
          options.credentials ?? (options.endpoint !== undefined && isLoopback(options.endpoint) ? LOCAL_CREDENTIALS : undefined),
        // A writer is not bound by an API Gateway budget: a little more patience than the API's functions.
        connectTimeoutMs: 1000,
        requestTimeoutMs: 3000,
        maxAttempts: 4,
      });
  const now = options.now ?? (() => new Date());

  /**
   * Records snapshots in order (recordBalances), each with recordBalance's outcome, in as few transactions as fit;
   * `prefix` names an invalid snapshot's fields by its index.
   */
  async function recordSnapshots(
    accountId: string,
    inputs: readonly Snapshot[],
    prefix: (index: number) => string,
    what: string,
  ): Promise<RecordOutcome[]> {
    check.accountId(accountId);
    const at = now();
    const snapshots = inputs.map((input, index) => check.snapshotInput(input, at, prefix(index)));
    // A stored time further ahead than any the writer accepts now was written by a bot with a clock ahead (before
    // the writer refused such times): it does not hold back the true ones.
    const future = check.latestAcceptable(at);
    const outcomes: RecordOutcome[] = [];
    while (outcomes.length < snapshots.length) {
      const done = await attempts(`${what} of ${accountId}`, async () => {
        const stored = await balanceOf(store, accountId);
        let balance = stored;
        // The latest snapshot of each equity point the transaction reaches, by its key.
        const points = new Map<string, EquityEntry>();
        const chunk: RecordOutcome[] = [];
        for (const snapshot of snapshots.slice(outcomes.length)) {
          // A snapshot older than the one stored (or than the calls before it would have left) arrived late, and one
          // of the same time is a repeat: the stored figures stand (trades closed since then have moved them, so
          // writing the snapshot again would undo that).
          if (balance.snapshotAt !== null && snapshot.time <= balance.snapshotAt && balance.snapshotAt <= future) {
            chunk.push('stale');
            continue;
          }
          const entries = equityEntriesOf(accountId, snapshot).map((entry) => [`${entry.interval}#${entry.start}`, entry] as const);
          const added = entries.filter(([key]) => !points.has(key)).length;
          if (points.size + added + BALANCE_ITEMS > MAX_TRANSACTION_ITEMS) break;
          for (const [key, entry] of entries) points.set(key, entry);
          balance = balanceAfterSnapshot(balance, snapshot, future);
          chunk.push('recorded');
        }
        if (points.size)
          await commit(store, [
            putBalance(store, { ...balance, version: stored.version + 1 }, stored),
            ...[...points.values()].map((entry) => putEquity(store, entry, future)),
          ]);
        return chunk;
      });
      outcomes.push(...done);
    }
    return outcomes;
  }

  /** `read` of the account `accountId` (checked first), retried as reading `what` of it. */
  async function reading<T>(accountId: string, what: string, read: () => Promise<T>): Promise<T> {
    check.accountId(accountId);
    return attempts(`reading ${what} of ${accountId}`, read);
  }

  /** Takes the account out of the fleet (`at`: when) or brings it back (null), its record and balance together. */
  async function setRetired(accountId: string, at: string | null, what: string) {
    check.accountId(accountId);
    return attempts(`${what} ${accountId}`, async () => {
      const [record, balance] = await Promise.all([getAccountRecord(store, accountId, true), getBalanceRecord(store, accountId)]);
      if (!record || !balance) throw errors.accountNotFound(accountId);
      if ((record.retiredAt !== null) === (at !== null)) return false;
      await commit(store, [
        at === null ? restore(store, accountId) : retire(store, accountId, at),
        putBalance(store, { ...balance, retiredAt: at, version: balance.version + 1 }, balance),
      ]);
      return true;
    });
  }

  const writer: Writer = {
    async upsertAccount(input) {
      const account = check.accountInput(input, now());
      return attempts(`writing account ${account.id}`, async () => {
        // Read first: most calls repeat a profile already stored (a bot restarting), and a read costs less than a
        // refused create.
        const record = await getAccountRecord(store, account.id, true);
        if (!record) {
          const bot: BotReport = { state: 'stopped', lastHeartbeatAt: null, strategy: null, message: null, updatedAt: account.createdAt };
          try {
            await transactWrite(store, [
              createAccount(store, account, bot),
              putBalance(store, newBalanceRecord(account.id, account.currency, account.createdAt), undefined),
            ]);
            return 'created';
          } catch (error) {
            if (!(error instanceof TransactionCancelled)) throw error;
            // Created meanwhile by another writer: compare with what it stored.
            throw new Retry();
          }
        }
        const stored = record.account;
        if (stored.currency === NO_CURRENCY && account.currency !== NO_CURRENCY) {
          // Created before its bot said its currency: it takes it, with its balance, while it has no trade.
          const balance = await getBalanceRecord(store, account.id);
          if (balance && balance.lastTradeAt === null) {
            await commit(store, [
              adoptCurrency(store, account.id, account.currency, account),
              putBalance(store, { ...balance, currency: account.currency, version: balance.version + 1 }, balance),
            ]);
            return 'updated';
          }
        }
        if (stored.currency !== account.currency) throw errors.currencyMismatch(account.id, stored.currency, account.currency);
        if (stored.name === account.name && stored.broker === account.broker && stored.environment === account.environment)
          return 'unchanged';
        await commit(store, [updateProfile(store, account.id, account.currency, account)]);
        return 'updated';
      });
    },

    async openTrade(accountId, input) {
      const trade = check.tradeInput({ ...input, status: 'open' }, check.accountId(accountId), '', now(), 'open');
      return attempts(`opening ${trade.id}`, async () => {
        if (await writeTrades(store, accountId, [{ trade }])) return 'opened';
        const read = await storedTrade(store, accountId, trade.id);
        if (!read) throw new Retry();
        // The same opening is a repeat of this call: it took effect already, whatever happened to the trade since.
        const changed = differing(read.trade, trade, OPENING);
        if (!changed.length) return 'unchanged';
        throw read.trade.status !== 'open'
          ? errors.tradeClosed(trade.id, `it was opened with other ${changed.join(', ')} and is ${read.trade.status}`)
          : errors.tradeConflict(trade.id, `stored with other ${changed.join(', ')}`);
      });
    },

    async closeTrade(accountId, tradeId, input) {
      check.accountId(accountId);
      check.tradeId(tradeId);
      // Validated against the stored open time once it is read; the input is checked on its own first.
      check.closeInput(input, '0000-01-01T00:00:00.000Z', now());
      return attempts(`closing ${tradeId}`, async () => {
        const read = await storedTrade(store, accountId, tradeId);
        if (!read) throw errors.tradeNotFound(accountId, tradeId);
        // A gone trade closes too: the bot knew its outcome after all (why it was gone is not why it closed).
        const closed = tradeAfterClose(read.trade, check.closeInput(input, read.trade.openTime, now()));
        if (read.trade.status === 'closed') {
          const changed = differing(read.trade, closed, [...CLOSING, 'closeReason', 'fees', 'fundingFees', 'orderIds']);
          if (!changed.length) return 'unchanged';
          throw errors.tradeClosed(tradeId, `it closed with other ${changed.join(', ')}`);
        }
        await writeTrades(store, accountId, [{ trade: closed, read }]);
        return 'closed';
      });
    },

    async updateTradeMarks(accountId, tradeId, input) {
      check.accountId(accountId);
      check.tradeId(tradeId);
      const marks = check.marksInput(input);
      return attempts(`updating ${tradeId}`, async () => {
        const read = await storedTrade(store, accountId, tradeId);
        if (!read) throw errors.tradeNotFound(accountId, tradeId);
        const marked = tradeAfterMarks(read.trade, marks);
        const changed = differing(read.trade, marked, [...POSITION, ...MARKS, ...MARKED]);
        if (!changed.length) return 'unchanged';
        if (read.trade.status !== 'open')
          throw errors.tradeClosed(tradeId, `it is ${read.trade.status}: its ${changed.join(', ')} cannot change`);
        if (marks.fundingFees !== undefined && marked.market !== 'futures')
          throw errors.invalidInput('fundingFees', `is for a future, and ${tradeId} is ${marked.market ?? 'of an unknown market'}`);
        if (marked.market === 'spot' && (marks.liquidationPrice || (marks.leverage && marks.leverage !== read.trade.leverage)))
          throw errors.invalidInput(
            marks.liquidationPrice ? 'liquidationPrice' : 'leverage',
            `${tradeId} is a spot trade (leverage 1, no liquidation)`,
          );
        await commit(store, [putTrade(store, marked, read)]);
        return 'updated';
      });
    },

    recordBalance: async (accountId, input) => (await recordSnapshots(accountId, [input], () => '', 'recording the balance'))[0],

    recordBalances: (accountId, inputs) => recordSnapshots(accountId, inputs, (index) => `snapshots[${index}].`, 'recording the balances'),

    async heartbeat(accountId, input) {
      check.accountId(accountId);
      const { time, ...said } = check.heartbeatInput(input, now());
      const report: BotReport = { ...said, lastHeartbeatAt: time, updatedAt: time };
      return attempts(`recording a heartbeat of ${accountId}`, async () => {
        // One item, the account's own: the fleet projector carries what the fleet shows of it to the fleet table.
        if (await reportBot(store, accountId, report, check.latestAcceptable(now()))) return 'recorded';
        if (!(await getAccountRecord(store, accountId, true))) throw errors.accountNotFound(accountId);
        return 'stale';
      });
    },

    recordTrades: (accountId, inputs, options = {}) => recordTrades(store, accountId, inputs, { ...options, now: now() }),

    async markGone(accountId, tradeId, input) {
      check.accountId(accountId);
      check.tradeId(tradeId);
      const gone = check.goneInput(input, now());
      return attempts(`marking ${tradeId} gone`, async () => {
        const read = await storedTrade(store, accountId, tradeId);
        if (!read) throw errors.tradeNotFound(accountId, tradeId);
        if (read.trade.status === 'gone') return 'unchanged';
        if (read.trade.status === 'closed') throw errors.tradeClosed(tradeId, 'a closed trade cannot be gone');
        if (gone.time < read.trade.openTime)
          throw errors.invalidInput('time', `must not be before the trade's openTime (${read.trade.openTime})`);
        const trade: Trade = {
          ...read.trade,
          status: 'gone',
          closePrice: null,
          closeTime: gone.time,
          realizedPL: '0',
          unrealizedPL: '0',
          closeReason: gone.reason,
        };
        await writeTrades(store, accountId, [{ trade, read }]);
        return 'gone';
      });
    },

    retireAccount: async (accountId) => ((await setRetired(accountId, now().toISOString(), 'retiring')) ? 'retired' : 'unchanged'),
    restoreAccount: async (accountId) => ((await setRetired(accountId, null, 'restoring')) ? 'restored' : 'unchanged'),

    openTrades: (accountId) =>
      reading(accountId, 'the open trades', () => readTrades(store, tradeListing(accountId, { status: 'open' }), {})),

    storedTrades: (accountId, tradeIds) =>
      reading(accountId, 'trades', async () => {
        const records = await storedTrades(store, accountId, tradeIds);
        return new Map([...records].map(([id, record]) => [id, record.trade]));
      }),

    botReport: (accountId) => reading(accountId, 'the bot report', async () => (await getAccountRecord(store, accountId, true))?.bot),

    async listAccounts() {
      return attempts('listing the accounts', async () => {
        const [accounts, balances] = await Promise.all([readAccountRecords(store, '*'), readBalances(store, '*')]);
        const balanceOf = new Map(balances.map((balance) => [balance.accountId, balance]));
        return accounts
          .map((record) => ({ ...record, balance: balanceOf.get(record.account.id) ?? null }))
          .sort((a, b) => compareIds(a.account.id, b.account.id));
      });
    },

    readCheckpoints: (accountId, prefix = '') =>
      reading(accountId, 'the checkpoints', async () =>
        (await readCheckpoints(store, accountId, prefix)).map((entry) => feed.checkpointOf(entry, entry.name)),
      ),

    advanceFeed: (accountId, name, version, steps) => feed.advanceFeed(store, accountId, name, version, steps, now()),

    recordTransfers: (accountId, transfers, checkpoint) => feed.recordTransfers(store, accountId, transfers, checkpoint, now()),

    instrumentsOf: (accountId) =>
      reading(accountId, 'the instruments', async () => {
        const prefix = entryPrefix('perf', 'month');
        const [months, open] = await Promise.all([
          readKeyRange(store, accountId, prefix, `${prefix}${ABOVE_EVERY_ID}`),
          readTrades(store, tradeListing(accountId, { status: 'open' }), {}),
        ]);
        const instruments = new Set([
          ...months.flatMap((item) => Object.keys((item.instruments ?? {}) as object)),
          ...open.map((trade) => trade.instrument),
        ]);
        return [...instruments].sort();
      }),

    reconcile: (accountId, exchangeAccountId) => reconcileAccount(store, accountId, exchangeAccountId, now()),

    async recordRates(accountId, entry) {
      check.accountId(accountId);
      const prices = entry.prices.map((price, index) => ({
        base: check.currency(price.base, `prices[${index}].base`),
        quote: check.currency(price.quote, `prices[${index}].quote`),
        price: check.positiveDecimal(price.price, `prices[${index}].price`),
      }));
      const checked = { exchange: check.checkpointPart(entry.exchange, 'exchange'), time: check.time(entry.time, 'time'), prices };
      await attempts(`recording the rates of ${entry.exchange}`, () => commit(store, putRates(store, accountId, checked)));
    },

    async exchangeLimits(exchange) {
      const name = check.checkpointPart(exchange, 'exchange');
      const state = await attempts(`reading the limits of ${name}`, () => getLimits(store, name));
      return state === undefined ? undefined : JSON.parse(state);
    },

    async keepExchangeLimits(exchange, state) {
      const name = check.checkpointPart(exchange, 'exchange');
      const item = putLimits(store, name, JSON.stringify(state), now().toISOString());
      await attempts(`keeping the limits of ${name}`, () => commit(store, [item]));
    },

    close() {
      if (!options.client) store.client.destroy();
    },
  };
  stores.set(writer, store);
  return writer;
}

/**
 * The one-off backfill of what the writer keeps beside the data (`npm run backfill`, backfill.ts): the performance
 * statistics of one account, written where missing or different, through `writer`'s connection. Running it again
 * changes nothing.
 */
export function backfillAccount(writer: Writer, accountId: string): Promise<backfill.BackfillResult> {
  return backfill.backfillAccount(storeOf(writer), accountId);
}

const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

const isLoopback = (endpoint: string) => URL.canParse(endpoint) && ['localhost', '127.0.0.1', '[::1]'].includes(new URL(endpoint).hostname);
