import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  type BatchGetCommandInput,
  type BatchGetCommandOutput,
  DeleteCommand,
  type DeleteCommandInput,
  DynamoDBDocumentClient,
  GetCommand,
  paginateQuery,
  paginateScan,
  PutCommand,
  type PutCommandInput,
  type QueryCommandInput,
  TransactWriteCommand,
  type TransactWriteCommandInput,
  UpdateCommand,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import pMap from 'p-map';
import pRetry from 'p-retry';
import type { Tables } from '../tables';
import { DatabaseError, databaseError } from './errors';

/**
 * The DynamoDB side of every table module: a store (one client and the names of the tables it reaches), and the
 * paging, batching and transaction helpers the modules read and write with. A store is built once per process from
 * that process's configuration: the API's from its environment (api/database.ts), a bot's writer from the
 * options it is given (packages/writer), so the same table modules serve both.
 */
export type Item = Record<string, unknown>;

/** `value`'s fields but the null ones: optional values are left out of an item rather than stored as NULL. */
export function withoutNulls(value: object): Item {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== null));
}

export type { Tables } from '../tables';

export interface Store {
  client: DynamoDBDocumentClient;
  tables: Tables;
}

export interface StoreOptions {
  tables: Tables;
  /** The SDK's own resolution (AWS_REGION, the profile's region) when absent. */
  region?: string;
  /** Set only for DynamoDB Local; the SDK's own endpoint in AWS. */
  endpoint?: string;
  connectTimeoutMs: number;
  requestTimeoutMs: number;
  maxAttempts: number;
  credentials?: DynamoDBClientConfig['credentials'];
}

const agentOptions = { keepAlive: true, maxSockets: 50 };

/**
 * The SDK logger of every client the project builds: it says nothing, as the SDK's default (NoOpLogger) does, but it
 * has no `info`. The SDK's logger middleware calls `logger.info` after every call with the input and output copied
 * through their schemas to mask sensitive fields, which the default logger then throws away: a walk of every item
 * read, some 6% of the CPU of a test run's DynamoDB calls (measured with --cpu-prof), and of a fleet answer. Without
 * `info` the middleware skips the copy. Warnings and errors go nowhere, as with the default.
 */
export const QUIET_SDK_LOGGER = { debug() {}, warn() {}, error() {} } as unknown as NonNullable<DynamoDBClientConfig['logger']>;

/**
 * A store with its own client. Per attempt, a refused or unroutable endpoint fails in `connectTimeoutMs` and a hung
 * one in `requestTimeoutMs` (`throwOnRequestTimeout` ends the call instead of only logging a warning); the SDK
 * retries `maxAttempts` times with backoff.
 */
export function createStore(options: StoreOptions): Store {
  const client = DynamoDBDocumentClient.from(
    new DynamoDBClient({
      region: options.region,
      endpoint: options.endpoint,
      credentials: options.credentials,
      maxAttempts: options.maxAttempts,
      logger: QUIET_SDK_LOGGER,
      requestHandler: new NodeHttpHandler({
        connectionTimeout: options.connectTimeoutMs,
        requestTimeout: options.requestTimeoutMs,
        throwOnRequestTimeout: true,
        httpAgent: new HttpAgent(agentOptions),
        httpsAgent: new HttpsAgent(agentOptions),
      }),
    }),
  );
  return { client, tables: options.tables };
}

/** Items a DynamoDB call read, judged from its output: ScannedCount for Query and Scan, one per item found otherwise. */
export function itemsReadBy(output: unknown): number {
  const read = output as { ScannedCount?: number; Count?: number; Item?: unknown; Responses?: Record<string, unknown[]> };
  if (typeof read.ScannedCount === 'number') return read.ScannedCount;
  if (typeof read.Count === 'number') return read.Count;
  if (read.Responses) return Object.values(read.Responses).reduce((sum, items) => sum + items.length, 0);
  return read.Item ? 1 : 0;
}

/**
 * Sends a command to `tables`; a failure of DynamoDB itself (network, timeout, throttling, 5xx) becomes a
 * DatabaseError, a refusal only configuration mends (a missing table, permission or credentials) a
 * DatabaseMisconfigured naming the tables, and anything else (a malformed request: a bug) is rethrown as it is.
 * Errors the caller must tell apart (`passThrough`, such as a cancelled transaction) are rethrown as they are.
 */
async function send<T>(tables: readonly string[], run: () => Promise<T>, passThrough: readonly string[] = []): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof Error && passThrough.includes(error.name)) throw error;
    throw databaseError(error, tables);
  }
}

/** The read parameters that return only `attributes` (every name aliased: any may be a reserved word). */
function projectionOf(attributes: string[] | undefined) {
  return (
    attributes && {
      ProjectionExpression: attributes.map((_, i) => `#p${i}`).join(', '),
      ExpressionAttributeNames: Object.fromEntries(attributes.map((name, i) => [`#p${i}`, name])),
    }
  );
}

/**
 * Reads one item by key; `undefined` when there is none. `consistent` for a writer's read-modify-write; `attributes`
 * to return only those (the read is billed by the whole item all the same, but less is sent and parsed).
 */
export async function getItem(
  store: Store,
  table: string,
  key: Item,
  consistent = false,
  attributes?: string[],
): Promise<Item | undefined> {
  const projection = projectionOf(attributes);
  const output = await send([table], () =>
    store.client.send(new GetCommand({ TableName: table, Key: key, ConsistentRead: consistent, ...projection })),
  );
  return output.Item;
}

/**
 * Reads a whole (small) table, following `LastEvaluatedKey` to the end: a scan page stops at 1 MB, and a list
 * that silently stopped there would be wrong. `consistent`: every write acknowledged before the scan is in it.
 */
export async function scanAll(store: Store, table: string, consistent = false): Promise<Item[]> {
  const items: Item[] = [];
  await send([table], async () => {
    for await (const page of paginateScan({ client: store.client }, { TableName: table, ConsistentRead: consistent }))
      items.push(...(page.Items ?? []));
  });
  return items;
}

/**
 * Runs a Query until it has `wanted` items or the key range is exhausted (without `wanted`, the whole range).
 * DynamoDB may end a page early (1 MB of data) with a `LastEvaluatedKey`; following it keeps pages full instead of
 * silently short. `pageSize` bounds each page of a whole range, so each request's work (and so its time against the
 * per-attempt timeout) stays bounded however long the range.
 */
export async function queryItems(
  store: Store,
  input: Omit<QueryCommandInput, 'Limit' | 'ExclusiveStartKey'>,
  wanted = Number.POSITIVE_INFINITY,
  pageSize?: number,
): Promise<Item[]> {
  const items: Item[] = [];
  const limit = Number.isFinite(wanted) ? wanted : pageSize;
  const request: QueryCommandInput = { ...input, ...(limit !== undefined ? { Limit: limit } : {}) };
  await send([input.TableName ?? '?'], async () => {
    for await (const page of paginateQuery({ client: store.client }, request)) {
      items.push(...(page.Items ?? []));
      if (items.length >= wanted) break;
      // The paginator reads Limit from this same input before each page: ask only for what is still wanted.
      if (Number.isFinite(wanted)) request.Limit = wanted - items.length;
    }
  });
  return items;
}

/** Writes one item; false when its ConditionExpression failed (nothing was written). */
export async function putItem(store: Store, input: PutCommandInput): Promise<boolean> {
  return conditional(input.TableName, () => store.client.send(new PutCommand(input)));
}

/** Updates one item; false when its ConditionExpression failed (nothing was written). */
export async function updateItem(store: Store, input: UpdateCommandInput): Promise<boolean> {
  return conditional(input.TableName, () => store.client.send(new UpdateCommand(input)));
}

/** Deletes one item; false when its ConditionExpression failed (nothing was deleted). */
export async function deleteItem(store: Store, input: DeleteCommandInput): Promise<boolean> {
  return conditional(input.TableName, () => store.client.send(new DeleteCommand(input)));
}

async function conditional(table: string | undefined, run: () => Promise<unknown>): Promise<boolean> {
  try {
    await send([table ?? '?'], run, ['ConditionalCheckFailedException']);
    return true;
  } catch (error) {
    if (error instanceof Error && error.name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
}

const BATCH_GET_MAX_KEYS = 100;
const UNPROCESSED_RETRIES = 4;

/**
 * Reads many items by key from one or more tables, in requests of a hundred keys, `concurrency` at a time. Keys
 * DynamoDB leaves unprocessed (throttling, 16 MB) are asked for again a bounded number of times; if some still remain
 * the call fails (DatabaseError `throttled`) rather than returning a list with holes. `attributes`: only those, of
 * every item (billed the same, but less sent and parsed).
 */
export async function batchGetItems(
  store: Store,
  requests: Record<string, Item[]>,
  consistent = false,
  attributes?: string[],
  concurrency = 1,
): Promise<Record<string, Item[]>> {
  const projection = projectionOf(attributes);
  const results: Record<string, Item[]> = Object.fromEntries(Object.keys(requests).map((table) => [table, []]));
  const pending = Object.entries(requests).flatMap(([table, keys]) => keys.map((key) => ({ table, key })));
  const starts = Array.from({ length: Math.ceil(pending.length / BATCH_GET_MAX_KEYS) }, (_, i) => i * BATCH_GET_MAX_KEYS);
  await pMap(
    starts,
    async (start) => {
      let batch: BatchGetCommandInput['RequestItems'] = {};
      for (const { table, key } of pending.slice(start, start + BATCH_GET_MAX_KEYS)) {
        batch[table] ??= { Keys: [], ConsistentRead: consistent, ...projection };
        batch[table].Keys!.push(key);
      }
      const unprocessed = new DatabaseError('throttled', 'UnprocessedKeys');
      await pRetry(
        async () => {
          const requestItems = batch ?? {};
          const output: BatchGetCommandOutput = await send(Object.keys(requestItems), () =>
            store.client.send(new BatchGetCommand({ RequestItems: requestItems })),
          );
          for (const [table, items] of Object.entries(output.Responses ?? {})) results[table].push(...items);
          batch = output.UnprocessedKeys as BatchGetCommandInput['RequestItems'];
          if (batch && Object.keys(batch).length > 0) throw unprocessed;
        },
        { retries: UNPROCESSED_RETRIES, minTimeout: 50, shouldRetry: ({ error }) => error === unprocessed },
      );
    },
    { concurrency },
  );
  return results;
}

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** The tables a transaction writes, each once, for a misconfiguration's message. */
function tablesOf(items: readonly TransactItem[]): string[] {
  const names = items.map((item) => (item.Put ?? item.Update ?? item.Delete ?? item.ConditionCheck)?.TableName ?? '?');
  return [...new Set(names)];
}

/**
 * Optimistic concurrency on a versioned item: a Put that creates it (`read` undefined; refused when it exists) or
 * replaces exactly the version that was read (refused when another writer changed it meanwhile).
 */
export function versionedPut(table: string, item: Item, read: { version: number } | undefined): TransactItem {
  return {
    Put: {
      TableName: table,
      Item: item,
      ...(read === undefined
        ? { ConditionExpression: 'attribute_not_exists(accountId)' }
        : { ConditionExpression: 'version = :version', ExpressionAttributeValues: { ':version': read.version } }),
    },
  };
}

/** Why each item of a cancelled transaction failed (`None` for the ones that did not), in the items' order. */
export class TransactionCancelled extends Error {
  constructor(readonly reasons: string[]) {
    super(`transaction cancelled: ${reasons.join(', ')}`);
    this.name = 'TransactionCancelled';
  }

  /** True when the item at `index` failed its condition. */
  conditionFailed(index: number): boolean {
    return this.reasons[index] === 'ConditionalCheckFailed';
  }

  /** True when only concurrent writers got in the way: worth reading again and retrying. */
  get conflict(): boolean {
    return this.reasons.some((reason) => reason === 'TransactionConflict');
  }
}

/** Items in one transaction (DynamoDB's limit). */
export const MAX_TRANSACTION_ITEMS = 100;

/**
 * Writes `items` as one transaction: all of them or none. A cancellation is reported with its reasons per item
 * (TransactionCancelled); the SDK retries the whole transaction with the same idempotency token, so a retry of a
 * transaction that did apply is not applied twice.
 */
export async function transactWrite(store: Store, items: TransactItem[]): Promise<void> {
  try {
    await send(tablesOf(items), () => store.client.send(new TransactWriteCommand({ TransactItems: items })), [
      'TransactionCanceledException',
      'TransactionConflictException',
    ]);
  } catch (error) {
    const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons;
    if (error instanceof Error && error.name === 'TransactionCanceledException') {
      throw new TransactionCancelled(reasons ? reasons.map((reason) => reason.Code ?? 'None') : items.map(() => 'Unknown'));
    }
    if (error instanceof Error && error.name === 'TransactionConflictException')
      throw new TransactionCancelled(items.map(() => 'TransactionConflict'));
    throw error;
  }
}
