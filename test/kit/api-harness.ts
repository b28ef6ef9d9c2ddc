/**
 * Integration harness: tables of this test file's own in the DynamoDB Local that test/kit/global-setup.cjs
 * starts for the run, the functions' environment pointed at them, and the real handlers invoked in-process with
 * API Gateway events from events/. Each file gets its own stage (table name prefix), so files never see each
 * other's data and may run in parallel.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DeleteTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { Store } from '@trading-bot-api/core/store/dynamodb';
import type { Writer } from '@trading-bot-api/writer';
import type { Dataset } from '../../scripts/demo/dataset';
import { loadDataset, localWriter } from '../../scripts/support/load-data';
import tables from '../../resources/tables.js';
import { adminClient, ensureTables, localFunctionEnv, localStore } from '../../scripts/local-stack/local-db';
import { serviceDefinition } from '../../scripts/local-stack/service-definition';
import { type StreamPump, startStreamPump } from '../../scripts/local-stack/stream-pump';
import { claimStage } from './fleet-stages';
import { runDir } from './run-dir';

export const TEST_CURSOR_SECRET = 'test-cursor-secret-0123456789abcdef0123456789';
const ROOT = join(__dirname, '..', '..');

/** A function that serves an operation of the API: its key in serverless.yml (and its file in functions/). */
export type FunctionName = string;

/**
 * Each function of the API and the route it serves (those under /api/; the dashboard's are files, not operations),
 * read from serverless.yml, where the deployed and local gateways take them from too.
 */
export const ROUTES: Readonly<Record<FunctionName, string>> = Object.fromEntries(
  serviceDefinition()
    .routes.filter((route) => route.path.startsWith('/api/'))
    .map((route) => [route.functionKey, route.path]),
);

export interface Response {
  statusCode: number;
  headers: Record<string, string>;
  body: any;
}

export interface Harness {
  /** This file's stage: its tables are `trading-bot-api-<stage>-*`. */
  stage: string;
  db: { endpoint: string };
  /** The bot's writer on this file's tables. */
  writer: Writer;
  /** The store of this file's tables (the table modules' reads and writes), to read back what was written. */
  store: Store;
  /** Writes a dataset through the writer, as the demo and the bench do. */
  load(dataset: Dataset): Promise<void>;
  /** Stores a new API key for `accounts` and returns it (revoked when `disabled`). */
  createKey(accounts: '*' | string[], options?: { disabled?: boolean }): Promise<string>;
  /** Disables a key, as `npm run keys -- revoke` does. */
  revokeKey(key: string): Promise<void>;
  /**
   * The fleet projector over this file's streams: an invocation of a function that reads the fleet's summary drains
   * it first, so the function sees every change written before it (deployed, within about a second).
   */
  projector: StreamPump;
  /** The projector's on-failure queue: a file of JSON lines, each the message the deployed mapping sends to SQS. */
  failedQueue: string;
  /** Writes items as they are into one of this file's tables. */
  putItems(table: string, items: Record<string, unknown>[]): Promise<void>;
  invoke(name: FunctionName, event: Partial<APIGatewayProxyEvent>): Promise<Response>;
  close(): Promise<void>;
}

/** The DynamoDB Local of this test run (started by test/kit/global-setup.cjs). */
function testDatabase(): { endpoint: string } {
  const endpoint = process.env.TEST_DYNAMODB_ENDPOINT;
  if (!endpoint) throw new Error('TEST_DYNAMODB_ENDPOINT is not set: run the tests with jest, whose global setup starts DynamoDB Local');
  return { endpoint };
}

/** Deletes every table of `stage` (a test file's own tables, when it is done). */
export async function deleteTables(client: DynamoDBClient, stage: string): Promise<void> {
  await Promise.all(
    Object.keys(tables.TABLES).map((table) =>
      client.send(new DeleteTableCommand({ TableName: tables.tableName(stage, table) })).catch((error: Error) => {
        if (error.name !== 'ResourceNotFoundException') throw error;
      }),
    ),
  );
}

/** A stage name no other test file uses: worker id plus random hex. */
export function uniqueStage(): string {
  return `t${process.env.JEST_WORKER_ID ?? '0'}x${randomBytes(4).toString('hex')}`;
}

/**
 * Creates this file's tables and configures the functions. `env` adds or overrides variables (e.g. a fault proxy's
 * endpoint as DYNAMODB_ENDPOINT); it must be called before any module of the API (api/) is loaded in the test file.
 * Functions log only errors unless `env` says otherwise: thousands of access lines would bury a failure's output.
 * A file that checks what is logged, or starts the local stack (whose processes inherit this environment), asks for
 * LOG_LEVEL INFO.
 */
export async function startHarness(env: Record<string, string> = {}): Promise<Harness> {
  const db = testDatabase();
  const stage = claimStage() ?? uniqueStage();
  Object.assign(process.env, localFunctionEnv(stage, db.endpoint, TEST_CURSOR_SECRET), { AUTH_MODE: 'off', LOG_LEVEL: 'ERROR' }, env);
  const client = adminClient(db.endpoint);
  const documents = DynamoDBDocumentClient.from(client);
  await ensureTables(client, stage);
  const writer = localWriter(db.endpoint, { stage });
  const store = localStore(db.endpoint, stage);
  const failedQueue = join(runDir(), `projector-failed-${stage}.jsonl`);
  const projector = startStreamPump({ endpoint: db.endpoint, stage, env, failedQueue });
  projectors.add(projector);
  const putItems = async (table: string, items: Record<string, unknown>[]) => {
    for (const item of items) await documents.send(new PutCommand({ TableName: table, Item: item }));
  };
  return {
    stage,
    db,
    writer,
    store,
    load: (dataset) => loadDataset(writer, dataset),
    createKey: async (accounts, options = {}) => {
      const { createApiKey } = await import('@trading-bot-api/core/store/api-keys-table');
      return (await createApiKey(store, accounts, 'test key', { disabled: options.disabled })).key;
    },
    revokeKey: async (key) => {
      const { keyIdOf, revokeApiKey } = await import('@trading-bot-api/core/store/api-keys-table');
      await revokeApiKey(store, keyIdOf(key)!);
    },
    projector,
    failedQueue,
    putItems,
    invoke: (name, event) => invoke(name, event),
    close: async () => {
      projectors.delete(projector);
      await projector.stop();
      writer.close();
      store.client.destroy();
      await deleteTables(client, stage);
      client.destroy();
    },
  };
}

let invocation = 0;

/** The projectors of the harnesses open in this file, drained before each invocation of a function that reads the fleet table. */
const projectors = new Set<StreamPump>();

/**
 * An invocation makes the next request of the functions' store to the fleet table (the summary) wait for the projectors
 * to drain first: a function sees every change written before it, as deployed, and one that never reads the summary
 * (a trade listing, a health check) costs no drain (a `GetRecords` per shard, some 1,200 in a file of listings).
 */
let drainDue = false;
let drained: Promise<void> = Promise.resolve();
let watching = false;

/** Whether a request's input names the fleet table (a get, query or scan; a batch or transaction of items). */
function namesTable(input: Record<string, any>, table: string): boolean {
  if (input.TableName === table || (input.RequestItems && table in input.RequestItems)) return true;
  return (input.TransactItems ?? []).some((item: Record<string, { TableName?: string }>) =>
    Object.values(item).some((action) => action?.TableName === table),
  );
}

/** Watches the functions' one store (api/database.ts, loaded once the harness has set their environment). */
function watchFleetReads(): void {
  if (watching) return;
  watching = true;
  const { store } = require(join(ROOT, 'api', 'database.ts')) as { store: Store };
  store.client.middlewareStack.add(
    (next) => async (args) => {
      if (namesTable(args.input as Record<string, any>, store.tables.fleet)) {
        if (drainDue) {
          drainDue = false;
          drained = (async () => {
            for (const projector of projectors) await projector.drain();
          })();
        }
        await drained;
      }
      return next(args);
    },
    { step: 'initialize', name: 'drainProjectorsBeforeFleetRead' },
  );
}

/**
 * Invokes a function's exported handler as Lambda would, and parses its JSON body (a 304's empty body stays ''; a
 * body of another type, CSV or Prometheus text, stays text).
 */
export async function invoke(name: FunctionName, event: Partial<APIGatewayProxyEvent>): Promise<Response> {
  const { handler } = require(join(ROOT, 'functions', `${name}.ts`));
  invocation += 1;
  watchFleetReads();
  drainDue = true;
  const context = {
    awsRequestId: `test-request-${invocation}`,
    functionName: name,
    getRemainingTimeInMillis: () => 10_000,
  } as unknown as Context;
  const result: APIGatewayProxyResult = await handler(event, context);
  return {
    statusCode: result.statusCode,
    headers: (result.headers ?? {}) as Record<string, string>,
    body: result.body === '' || !/json/.test(String(result.headers?.['Content-Type'] ?? 'json')) ? result.body : JSON.parse(result.body),
  };
}

/** The event in events/<file>.json. */
export function eventFile(file: string): APIGatewayProxyEvent {
  return JSON.parse(readFileSync(join(ROOT, 'events', `${file}.json`), 'utf8'));
}

/**
 * An event for `name` based on its file in events/, with the path parameter and query replaced. Query values may
 * repeat: `{ status: ['open', 'closed'] }`.
 */
export function eventFor(
  name: FunctionName,
  options: { account?: string; query?: Record<string, string | string[]>; headers?: Record<string, string> } = {},
): APIGatewayProxyEvent {
  const event = eventFile(name);
  if (options.account !== undefined) {
    event.pathParameters = { account: options.account };
    event.path = event.resource.replace('{account}', options.account);
    event.requestContext = { ...event.requestContext, path: `/${event.requestContext.stage}${event.path}` };
  }
  if (options.query !== undefined) {
    const entries = Object.entries(options.query).map(([key, value]) => [key, Array.isArray(value) ? value : [value]] as const);
    event.multiValueQueryStringParameters = entries.length ? Object.fromEntries(entries) : null;
    event.queryStringParameters = entries.length
      ? Object.fromEntries(entries.map(([key, values]) => [key, values[values.length - 1]]))
      : null;
  }
  if (options.headers) {
    event.headers = { ...event.headers, ...options.headers };
    event.multiValueHeaders = {
      ...event.multiValueHeaders,
      ...Object.fromEntries(Object.entries(options.headers).map(([k, v]) => [k, [v]])),
    };
  }
  return event;
}
