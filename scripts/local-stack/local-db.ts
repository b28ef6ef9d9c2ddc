/**
 * Tables and credentials for the local DynamoDB (DynamoDB Local, see dynamodb-local.ts), spoken to over HTTP by the
 * real AWS SDK. Tables are created from resources/tables.js, the same definition serverless.yml deploys.
 */
import { CreateTableCommand, type CreateTableCommandInput, DynamoDBClient, paginateListTables } from '@aws-sdk/client-dynamodb';
import tables from '../../resources/tables.js';
import { createStore, QUIET_SDK_LOGGER, type Store } from '@trading-bot-api/core/store/dynamodb';
import { QUIET_SDK_ENV } from '../support/quiet-sdk';

/** Credentials and region for DynamoDB Local: it checks neither (with -sharedDb, every client sees one database). */
export const LOCAL_AWS_ENV = {
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'local',
  AWS_SECRET_ACCESS_KEY: 'local',
  ...QUIET_SDK_ENV,
};

/** What an SDK client of DynamoDB Local (or its streams) is built with, beside its endpoint. */
export const LOCAL_CLIENT_CONFIG = {
  logger: QUIET_SDK_LOGGER,
  region: LOCAL_AWS_ENV.AWS_REGION,
  credentials: { accessKeyId: LOCAL_AWS_ENV.AWS_ACCESS_KEY_ID, secretAccessKey: LOCAL_AWS_ENV.AWS_SECRET_ACCESS_KEY },
};

/** A low-level client for setting up tables and data (not the API's client). */
export function adminClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({ endpoint, ...LOCAL_CLIENT_CONFIG });
}

/**
 * Creates every table of `stage` that does not exist yet, with their streams. (A stage
 * created here has every change in its streams, so the fleet projector marks its summary complete itself.) Without
 * `streams` the tables have none, and no projector can keep the fleet's summary: its answers read the tables, as on
 * a stage whose data predates the projector. The integration tests that do not test the projector use that, since
 * DynamoDB Local slows down for every write, several-fold, once a few stream-enabled tables hold thousands of
 * records (measured: the same 6,000 trades loaded in 17 s into the first set of tables, in 108 s into a second): each
 * write to a stream looks for that stream's oldest record by scanning every record the JVM's streams wrote before it,
 * deleted tables' too (docs/performance.md).
 */
export async function ensureTables(client: DynamoDBClient, stage: string, options: { streams?: boolean } = {}): Promise<void> {
  const existing = new Set<string>();
  for await (const page of paginateListTables({ client }, {})) for (const name of page.TableNames ?? []) existing.add(name);
  for (const table of Object.keys(tables.TABLES)) {
    const definition = tables.createTableInput(stage, table, { streams: options.streams !== false });
    if (existing.has(definition.TableName)) continue;
    await client.send(new CreateTableCommand(definition as CreateTableCommandInput));
  }
}

/**
 * A store over `stage`'s tables in a local DynamoDB, for reading back what a writer wrote and setting up what no
 * writer writes (API keys, a stage older than the stamps): tests, the bench and the keys CLI.
 */
export function localStore(endpoint: string, stage: string): Store {
  return createStore({
    tables: tables.tableNames(stage),
    endpoint,
    ...LOCAL_CLIENT_CONFIG,
    connectTimeoutMs: 1000,
    requestTimeoutMs: 3000,
    maxAttempts: 4,
  });
}

/** The environment the functions need to run against the local DynamoDB for `stage`. */
export function localFunctionEnv(stage: string, endpoint: string, cursorSecret: string): Record<string, string> {
  return {
    ...LOCAL_AWS_ENV,
    ...tables.tableEnvironment(stage),
    DYNAMODB_ENDPOINT: endpoint,
    CURSOR_SECRET: cursorSecret,
    STAGE: stage,
  };
}

/** The local ports every command of the project uses, from PORT, DB_PORT and LAMBDA_PORT. */
export const LOCAL_PORTS = { PORT: 3000, DB_PORT: 8000, LAMBDA_PORT: 3002 } as const;

/** A port from the environment variable `name` (or its default); throws with a message naming it when malformed. */
export function portFromEnv(name: keyof typeof LOCAL_PORTS, env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return LOCAL_PORTS[name];
  if (!/^\d{1,5}$/.test(raw) || Number(raw) < 1 || Number(raw) > 65535)
    throw new Error(`${name} must be a port number from 1 to 65535, got "${raw}"`);
  return Number(raw);
}

/** Where `npm start` serves its DynamoDB (DB_PORT), for the keys CLI, the importer, the demo bot and invoke local. */
export function localDatabaseEndpoint(env: NodeJS.ProcessEnv = process.env): string {
  return `http://127.0.0.1:${portFromEnv('DB_PORT', env)}`;
}
