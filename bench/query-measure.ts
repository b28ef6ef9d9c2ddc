/**
 * What the bench measures of each query, against one stage's tables in DynamoDB Local (endpoint and tables come in the
 * environment, which api/config reads at module load — hence a process per dataset: bench/query-worker.ts; the read
 * budgets' integration test imports it in its own process, test/integration/read-budgets.test.ts).
 *
 * For each query it times the real handler, invoked in-process with an API Gateway event built from events/*.json,
 * and the floor: the same DynamoDB reads made with a plain DocumentClient, with nothing around them. Handler and
 * floor calls alternate, so drift (GC, the other process on the machine) falls on both alike. The read meter on both
 * clients gives items read and consumed capacity per request.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { handler as accountBalance } from '../functions/account-balance';
import { handler as accountStatus } from '../functions/account-status';
import { handler as accountTrades } from '../functions/account-trades';
import { handler as accounts } from '../functions/accounts';
import { handler as allBalance } from '../functions/all-balance';
import { handler as allComparison } from '../functions/all-comparison';
import { handler as allTrades } from '../functions/all-trades';
import { handler as health } from '../functions/health';
import { handler as allStatus } from '../functions/all-status';
import { handler as metrics } from '../functions/metrics';
import { handler as accountPerformance } from '../functions/account-performance';
import { handler as allPerformance } from '../functions/all-performance';
import { handler as allPnl } from '../functions/all-pnl';
import { handler as accountPnl } from '../functions/account-pnl';
import { handler as accountEquity } from '../functions/account-equity';
import { handler as accountReconciliation } from '../functions/account-reconciliation';
import { parseTimeParameter } from '../api/http/params';
import { seriesWindow } from '../api/operations/window';
import { timestamp } from '@trading-bot-api/core/time';
import { accountKey } from '@trading-bot-api/core/store/accounts-table';
import { config } from '../api/config';
import { HEALTH_CHECKS } from '../api/operations/health';
import { store } from '../api/database';
import { type Item, queryItems, scanAll, type Store } from '@trading-bot-api/core/store/dynamodb';
import { keyBefore, orderKey, tradeListing } from '@trading-bot-api/core/store/trades-table';
import {
  accountPeriods,
  entryKeyOf,
  isEntryOf,
  type LedgerUnits,
  type PeriodPartition,
  readKeyRange,
  readPeriodItems,
} from '@trading-bot-api/core/store/ledger-table';
import { fleetPeriods, pnlSum } from '@trading-bot-api/core/store/fleet-table';
import { windowPeriods } from '@trading-bot-api/core/rollups';
import type { Trade } from '@trading-bot-api/core/types';
import { eventFor } from '../test/kit/api-harness';
import type { QueryPass, RepetitionSettings } from './measurement';
import { type Operation, type QuerySpec, queryParameters } from './queries';
import { ReadMeter } from './read-meter';
import { clamp, round } from './stats';

type Handler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

const HANDLERS: Record<Operation, Handler> = {
  health,
  accounts,
  'all-balance': allBalance,
  'all-trades': allTrades,
  'account-balance': accountBalance,
  'account-trades': accountTrades,
  'account-status': accountStatus,
  'all-status': allStatus,
  'all-comparison': allComparison,
  'all-pnl': allPnl,
  'account-pnl': accountPnl,
  'account-equity': accountEquity,
  'all-performance': allPerformance,
  'account-performance': accountPerformance,
  'account-reconciliation': accountReconciliation,
  metrics,
};

const meter = new ReadMeter();
meter.attach(store.client);
/**
 * The floor's client: SDK defaults (keep-alive agent, 50 sockets — the same as the store's client). No code of the
 * API or the store runs on its requests; they only supply the table names and the key values to ask for.
 */
const raw = DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint: config.dynamodbEndpoint, region: config.region }));
meter.attach(raw);

const context = {
  awsRequestId: 'bench-request',
  functionName: 'bench',
  getRemainingTimeInMillis: () => 10_000,
} as unknown as Context;

/** A query made concrete for this dataset: the event for the handler and the reads of the floor. */
interface Prepared {
  spec: QuerySpec;
  request: string;
  event: APIGatewayProxyEvent;
  /** Position (order key) the deep page continues after; the floor uses it in the same key condition. */
  after?: string;
  deepPage?: { page: number; skipped: number };
}

const prepared = new Map<string, Prepared>();

function eventOf(spec: QuerySpec, cursor?: string): APIGatewayProxyEvent {
  const query = { ...queryParameters(spec), ...(cursor ? { cursor } : {}) };
  return eventFor(spec.operation, { ...(spec.account ? { account: spec.account } : {}), query });
}

function invoke(operation: Operation, event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  return HANDLERS[operation](event, context);
}

/** Calls the handler and insists on a 200: every bench query is built to succeed, anything else is a bench error. */
async function call(operation: Operation, event: APIGatewayProxyEvent): Promise<{ body: any; bytes: number }> {
  const result = await invoke(operation, event);
  if (result.statusCode !== 200) throw new Error(`${event.path} answered ${result.statusCode}: ${result.body}`);
  // The scrape (1.4) answers Prometheus text: its body stays text.
  const json = String(result.headers?.['Content-Type'] ?? '').includes('json');
  return { body: json ? JSON.parse(result.body) : result.body, bytes: Buffer.byteLength(result.body) };
}

/**
 * Follows nextCursor with the handler and picks the page to measure: the deepest page (≤ deepPages) that is full and
 * has a successor, so it reads limit + 1 items like any page in the middle of a long history; failing that the
 * deepest full page; failing that the first page.
 */
async function prepareDeep(spec: QuerySpec): Promise<Prepared> {
  const limit = spec.limit!;
  type Page = { cursor?: string; after?: string; count: number; hasNext: boolean; skipped: number };
  const pages: Page[] = [];
  let cursor: string | undefined;
  let after: string | undefined;
  let skipped = 0;
  for (let page = 0; page <= spec.deepPages!; page++) {
    const { body } = await call(spec.operation, eventOf(spec, cursor));
    pages.push({ cursor, after, count: body.count, hasNext: body.nextCursor !== null, skipped });
    if (!body.nextCursor) break;
    skipped += body.count;
    cursor = body.nextCursor;
    after = orderKey(body.trades[body.trades.length - 1] as Trade);
  }
  const full = pages.map((page, index) => ({ page, index })).filter(({ page }) => page.count === limit);
  const chosen = [...full].reverse().find(({ page }) => page.hasNext) ?? full[full.length - 1] ?? { page: pages[0], index: 0 };
  const first = spec.id.replace(/&cursor=.*$/, '');
  const request = chosen.index
    ? `${first}&cursor=<page ${chosen.index + 1}, ${chosen.page.skipped.toLocaleString('en-US')} trades in>`
    : `${first} (deep page: too few trades to go past page 1)`;
  return {
    spec,
    request,
    event: eventOf(spec, chosen.page.cursor),
    after: chosen.page.after,
    deepPage: { page: chosen.index + 1, skipped: chosen.page.skipped },
  };
}

export async function prepare(specs: QuerySpec[]): Promise<Record<string, { request: string; deepPage?: Prepared['deepPage'] }>> {
  const described: Record<string, { request: string; deepPage?: Prepared['deepPage'] }> = {};
  for (const spec of specs) {
    const entry: Prepared = spec.deepPages ? await prepareDeep(spec) : { spec, request: spec.id, event: eventOf(spec) };
    prepared.set(spec.id, entry);
    described[spec.id] = { request: entry.request, deepPage: entry.deepPage };
  }
  // One pass over every query before any is timed: every code path is compiled and every socket open, so the first
  // queries measured do not carry the process's warm-up. It also fails fast on a query that does not answer 200.
  for (const entry of prepared.values()) {
    await call(entry.spec.operation, entry.event);
    await floor(entry);
  }
  return described;
}

/** The raw client as a store, for the table modules' own paging helpers (they add nothing but the paging). */
const rawStore: Store = { client: raw, tables: config.tables };

function scan(table: string): Promise<Item[]> {
  return scanAll(rawStore, table);
}

/** A series' window of whole `unit`s, from a spec's `from` and `to`. */
function windowOf(unit: 'hour' | 'day' | 'week' | 'month', spec: QuerySpec) {
  return seriesWindow(unit, { from: parseTimeParameter(spec.from!), to: parseTimeParameter(spec.to!) }, new Date(), 1, 1000);
}

/** The ledger entries of one kind and account whose start lies in a series' window (one key range). */
function ledgerRange<K extends 'pnl' | 'equity'>(accountId: string, kind: K, unit: LedgerUnits[K], spec: QuerySpec): Promise<Item[]> {
  const { starts } = windowOf(unit, spec);
  const [first, last] = [starts[0], starts[starts.length - 1]].map((start) => entryKeyOf(kind, unit, timestamp(start)));
  return readKeyRange(rawStore, accountId, first, last, starts.length);
}

/**
 * The performance roll-ups of a window of whole days in `where` (an account's or a currency's): its months, blocks and
 * edge days, every instrument's (with `instrument` too: the others are in the same items, as the handler reads them).
 */
function periodsRange(where: PeriodPartition, spec: QuerySpec): Promise<Item[]> {
  const { starts } = windowOf('day', spec);
  return readPeriodItems(rawStore, where, windowPeriods(starts[0], starts[starts.length - 1]));
}

/** The accounts of every currency (one item each, in the fleet table): what a fleet figure reads first. */
function currencies(): Promise<Item[]> {
  return queryItems(rawStore, {
    TableName: config.tables.fleet,
    KeyConditionExpression: 'part = :part',
    ExpressionAttributeValues: { ':part': 'members' },
  });
}

/** The version of a fleet answer: what its tag is made of, for a key that sees every account. */
async function version(aspect: 'profile' | 'status' | 'balance'): Promise<Item[]> {
  const read = await raw.send(new GetCommand({ TableName: config.tables.fleet, Key: { part: 'version', key: aspect } }));
  return read.Item ? [read.Item] : [];
}

/** Several answers' versions in one BatchGetItem, as the comparison reads its three. */
async function versions(aspects: ('profile' | 'status' | 'balance')[]): Promise<Item[]> {
  const keys = aspects.map((aspect) => ({ part: 'version', key: aspect }));
  const read = await raw.send(new BatchGetCommand({ RequestItems: { [config.tables.fleet]: { Keys: keys } } }));
  return read.Responses?.[config.tables.fleet] ?? [];
}

/** The accounts of a currency's members item. */
const idsOf = (members: Item): string[] => [...((members.accounts as Set<string>) ?? [])];

/** The sort key of an account's ledger item or of a fleet item. */
const sortKeyOf = (item: Item): string => String(item.entryKey ?? item.key ?? '');

/**
 * An account's balance at a performance window's start (what the drawdown ratio is measured against): its last daily
 * equity point before the window, or its first in it; one item at most, read with a plain Query each.
 */
async function startBalance(accountId: string, spec: QuerySpec): Promise<Item[]> {
  const { starts } = windowOf('day', spec);
  const [first, last] = [starts[0], starts[starts.length - 1]].map((start) => entryKeyOf('equity', 'day', timestamp(start)));
  const before = await readKeyRange(rawStore, accountId, entryKeyOf('equity', 'day', ''), keyBefore(first), 1, undefined, false);
  return before.length ? before : readKeyRange(rawStore, accountId, first, last, 1);
}

/** The key condition of a listing's page: partition, window and position, as one range. */
function pageCondition(spec: QuerySpec, after: string | undefined): { condition: string; values: Record<string, string> } {
  const from = spec.from && timestamp(Math.ceil(parseTimeParameter(spec.from)));
  const upper = [after, spec.to && timestamp(Math.ceil(parseTimeParameter(spec.to)))].filter((bound): bound is string => !!bound).sort()[0];
  if (from && upper)
    return { condition: '#pk = :pk AND #order BETWEEN :from AND :upper', values: { ':from': from, ':upper': keyBefore(upper) } };
  if (upper) return { condition: '#pk = :pk AND #order < :upper', values: { ':upper': upper } };
  if (from) return { condition: '#pk = :pk AND #order >= :from', values: { ':from': from } };
  return { condition: '#pk = :pk', values: {} };
}

/** The floor for a query: the DynamoDB calls that fetch the same items, made directly. Returns what they fetched. */
async function floor({ spec, after }: Prepared): Promise<Item[]> {
  const { accounts: accountsTable, balances, trades } = config.tables;
  switch (spec.operation) {
    // The scrape shows what the status's items hold, and each account's P&L of today, which an instance reads once per
    // version of the account's balances item (the writer moves both in one transaction): a warm instance, as measured
    // here, with the same versions as its last scrape reads no P&L item, and so neither does its floor.
    case 'all-status':
      return (await Promise.all([version('status'), scan(accountsTable), scan(balances)])).flat();
    case 'metrics':
      return (await Promise.all([scan(accountsTable), scan(balances)])).flat();
    // The comparison (1.8) reads the fleet's three versions (one BatchGetItem), then the status's items; each
    // account's window (its roll-ups, its start's equity, its transfers) an instance reads again only when the
    // account's trades or balance moved or the day changed: a warm one, as measured here, with nothing changed since,
    // reads none, nor does its floor.
    case 'all-comparison':
      return (await Promise.all([versions(['profile', 'status', 'balance']), scan(accountsTable), scan(balances)])).flat();
    case 'account-pnl':
    case 'account-equity': {
      const [account, entries] = await Promise.all([
        raw.send(new GetCommand({ TableName: accountsTable, Key: accountKey(spec.account!) })),
        spec.operation === 'account-pnl'
          ? ledgerRange(spec.account!, 'pnl', spec.period!, spec)
          : ledgerRange(spec.account!, 'equity', spec.interval!, spec),
      ]);
      return [account.Item!, ...entries];
    }
    case 'account-performance': {
      const [account, entries, start] = await Promise.all([
        raw.send(new GetCommand({ TableName: accountsTable, Key: accountKey(spec.account!) })),
        periodsRange(accountPeriods(rawStore, spec.account!), spec),
        startBalance(spec.account!, spec),
      ]);
      return [account.Item!, ...entries, ...start];
    }
    // The bench's stages have the fleet summary (bench.ts rebuilds it as `npm run backfill` does): a currency's figures
    // are its sums, one partition each, and its accounts are listed in one item.
    case 'all-performance': {
      const members = await currencies();
      const entries = await Promise.all([
        ...members.map((item) => periodsRange(fleetPeriods(rawStore, String(item.key)), spec)),
        ...members.flatMap(idsOf).map((id) => startBalance(id, spec)),
      ]);
      return [...members, ...entries.flat()];
    }
    case 'all-pnl': {
      const members = await currencies();
      const { starts } = windowOf(spec.period!, spec);
      const [first, last] = [starts[0], starts[starts.length - 1]].map((start) => pnlSum(spec.period!, timestamp(start)).key);
      const entries = await queryItems(rawStore, {
        TableName: config.tables.fleet,
        KeyConditionExpression: 'part = :part AND #key BETWEEN :first AND :last',
        ExpressionAttributeNames: { '#key': 'key' },
        ExpressionAttributeValues: { ':part': first.part, ':first': first.key, ':last': last.key },
      });
      return [...members, ...entries];
    }
    case 'health':
      return Object.values(
        (
          await raw.send(
            new BatchGetCommand({
              RequestItems: Object.fromEntries(HEALTH_CHECKS.map(({ name, key }) => [config.tables[name], { Keys: [key] }])),
            }),
          )
        ).Responses ?? {},
      ).flat();
    case 'accounts':
    case 'all-balance':
      return [
        ...(await version(spec.operation === 'accounts' ? 'profile' : 'balance')),
        ...(await scan(spec.operation === 'accounts' ? accountsTable : balances)),
      ];
    case 'account-reconciliation':
      return [
        (await raw.send(new GetCommand({ TableName: config.tables.ledger, Key: { accountId: spec.account!, entryKey: 'reconciliation' } })))
          .Item,
      ].filter((item): item is Item => !!item);
    case 'account-balance':
      return [(await raw.send(new GetCommand({ TableName: balances, Key: accountKey(spec.account!) }))).Item].filter(
        (item): item is Item => !!item,
      );
    case 'account-status': {
      const key = accountKey(spec.account!);
      const output = await raw.send(
        new BatchGetCommand({ RequestItems: { [accountsTable]: { Keys: [key] }, [balances]: { Keys: [key] } } }),
      );
      return Object.values(output.Responses ?? {}).flat();
    }
    case 'account-trades':
    case 'all-trades': {
      // The same key condition, index and Limit (page + 1) as core's trades-table, written out as a plain Query.
      const listing = tradeListing(spec.operation === 'all-trades' ? undefined : spec.account, {
        status: spec.status,
        instrument: spec.instrument,
      });
      const wanted = (spec.limit ?? 50) + 1;
      const { condition, values } = pageCondition(spec, after);
      return queryItems(
        rawStore,
        {
          TableName: trades,
          IndexName: listing.indexName,
          KeyConditionExpression: condition,
          ExpressionAttributeNames: { '#pk': listing.partitionKey, ...(condition.includes('#order') ? { '#order': 'orderKey' } : {}) },
          ExpressionAttributeValues: { ':pk': listing.partitionValue, ...values },
          ScanIndexForward: false,
        },
        wanted,
      );
    }
  }
}

/**
 * What the handler returned, counted as the read budget counts it: a page's trades, a list's entries, one item; a
 * series' points (per account for all accounts: a zero-filled point is returned without an item behind it).
 */
function returnedIds(operation: Operation, body: any, fetched: Item[]): string[] {
  switch (operation) {
    case 'account-performance':
    case 'all-performance':
      // The body sums its periods: what it is built from is the roll-ups (per account or currency, and period) of
      // the window, which the floor read on its own (every instrument's, as `instrument` only skips the others).
      return fetched
        .filter((item) => sortKeyOf(item).startsWith('perf#'))
        .map((item) => `${item.accountId ?? item.part}#${sortKeyOf(item)}`);
    case 'health':
      return [];
    case 'metrics':
      return [...new Set([...String(body).matchAll(/^tba_bot_stale\{account="([^"]+)"/gm)].map((match) => match[1]))];
    case 'accounts':
      return body.accounts.map((account: { id: string }) => account.id);
    case 'all-balance':
    case 'all-status':
    case 'all-comparison':
      return body.accounts.map((entry: { accountId: string }) => entry.accountId);
    case 'account-balance':
    case 'account-status':
    case 'account-reconciliation':
      return [body.accountId];
    case 'account-pnl':
      return body.points.map((point: { start: string }) => point.start);
    case 'all-pnl': {
      const accounts = body.series.reduce((n: number, series: { accountCount: number }) => n + series.accountCount, 0);
      const starts = body.series[0]?.points.map((point: { start: string }) => point.start) ?? [];
      return Array.from({ length: accounts }, () => starts).flat();
    }
    case 'account-equity':
      return body.points.map((point: { time: string }) => point.time);
    default:
      return body.trades.map((trade: { id: string }) => trade.id);
  }
}

/**
 * The most items a request may read (the issue's cost rules): a page or a single item, what it returns plus one;
 * the fleet status, two per account, and the answer's version; a series, one per point and account plus the account itself.
 * The fleet's reads of whole tables read the retired accounts' items too (`retired`: the datasets' mirror), which
 * they leave out of the answer.
 */
function readBudget(operation: Operation, body: any, returned: number, retired: number): number {
  // The fleet answers read their version first (one item; a 304 reads nothing else).
  if (operation === 'all-status') return 2 * returned + 1 + retired;
  // The comparison: its three versions, the status's two items per account, and for each account whose window this
  // instance does not hold (a cold instance: every one) at most 12 roll-ups of 30 days and its start's equity (one
  // item, or two reads); transfers beside them (none in the bench's data).
  if (operation === 'all-comparison') return 3 + 16 * returned + retired;
  // The scrape: the status's two items per account, and the P&L of today of each account whose balance moved since
  // this instance last read it (a cold one: every account). No version.
  if (operation === 'metrics') return 3 * returned + retired;
  if (operation === 'accounts' || operation === 'all-balance') return returned + 1 + retired;
  // The currencies' account lists (the sums hold at most as many items as the accounts' they add up).
  const lists = operation === 'all-pnl' ? body.series.length : operation === 'all-performance' ? body.currencies.length : 0;
  if (operation === 'all-pnl') {
    const accounts = body.series.reduce((n: number, series: { accountCount: number }) => n + series.accountCount, 0);
    return returned + Math.max(accounts, lists);
  }
  // And each account's balance at the window's start (one item, or two reads), for the drawdown ratio.
  if (operation === 'all-performance') return returned + 2 * body.accounts.length + lists;
  if (operation === 'account-performance') return returned + 2;
  return returned + 1;
}

/** An item of a retired account (its accounts and balances items say so). */
const isRetired = (item: Item): boolean => item.retiredAt !== undefined;

function sameItems(operation: Operation, body: any, returned: string[], fetched: Item[], instrument: string | undefined): boolean {
  if (operation === 'account-trades' || operation === 'all-trades') {
    const ids = fetched.map((item) => item.id);
    return returned.length >= ids.length - 1 && returned.every((id, i) => ids[i] === id);
  }
  if (operation === 'account-pnl' || operation === 'all-pnl') {
    // The same trades behind the points as behind the ledger entries the floor read.
    const points: { tradesClosed: number }[] =
      operation === 'account-pnl' ? body.points : body.series.flatMap((series: { points: unknown[] }) => series.points);
    // An account's aggregate, or the fleet's of every currency.
    const closedIn = (item: Item) =>
      item.currencies
        ? Object.values(item.currencies as Record<string, { tradesClosed: number }>).reduce((n, each) => n + Number(each.tradesClosed), 0)
        : Number(item.tradesClosed);
    const closed = fetched.filter((item) => sortKeyOf(item).startsWith('pnl#')).reduce((n, item) => n + closedIn(item), 0);
    return points.reduce((n, point) => n + point.tradesClosed, 0) === closed;
  }
  if (operation === 'account-performance' || operation === 'all-performance') {
    // The same trades behind the summaries as behind the statistics the floor read.
    const closed = fetched
      .filter((item) => sortKeyOf(item).startsWith('perf#'))
      .flatMap((item) => Object.entries(item.instruments as Record<string, { closedTrades: number }>))
      .filter(([name]) => instrument === undefined || name === instrument)
      .reduce((n, [, figures]) => n + Number(figures.closedTrades), 0);
    return body.currencies.reduce((n: number, currency: { closedTrades: number }) => n + currency.closedTrades, 0) === closed;
  }
  if (operation === 'account-equity') {
    const times = fetched.filter((item) => isEntryOf(item, 'equity')).map((item) => String(item.time));
    return returned.length === times.length && returned.every((time, i) => times[i] === time);
  }
  // The accounts' items in the fleet (not the fleet's version the floor read first, nor a retired account's).
  const ids = new Set(fetched.filter((item) => item.accountId !== undefined && !isRetired(item)).map((item) => String(item.accountId)));
  return returned.length === ids.size && returned.every((id) => ids.has(id));
}

/**
 * One pass over a query: `fixedReps` timed calls of each kind, or, on the first pass of the full dataset, as many
 * as the time budget allows (spread over `settings.passes` passes).
 */
export async function measure(id: string, fixedReps: number | undefined, settings: RepetitionSettings): Promise<QueryPass> {
  const query = prepared.get(id);
  if (!query) throw new Error(`query not prepared: ${id}`);
  const { spec, event } = query;

  // One metered call of each first: counts (they do not vary between calls) and the same-items check.
  meter.reset();
  const { body, bytes } = await call(spec.operation, event);
  const handlerTally = meter.take();
  const fetched = await floor(query);
  const rawTally = meter.take();
  const returned = returnedIds(spec.operation, body, fetched);

  let pairMs = 0;
  for (let i = 0; i < settings.warmup; i++) {
    const started = performance.now();
    await invoke(spec.operation, event);
    await floor(query);
    pairMs += performance.now() - started;
  }
  const pairMean = Math.max(pairMs / Math.max(settings.warmup, 1), 0.01);
  const reps = fixedReps ?? Math.ceil(clamp(settings.budgetMs / pairMean, settings.min, settings.max) / settings.passes);

  // Collect garbage from the previous query now rather than inside this one's samples.
  (globalThis as { gc?: () => void }).gc?.();
  const handlerSamples: number[] = [];
  const rawSamples: number[] = [];
  for (let i = 0; i < reps; i++) {
    // Alternate which goes first, so neither always runs right after the other's garbage.
    for (const which of i % 2 ? (['raw', 'handler'] as const) : (['handler', 'raw'] as const)) {
      const started = performance.now();
      if (which === 'handler') await invoke(spec.operation, event);
      else await floor(query);
      (which === 'handler' ? handlerSamples : rawSamples).push(performance.now() - started);
    }
  }
  meter.reset();

  return {
    id,
    operation: spec.operation,
    request: query.request,
    reps,
    handlerMs: handlerSamples,
    rawMs: rawSamples,
    itemsRead: handlerTally.itemsRead,
    itemsReturned: returned.length,
    readBudget: readBudget(spec.operation, body, returned.length, fetched.filter(isRetired).length),
    consumedRcu: round(handlerTally.consumedRcu, 1),
    dynamoCalls: handlerTally.calls,
    rawItemsRead: rawTally.itemsRead,
    rawCalls: rawTally.calls,
    sameItems: sameItems(spec.operation, body, returned, fetched, spec.instrument),
    responseBytes: bytes,
    ...(spec.operation === 'all-performance' ? { currencies: body.currencies.length } : {}),
    ...(spec.operation === 'all-pnl' ? { currencies: body.series.length } : {}),
    ...(query.deepPage ? { deepPage: query.deepPage } : {}),
  };
}

/** Releases the two clients' connections (the process can then end). */
export function closeClients(): void {
  store.client.destroy();
  raw.destroy();
}
