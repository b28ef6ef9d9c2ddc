/**
 * The embedded DynamoDB for `npm start`, the tests and the benchmark: dynalite, spoken to over HTTP by the real
 * AWS SDK. Tables are created from resources/tables.js, the same definition serverless.yml deploys.
 */
import { once } from 'node:events';
import type { Server } from 'node:net';
import { CreateTableCommand, type CreateTableCommandInput, DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import tables from '../../resources/tables.js';

export interface LocalDb {
  endpoint: string;
  port: number;
  close(): Promise<void>;
}

/** Starts dynalite on loopback; in memory unless `path` names a folder to keep the data in. */
export async function startDynalite(options: { port?: number; path?: string } = {}): Promise<LocalDb> {
  const server: Server = dynalite({ path: options.path, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  server.listen(options.port ?? 0, '127.0.0.1');
  await Promise.race([
    once(server, 'listening'),
    once(server, 'error').then(([error]) => Promise.reject(error)),
  ]);
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('dynalite did not report its port');
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    port: address.port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Credentials and region dynalite accepts; it checks neither. */
export const LOCAL_AWS_ENV = {
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'local',
  AWS_SECRET_ACCESS_KEY: 'local',
  // Node 20 here, nodejs22.x in Lambda: the SDK's notice about Node 20 is noise for local runs.
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
};

/** A low-level client for setting up tables and data (not the API's client). */
export function adminClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region: LOCAL_AWS_ENV.AWS_REGION,
    credentials: { accessKeyId: LOCAL_AWS_ENV.AWS_ACCESS_KEY_ID, secretAccessKey: LOCAL_AWS_ENV.AWS_SECRET_ACCESS_KEY },
  });
}

/** Creates every table of `stage` that does not exist yet; returns the names it created. */
export async function ensureTables(client: DynamoDBClient, stage: string): Promise<string[]> {
  const existing = new Set<string>();
  let start: string | undefined;
  do {
    const page = await client.send(new ListTablesCommand({ ExclusiveStartTableName: start }));
    for (const name of page.TableNames ?? []) existing.add(name);
    start = page.LastEvaluatedTableName;
  } while (start);
  const created: string[] = [];
  for (const table of Object.keys(tables.TABLES)) {
    const definition = tables.tableDefinition(stage, table);
    if (existing.has(definition.TableName)) continue;
    await client.send(new CreateTableCommand(definition as CreateTableCommandInput));
    created.push(definition.TableName);
  }
  return created;
}

/** The environment the functions need to run against dynalite for `stage`. */
export function localFunctionEnv(stage: string, endpoint: string, cursorSecret: string): Record<string, string> {
  return {
    ...LOCAL_AWS_ENV,
    ...tables.tableEnvironment(stage),
    DYNAMODB_ENDPOINT: endpoint,
    CURSOR_SECRET: cursorSecret,
  };
}
