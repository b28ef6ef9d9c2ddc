/**
 * What lets every test file run with the fleet projector on, as production runs it, at little cost:
 *
 * - Stages made when the run's DynamoDB Local starts (makeStagePool), their streamed tables created and each stream's
 *   first record written at once. At every write to a table with a stream, DynamoDB Local looks up that stream's
 *   oldest record by scanning every record any stream of the JVM wrote before it (deleted tables' too): a stream
 *   whose first record came after a run's thousands of others made each write several times slower. Primed at the
 *   start, a stream's lookups stay short however much the run writes (docs/performance.md). A file takes the next
 *   free stage (claimStage); past the pool, a new stage of its own.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { CreateTableCommand, type CreateTableCommandInput } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import tables from '../../resources/tables.js';
import { adminClient } from '../../scripts/local-stack/local-db';
import { runDir } from './run-dir';

/** More than the files of a whole run that make a stage (each integration and end-to-end file, a few twice). */
const POOL = 48;

const poolStage = (index: number) => `pool${String(index).padStart(2, '0')}`;

/** Makes the pool's streamed tables and writes and deletes one item in each (the global setup, before any test). */
export async function makeStagePool(endpoint: string): Promise<void> {
  const client = adminClient(endpoint);
  const documents = DynamoDBDocumentClient.from(client);
  await Promise.all(
    Array.from({ length: POOL }, async (_, index) => {
      for (const table of tables.STREAMED_TABLES) {
        const input = tables.createTableInput(poolStage(index), table) as CreateTableCommandInput;
        await client.send(new CreateTableCommand(input));
        const key = Object.fromEntries(input.KeySchema!.map(({ AttributeName }) => [AttributeName, '~']));
        // An account the projector can read (a bot's report, a currency); the others' items it passes over.
        const item =
          table === 'accounts' ? { ...key, currency: 'USD', bot: { state: 'stopped', updatedAt: new Date().toISOString() } } : key;
        await documents.send(new PutCommand({ TableName: input.TableName, Item: item }));
        await documents.send(new DeleteCommand({ TableName: input.TableName, Key: key }));
      }
    }),
  );
  client.destroy();
}

/** A stage of the pool no other file took, or undefined when none is left. */
export function claimStage(): string | undefined {
  const claims = join(runDir(), 'stages');
  mkdirSync(claims, { recursive: true });
  for (let index = 0; index < POOL; index++) {
    try {
      mkdirSync(join(claims, String(index)));
      return poolStage(index);
    } catch {
      // Taken by another file.
    }
  }
  return undefined;
}
