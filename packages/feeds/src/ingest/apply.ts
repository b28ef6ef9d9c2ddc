/**
 * Applies a batch of event lines through the writer, with exactly the outcome each line would have as its own writer
 * call, but in far fewer transactions. Lines of different accounts are independent and go side by side; an account's
 * lines keep their order. Between two account or balance lines, an account's trade lines form a run whose effects on the account commute (counts and exact sums), so within a run:
 *
 * - a trade the run opens, whose id nothing stored has, and whose later lines are marks and at most one close, is
 *   folded into the one trade those lines leave behind, and all such trades are created together (recordTrades);
 * - every other line (a close or marks of a trade opened before, an id seen before, anything unusual) is its own
 *   writer call, in order, so it gets the writer's own answer (TRADE_NOT_FOUND, TRADE_CLOSED, ...).
 *
 * A database that does not answer stops the batch (DatabaseDown): nothing is reported for it, and applying the same
 * batch again has no second effect, since every writer call is idempotent. Lines read again after the ingester
 * stopped mid-batch (`replay`) that the store already shows are `unchanged` and not applied again (replay.ts): applied
 * again, some would be refused only because later lines of the batch were applied too.
 */
import pMap from 'p-map';
import { checkHeartbeat, isRefusal, type Trade, tradeAfterClose, tradeAfterMarks, type Writer, WriterError } from '@trading-bot-api/writer';
import { type Event, LINE_TYPES } from './lines';
import { heartbeatShown, linesShown, type TradeEvent } from './replay';

export interface NumberedEvent {
  line: number;
  event: Event;
  /** Read again after the ingester stopped mid-batch: it may have been applied (source.ts). */
  replay?: boolean;
}

/** What became of a line: the writer's outcome (`opened`, `unchanged`, `recorded`, `stale`, ...) or its refusal. */
export type LineResult = { line: number; outcome: string } | { line: number; error: WriterError };

/** The database did not answer while the batch was applied; apply it again later. */
export class DatabaseDown extends Error {
  constructor() {
    super('the database is unavailable');
    this.name = 'DatabaseDown';
  }
}

/** Accounts whose lines are applied at once. */
const CONCURRENT_ACCOUNTS = 4;

/** Items by key, each group in the items' order (Map.groupBy, which Node 20 lacks). */
function groupBy<T>(items: readonly T[], keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return groups;
}

/** What the writer's outcomes say of a line, for counting: did it change anything. */
export function changedSomething(outcome: string): boolean {
  return outcome !== 'unchanged' && outcome !== 'stale';
}

/** Reads through the writer for the ingester's own decisions; a database that does not answer is DatabaseDown. */
async function reading<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof WriterError && error.code === 'UNAVAILABLE') throw new DatabaseDown();
    throw error;
  }
}

/** Applies lines one by one, in order. */
async function oneByOne(writer: Writer, entries: readonly NumberedEvent[], results: LineResult[]): Promise<void> {
  for (const { line, event } of entries) {
    try {
      results.push({ line, outcome: await reading(() => LINE_TYPES[event.type].apply(writer, event.account, event.fields)) });
    } catch (error) {
      if (!isRefusal(error)) throw error;
      results.push({ line, error });
    }
  }
}

/** The trade the lines of one id leave behind, when they are an open, marks and at most one close; else undefined. */
export function foldTrade(entries: readonly NumberedEvent[]): Trade | undefined {
  const [first, ...rest] = entries.map((entry) => entry.event);
  if (first?.type !== 'open') return undefined;
  let trade: Trade = first.trade;
  for (const event of rest) {
    if (trade.status === 'closed') return undefined;
    if (event.type === 'marks') trade = tradeAfterMarks(trade, event.marks);
    else if (event.type === 'close' && event.close.closeTime >= trade.openTime) trade = tradeAfterClose(trade, event.close);
    else return undefined;
  }
  return trade;
}

const OUTCOME_OF_FOLDED: Record<string, string> = { open: 'opened', marks: 'updated', close: 'closed' };

const isTradeLine = (entry: NumberedEvent): entry is NumberedEvent & { event: TradeEvent } =>
  entry.event.type === 'open' || entry.event.type === 'close' || entry.event.type === 'marks';

/** A run of one account's trade lines (see the module's comment). */
async function applyTradeRun(writer: Writer, account: string, run: readonly NumberedEvent[], results: LineResult[]): Promise<void> {
  const byId = groupBy(run, (entry) => (entry.event as { id: string }).id);
  const folded = new Map<string, Trade>();
  for (const [id, entries] of byId) {
    const trade = foldTrade(entries);
    if (trade) folded.set(id, trade);
  }
  const stored = await reading(() => writer.storedTrades(account, [...folded.keys()]));
  const fresh = [...folded.entries()].filter(([id]) => !stored.has(id));
  const single = new Set(byId.keys());
  if (fresh.length) {
    let created: Awaited<ReturnType<Writer['recordTrades']>>;
    const trades = fresh.map(([, trade]) => trade);
    try {
      created = await reading(() => writer.recordTrades(account, trades));
    } catch (error) {
      // The account itself is refused (it does not exist): every line says so, one by one.
      if (!isRefusal(error)) throw error;
      created = [];
    }
    for (const result of created) {
      if ('error' in result && result.error.code === 'UNAVAILABLE') throw new DatabaseDown();
      if (!('outcome' in result) || result.outcome !== 'created') continue;
      const id = fresh[result.index][0];
      single.delete(id);
      for (const { line, event } of byId.get(id)!) results.push({ line, outcome: OUTCOME_OF_FOLDED[event.type] });
    }
  }
  const rest = run.filter((entry) => single.has((entry.event as { id: string }).id));
  await oneByOne(writer, rest, results);
}

/**
 * One account's lines: runs of trade lines, and the account, balance, gone, retire and restore lines one by one
 * between them (each is idempotent, so a replayed one answers `unchanged` by itself). Heartbeats
 * touch only the bot's report, which no other line touches, so they do not end a run: they are applied in their
 * own order once the run ends at an account line (which may create the account they report on) or at the batch's end.
 */
async function applyAccount(writer: Writer, account: string, entries: readonly NumberedEvent[], results: LineResult[]): Promise<void> {
  let run: NumberedEvent[] = [];
  let heartbeats: NumberedEvent[] = [];
  for (const entry of entries) {
    if (isTradeLine(entry)) run.push(entry);
    else if (entry.event.type === 'heartbeat') heartbeats.push(entry);
    else {
      if (run.length) await applyTradeRun(writer, account, run, results);
      run = [];
      if (entry.event.type === 'account') {
        await oneByOne(writer, heartbeats, results);
        heartbeats = [];
      }
      await oneByOne(writer, [entry], results);
    }
  }
  if (run.length) await applyTradeRun(writer, account, run, results);
  await oneByOne(writer, heartbeats, results);
}

/**
 * One account's replayed lines that the store already shows (replay.ts): a trade's first lines, when the stored trade
 * is what they lead to, and a heartbeat that is the stored report. They are `unchanged`; the other lines are returned,
 * to be applied.
 */
async function settleReplayed(writer: Writer, account: string, entries: readonly NumberedEvent[], results: LineResult[]) {
  const replayed = entries.filter((entry) => entry.replay);
  if (!replayed.length) return entries;
  const byId = groupBy(replayed.filter(isTradeLine), (entry) => entry.event.id);
  const heartbeats = replayed.flatMap((entry) =>
    entry.event.type === 'heartbeat' && entry.event.fields.time !== undefined
      ? [{ entry, heartbeat: checkHeartbeat(entry.event.fields, new Date()) }]
      : [],
  );
  const [trades, report] = await reading(() =>
    Promise.all([writer.storedTrades(account, [...byId.keys()]), heartbeats.length ? writer.botReport(account) : undefined]),
  );
  const settled = new Set<NumberedEvent>();
  for (const [id, lines] of byId) {
    const stored = trades.get(id);
    if (!stored) continue;
    const events = lines.map((line) => line.event);
    for (const entry of lines.slice(0, linesShown(stored, events))) settled.add(entry);
  }
  if (report) for (const { entry, heartbeat } of heartbeats) if (heartbeatShown(report, heartbeat)) settled.add(entry);
  for (const entry of settled) results.push({ line: entry.line, outcome: 'unchanged' });
  return entries.filter((entry) => !settled.has(entry));
}

/** Applies a batch of lines; a result per line, in line order. Throws DatabaseDown when the database stops answering. */
export async function applyEvents(writer: Writer, entries: readonly NumberedEvent[]): Promise<LineResult[]> {
  const byAccount = groupBy(entries, (entry) => entry.event.account);
  const results: LineResult[] = [];
  await pMap(
    byAccount.keys(),
    async (account) => applyAccount(writer, account, await settleReplayed(writer, account, byAccount.get(account)!, results), results),
    { concurrency: CONCURRENT_ACCOUNTS },
  );
  return results.sort((a, b) => a.line - b.line);
}
