import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  type BatchGetCommandInput,
  type BatchGetCommandOutput,
  DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  type QueryCommandInput,
  ScanCommand,
} from '@aws-sdk/lib-dynamodb';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { config } from '../config';
import { serviceUnavailable } from '../errors';

export type Item = Record<string, unknown>;

const agentOptions = { keepAlive: true, maxSockets: 50 };

/**
 * The one DynamoDB client of the process, built at module load so warm invocations reuse its connections.
 * `throwOnRequestTimeout` makes `requestTimeout` end a hung call instead of only logging a warning.
 */
export const dynamodb = DynamoDBDocumentClient.from(
  new DynamoDBClient({
    region: config.region,
    endpoint: config.dynamodbEndpoint,
    maxAttempts: config.dynamodb.maxAttempts,
    requestHandler: new NodeHttpHandler({
      connectionTimeout: config.dynamodb.connectTimeoutMs,
      requestTimeout: config.dynamodb.requestTimeoutMs,
      throwOnRequestTimeout: true,
      httpAgent: new HttpAgent(agentOptions),
      httpsAgent: new HttpsAgent(agentOptions),
    }),
  }),
);

// Errors that mean our request was wrong: a bug to fix, reported as a 500, not as an outage.
const CALLER_ERRORS = new Set(['ValidationException', 'SerializationException']);

/** Sends a command; a failure of DynamoDB itself (network, timeout, throttling, 5xx) becomes a 503. */
async function send<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof Error && CALLER_ERRORS.has(error.name)) throw error;
    throw serviceUnavailable();
  }
}

/** Reads one item by key; `undefined` when there is none. */
export async function getItem(table: string, key: Item): Promise<Item | undefined> {
  const output = await send(() => dynamodb.send(new GetCommand({ TableName: table, Key: key })));
  return output.Item;
}

/**
 * Reads a whole (small) table, following `LastEvaluatedKey` to the end: a scan page stops at 1 MB, and a list
 * that silently stopped there would be wrong.
 */
export async function scanAll(table: string): Promise<Item[]> {
  const items: Item[] = [];
  let startKey: Item | undefined;
  do {
    const output = await send(() => dynamodb.send(new ScanCommand({ TableName: table, ExclusiveStartKey: startKey })));
    items.push(...(output.Items ?? []));
    startKey = output.LastEvaluatedKey;
  } while (startKey);
  return items;
}

/**
 * Runs a Query until it has `wanted` items or the key range is exhausted. DynamoDB may end a page early (1 MB of
 * data) with a `LastEvaluatedKey`; following it keeps pages full instead of silently short.
 */
export async function queryItems(input: Omit<QueryCommandInput, 'Limit' | 'ExclusiveStartKey'>, wanted: number): Promise<Item[]> {
  const items: Item[] = [];
  let startKey: Item | undefined;
  do {
    const output = await send(() =>
      dynamodb.send(new QueryCommand({ ...input, Limit: wanted - items.length, ExclusiveStartKey: startKey })),
    );
    items.push(...(output.Items ?? []));
    startKey = output.LastEvaluatedKey;
  } while (startKey && items.length < wanted);
  return items;
}

const BATCH_GET_MAX_KEYS = 100;
const UNPROCESSED_RETRIES = 4;

/**
 * Reads many items by key from one or more tables. Keys DynamoDB leaves unprocessed (throttling, 16 MB) are asked
 * for again a bounded number of times; if some still remain the request fails with a 503 rather than returning
 * a list with holes.
 */
export async function batchGetItems(requests: Record<string, Item[]>): Promise<Record<string, Item[]>> {
  const results: Record<string, Item[]> = Object.fromEntries(Object.keys(requests).map((table) => [table, []]));
  const pending = Object.entries(requests).flatMap(([table, keys]) => keys.map((key) => ({ table, key })));
  for (let start = 0; start < pending.length; start += BATCH_GET_MAX_KEYS) {
    let batch: BatchGetCommandInput['RequestItems'] = {};
    for (const { table, key } of pending.slice(start, start + BATCH_GET_MAX_KEYS)) {
      (batch[table] ??= { Keys: [] }).Keys!.push(key);
    }
    for (let attempt = 0; batch && Object.keys(batch).length > 0; attempt++) {
      if (attempt > UNPROCESSED_RETRIES) throw serviceUnavailable();
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 25 * 2 ** attempt));
      const requestItems: BatchGetCommandInput['RequestItems'] = batch;
      const output: BatchGetCommandOutput = await send(() => dynamodb.send(new BatchGetCommand({ RequestItems: requestItems })));
      for (const [table, items] of Object.entries(output.Responses ?? {})) results[table].push(...items);
      batch = output.UnprocessedKeys as BatchGetCommandInput['RequestItems'];
    }
  }
  return results;
}
