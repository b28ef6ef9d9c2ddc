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
import tables from '../../resources/tables.js';
import { HttpProblem } from '../errors';
import { createAccount, getAccountItem, reportBot, toAccount, updateProfile } from '../store/accounts-table';
import { type BalanceRecord, getBalanceRecord, newBalanceRecord, putBalance } from '../store/balances-table';
import { createStore, type Store, type Tables, TransactionCancelled, type TransactItem, transactWrite } from '../store/dynamodb';
import { getPnlEntries, getRegisteredOpenTime, type PnlEntry, putEquity, putPnl, registerTradeId } from '../store/ledger-table';
import { getTradeRecord, putTrade } from '../store/trades-table';
import type { Trade } from '../types';
import * as errors from './errors';
import { WriterError } from './errors';
import { aggregatesAfter, balanceAfter, balanceAfterSnapshot, equityEntriesOf, pnlId, pnlPeriodsOf, type TradeEvent } from './rules';
import * as check from './validate';

export { WriterError } from './errors';
export type { WriterErrorCode } from './errors';

export interface WriterOptions {
  /** The stage whose tables to write (`trading-bot-api-<stage>-*`); or give `tables`. */
  stage?: string;
  tables?: Tables;
  /** Default: AWS_REGION, else us-east-1. */
  region?: string;
  /** DynamoDB Local's endpoint (`npm start`: http://127.0.0.1:$DB_PORT); unset for AWS. */
  endpoint?: string;
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /** The clock for defaults (`createdAt`, a heartbeat's `time`). */
  now?: () => Date;
}

export type AccountOutcome = 'created' | 'updated' | 'unchanged';
export type TradeOutcome = 'opened' | 'created' | 'closed' | 'updated' | 'unchanged';
export type RecordOutcome = 'recorded' | 'stale';

/** What became of one trade of a batch (recordTrades): written, or refused with the reason. */
export type TradeResult = { id: string; index: number; outcome: TradeOutcome } | { id: string | undefined; index: number; error: WriterError };

export interface Writer {
  /** Creates the account, or updates its name, broker and environment; its currency never changes. */
  upsertAccount(account: { id: string; name: string; currency: string; broker: string; environment: 'live' | 'paper'; createdAt?: string }): Promise<AccountOutcome>;
  /**
   * Stores a new open trade with every listing key; counts it open; advances lastTradeAt. Opening it again with the
   * same instrument, side, units, price and time is a repeat (`unchanged`), even after it changed or closed.
   */
  openTrade(accountId: string, trade: OpenTrade): Promise<'opened' | 'unchanged'>;
  /** Closes an open trade (whole); adds its realizedPL to the account and to its day, week and month. */
  closeTrade(accountId: string, tradeId: string, close: { closePrice: string; closeTime: string; realizedPL: string; unrealizedPL?: string }): Promise<'closed' | 'unchanged'>;
  /** Updates an open trade's marks: unrealizedPL, stopLoss, takeProfit (null clears them). */
  updateTradeMarks(accountId: string, tradeId: string, marks: { unrealizedPL?: string; stopLoss?: string | null; takeProfit?: string | null }): Promise<'updated' | 'unchanged'>;
  /** Records the broker's figures, and keeps them as the equity point of their hour and day. */
  recordBalance(accountId: string, snapshot: { balance: string; unrealizedPL: string; nav: string; marginUsed: string; marginAvailable: string; time: string }): Promise<RecordOutcome>;
  /** Reports the bot's state (a heartbeat); `time` defaults to now. */
  heartbeat(accountId: string, heartbeat: { state: 'running' | 'paused' | 'stopped' | 'error'; strategy?: string | null; message?: string | null; time?: string }): Promise<RecordOutcome>;
  /**
   * Writes a history of trades (open or closed, in the API's Trade shape) as few transactions as fit: new trades are
   * created, a stored open trade that comes closed is closed, one that comes with other marks gets them, an identical
   * one is unchanged; anything else about a stored trade (a closed trade with other values) is refused. Each trade
   * gets its own result, in input order.
   */
  recordTrades(accountId: string, trades: readonly unknown[]): Promise<TradeResult[]>;
  /** The store the writer writes (its client and table names), for reading back what it wrote. */
  readonly store: Store;
  /** Releases the client's connections. */
  close(): void;
}

export type OpenTrade = Omit<Trade, 'accountId' | 'status' | 'closePrice' | 'closeTime' | 'realizedPL' | 'unrealizedPL' | 'stopLoss' | 'takeProfit'> & {
  unrealizedPL?: string;
  stopLoss?: string | null;
  takeProfit?: string | null;
};

/** Retried read-modify-writes before a call gives up with WRITE_CONFLICT. */
const MAX_ATTEMPTS = 12;
/** Items in one transaction (DynamoDB's limit). */
const MAX_TRANSACTION_ITEMS = 100;

/** Thrown inside an attempt when another writer changed what it read: read again and retry. */
class Retry extends Error {}

async function attempts<T>(what: string, attempt: () => Promise<T>): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (error) {
      if (error instanceof HttpProblem) throw errors.unavailable();
      if (!(error instanceof Retry)) throw error;
      if (n >= MAX_ATTEMPTS) throw errors.writeConflict(what);
      // Full jitter, growing: racing writers spread out instead of colliding again.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(200, 5 * 2 ** n)));
    }
  }
}

/** The fields that make a trade the same trade: whoever opened it, with these, opened this one. */
const OPENING = ['instrument', 'side', 'units', 'openPrice', 'openTime'] as const;
const CLOSING = ['closePrice', 'closeTime', 'realizedPL'] as const;
const MARKS = ['unrealizedPL', 'stopLoss', 'takeProfit'] as const;

function differing(a: Trade, b: Trade, fields: readonly (keyof Trade)[]): string[] {
  return fields.filter((field) => a[field] !== b[field]);
}

/** Creates a writer over its own DynamoDB client. */
export function createWriter(options: WriterOptions): Writer {
  const tableNames = options.tables ?? namesOf(options.stage);
  const store = createStore({
    tables: tableNames,
    region: options.region ?? process.env.AWS_REGION ?? 'us-east-1',
    endpoint: options.endpoint,
    credentials: options.credentials,
    // A writer is not bound by an API Gateway budget: a little more patience than the API's functions.
    connectTimeoutMs: 1000,
    requestTimeoutMs: 3000,
    maxAttempts: 4,
  });
  const now = options.now ?? (() => new Date());

  async function balanceOf(accountId: string): Promise<BalanceRecord> {
    const record = await getBalanceRecord(store, accountId);
    if (!record) throw errors.accountNotFound(accountId);
    return record;
  }

  /**
   * Writes new trades (none of them stored yet) and their effect on the balance and the aggregates, in one
   * transaction. Returns false, writing nothing, when one of the ids is registered already.
   *
   * `written`, given by a run of calls (a history), carries the balance and aggregates as the last call stored them,
   * so the next call starts from them instead of reading them again: an import's transactions follow one another
   * without a read between them. Their versions are still the transaction's conditions, so if anyone else wrote
   * meanwhile the transaction is cancelled, the carried state is dropped and the retry reads afresh.
   */
  async function createTrades(accountId: string, trades: readonly Trade[], written?: Written): Promise<boolean> {
    return attempts(`writing trades of ${accountId}`, async () => {
      const closed = trades.filter((trade) => trade.status === 'closed');
      const periods = uniquePeriods(closed);
      const carried = written?.balance ? written : undefined;
      const [balance, read] = await Promise.all([
        carried?.balance ?? balanceOf(accountId),
        getPnlEntries(store, accountId, carried ? periods.filter((key) => !carried.pnl.has(pnlId(key))) : periods),
      ]);
      const stored = [...read, ...(carried ? periods.flatMap((key) => carried.pnl.get(pnlId(key)) ?? []) : [])];
      const events: TradeEvent[] = trades.map((trade) => ({ kind: trade.status === 'open' ? 'opened' : 'recordedClosed', trade }));
      const nextBalance = balanceAfter(balance, events);
      const aggregates = aggregatesAfter(accountId, stored, closed);
      const items: TransactItem[] = [
        ...trades.flatMap((trade) => [registerTradeId(store, accountId, trade.id, trade.openTime), putTrade(store, trade, undefined)]),
        putBalance(store, nextBalance, balance),
        ...aggregates.map((entry) => putPnl(store, entry, stored.find((found) => found.period === entry.period && found.start === entry.start))),
      ];
      try {
        await transactWrite(store, items);
      } catch (error) {
        if (written) forget(written);
        if (!(error instanceof TransactionCancelled)) throw error;
        // An id already registered (or a trade already at that key): the caller sorts out which, one by one.
        if (trades.some((_, i) => error.conditionFailed(2 * i) || error.conditionFailed(2 * i + 1))) return false;
        throw new Retry();
      }
      if (written) {
        written.balance = nextBalance;
        for (const entry of aggregates) written.pnl.set(pnlId(entry), entry);
      }
      return true;
    });
  }

  /** The stored trade with `tradeId`, found through the ledger's register of ids. */
  async function storedTrade(accountId: string, tradeId: string): Promise<{ trade: Trade; version: number } | undefined> {
    const openTime = await getRegisteredOpenTime(store, accountId, tradeId);
    if (openTime === undefined) return undefined;
    return getTradeRecord(store, { accountId, id: tradeId, openTime });
  }

  /** Closes a stored open trade with `closed` (its close fields set), counting it in the balance and aggregates. */
  async function closeStored(accountId: string, tradeId: string, close: (stored: Trade) => Trade): Promise<'closed' | 'unchanged'> {
    return attempts(`closing ${tradeId}`, async () => {
      const read = await storedTrade(accountId, tradeId);
      if (!read) throw errors.tradeNotFound(accountId, tradeId);
      const closed = close(read.trade);
      if (read.trade.status === 'closed') {
        const changed = differing(read.trade, closed, CLOSING);
        if (!changed.length) return 'unchanged';
        throw errors.tradeClosed(tradeId, `it closed with other ${changed.join(', ')}`);
      }
      const [balance, stored] = await Promise.all([balanceOf(accountId), getPnlEntries(store, accountId, pnlPeriodsOf(closed.closeTime!))]);
      const aggregates = aggregatesAfter(accountId, stored, [closed]);
      try {
        await transactWrite(store, [
          putTrade(store, closed, read),
          putBalance(store, balanceAfter(balance, [{ kind: 'closed', trade: closed }]), balance),
          ...aggregates.map((entry) => putPnl(store, entry, stored.find((found) => found.period === entry.period && found.start === entry.start))),
        ]);
        return 'closed';
      } catch (error) {
        if (error instanceof TransactionCancelled) throw new Retry();
        throw error;
      }
    });
  }

  /** Changes a stored open trade's marks. */
  async function markStored(accountId: string, tradeId: string, marks: check.Marks): Promise<'updated' | 'unchanged'> {
    return attempts(`updating ${tradeId}`, async () => {
      const read = await storedTrade(accountId, tradeId);
      if (!read) throw errors.tradeNotFound(accountId, tradeId);
      const marked = { ...read.trade, ...marks };
      const changed = differing(read.trade, marked, MARKS);
      if (!changed.length) return 'unchanged';
      if (read.trade.status === 'closed') throw errors.tradeClosed(tradeId, `its ${changed.join(', ')} cannot change`);
      try {
        await transactWrite(store, [putTrade(store, marked, read)]);
        return 'updated';
      } catch (error) {
        if (error instanceof TransactionCancelled) throw new Retry();
        throw error;
      }
    });
  }

  /** One trade of a history, against what is stored (see recordTrades). */
  async function recordOne(accountId: string, trade: Trade): Promise<TradeOutcome> {
    for (;;) {
      const read = await storedTrade(accountId, trade.id);
      if (!read) {
        if (await createTrades(accountId, [trade])) return 'created';
        continue;
      }
      const stored = read.trade;
      const opening = differing(stored, trade, OPENING);
      if (opening.length) throw errors.tradeConflict(trade.id, `stored with other ${opening.join(', ')}`);
      if (stored.status === 'closed') {
        const changed = differing(stored, trade, ['status', ...CLOSING, ...MARKS]);
        if (!changed.length) return 'unchanged';
        throw errors.tradeClosed(trade.id, `stored closed, given other ${changed.join(', ')}`);
      }
      if (trade.status === 'closed') {
        const closed: Trade = { ...trade, status: 'closed' };
        return closeStored(accountId, trade.id, (current) => ({ ...current, ...pick(closed, [...CLOSING, ...MARKS]), status: 'closed' }));
      }
      return markStored(accountId, trade.id, pick(trade, MARKS));
    }
  }

  return {
    store,

    async upsertAccount(input) {
      const account = check.accountInput(input, now());
      return attempts(`writing account ${account.id}`, async () => {
        try {
          await transactWrite(store, [
            createAccount(store, account, { state: 'stopped', lastHeartbeatAt: null, strategy: null, message: null, updatedAt: account.createdAt }),
            putBalance(store, newBalanceRecord(account.id, account.currency, account.createdAt), undefined),
          ]);
          return 'created';
        } catch (error) {
          if (!(error instanceof TransactionCancelled)) throw error;
        }
        const item = await getAccountItem(store, account.id, true);
        if (!item) throw new Retry();
        const stored = toAccount(item);
        if (stored.currency !== account.currency) throw errors.currencyMismatch(account.id, stored.currency, account.currency);
        if (stored.name === account.name && stored.broker === account.broker && stored.environment === account.environment) return 'unchanged';
        try {
          await transactWrite(store, [updateProfile(store, account.id, account.currency, account)]);
          return 'updated';
        } catch (error) {
          if (error instanceof TransactionCancelled) throw new Retry();
          throw error;
        }
      });
    },

    async openTrade(accountId, input) {
      const trade = check.tradeInput({ ...input, status: 'open' }, check.accountId(accountId));
      for (;;) {
        if (await createTrades(accountId, [trade])) return 'opened';
        const read = await storedTrade(accountId, trade.id);
        if (!read) continue;
        // The same opening is a repeat of this call: it took effect already, whatever happened to the trade since.
        const changed = differing(read.trade, trade, OPENING);
        if (!changed.length) return 'unchanged';
        throw read.trade.status === 'closed'
          ? errors.tradeClosed(trade.id, `it was opened with other ${changed.join(', ')} and has closed`)
          : errors.tradeConflict(trade.id, `stored with other ${changed.join(', ')}`);
      }
    },

    async closeTrade(accountId, tradeId, input) {
      check.accountId(accountId);
      check.tradeId(tradeId);
      // Validated against the stored open time once it is read; the input is checked on its own first.
      check.closeInput(input, '0000-01-01T00:00:00.000Z');
      return closeStored(accountId, tradeId, (stored) => ({ ...stored, ...check.closeInput(input, stored.openTime), status: 'closed' }));
    },

    async updateTradeMarks(accountId, tradeId, input) {
      check.accountId(accountId);
      check.tradeId(tradeId);
      return markStored(accountId, tradeId, check.marksInput(input));
    },

    async recordBalance(accountId, input) {
      check.accountId(accountId);
      const snapshot = check.snapshotInput(input);
      return attempts(`recording the balance of ${accountId}`, async () => {
        const balance = await balanceOf(accountId);
        // A snapshot older than the one stored arrived late: the later figures stand.
        if (balance.snapshotAt !== null && snapshot.time < balance.snapshotAt) return 'stale';
        try {
          await transactWrite(store, [putBalance(store, balanceAfterSnapshot(balance, snapshot), balance), ...equityEntriesOf(accountId, snapshot).map((entry) => putEquity(store, entry))]);
          return 'recorded';
        } catch (error) {
          if (error instanceof TransactionCancelled) throw new Retry();
          throw error;
        }
      });
    },

    async heartbeat(accountId, input) {
      check.accountId(accountId);
      const beat = check.heartbeatInput(input, now());
      return attempts(`recording a heartbeat of ${accountId}`, async () => {
        try {
          await transactWrite(store, [reportBot(store, accountId, { state: beat.state, lastHeartbeatAt: beat.time, strategy: beat.strategy, message: beat.message, updatedAt: beat.time })]);
          return 'recorded';
        } catch (error) {
          if (!(error instanceof TransactionCancelled)) throw error;
          if (!(await getAccountItem(store, accountId, true))) throw errors.accountNotFound(accountId);
          if (error.conflict) throw new Retry();
          return 'stale';
        }
      });
    },

    async recordTrades(accountId, inputs) {
      check.accountId(accountId);
      const results: TradeResult[] = [];
      const valid: { trade: Trade; index: number }[] = [];
      inputs.forEach((input, index) => {
        try {
          valid.push({ trade: check.tradeInput(input, accountId), index });
        } catch (error) {
          if (!(error instanceof WriterError)) throw error;
          const id = (input as { id?: unknown } | null)?.id;
          results.push({ id: typeof id === 'string' ? id : undefined, index, error });
        }
      });
      // Fast path: a group of new trades as one transaction. An id seen twice in the input goes one by one.
      const seen = new Set<string>();
      const once = valid.filter(({ trade }) => (seen.has(trade.id) ? false : (seen.add(trade.id), true)));
      const repeated = valid.filter((entry) => !once.includes(entry));
      const written: Written = { pnl: new Map() };
      for (const group of groupsForTransactions(once)) {
        if (await createTrades(accountId, group.map((entry) => entry.trade), written)) {
          results.push(...group.map(({ trade, index }) => ({ id: trade.id, index, outcome: 'created' as const })));
        } else {
          // Some are stored already (a file imported again, a trade that closed since): each against what is stored.
          forget(written);
          for (const entry of group) results.push(await settle(entry));
        }
      }
      for (const entry of repeated) results.push(await settle(entry));
      return results.sort((a, b) => a.index - b.index);

      async function settle({ trade, index }: { trade: Trade; index: number }): Promise<TradeResult> {
        try {
          return { id: trade.id, index, outcome: await recordOne(accountId, trade) };
        } catch (error) {
          if (!(error instanceof WriterError)) throw error;
          return { id: trade.id, index, error };
        }
      }
    },

    close() {
      store.client.destroy();
    },
  };
}

function namesOf(stage: string | undefined): Tables {
  if (!stage) throw new Error('createWriter: give a stage or the table names');
  const env = tables.tableEnvironment(stage);
  return { accounts: env.ACCOUNTS_TABLE, balances: env.BALANCES_TABLE, trades: env.TRADES_TABLE, apiKeys: env.API_KEYS_TABLE, ledger: env.LEDGER_TABLE };
}

function pick<T extends object, K extends keyof T>(value: T, keys: readonly K[]): Pick<T, K> {
  return Object.fromEntries(keys.map((key) => [key, value[key]])) as Pick<T, K>;
}

/** The balance and aggregates as a run of createTrades calls last stored them (see createTrades). */
interface Written {
  balance?: BalanceRecord;
  pnl: Map<string, PnlEntry>;
}

function forget(written: Written): void {
  written.balance = undefined;
  written.pnl.clear();
}

function uniquePeriods(closed: readonly Trade[]) {
  const keys = new Map(closed.flatMap((trade) => pnlPeriodsOf(trade.closeTime!)).map((key) => [pnlId(key), key]));
  return [...keys.values()];
}

/**
 * Splits new trades into groups that fit one transaction: two items per trade (the trade and its id), one per P&L
 * period its close touches, and the balance.
 */
function groupsForTransactions<T extends { trade: Trade }>(entries: readonly T[]): T[][] {
  const groups: T[][] = [];
  let group: T[] = [];
  let periods = new Set<string>();
  for (const entry of entries) {
    const added = entry.trade.status === 'closed' ? pnlPeriodsOf(entry.trade.closeTime!).map(pnlId) : [];
    const nextPeriods = new Set([...periods, ...added]);
    if (group.length && 2 * (group.length + 1) + nextPeriods.size + 1 > MAX_TRANSACTION_ITEMS) {
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
