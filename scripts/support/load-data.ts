/**
 * Writes a dataset into the tables with BatchWriteItem, using the tables' own key builders from lib/, so the demo,
 * the tests and the benchmark store items exactly as the bot would. Import it only once the functions' environment
 * (table names) is set: lib/ reads its configuration at load.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, type BatchWriteCommandInput, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { accountItem } from '../../lib/store/accounts-table';
import { balanceItem } from '../../lib/store/balances-table';
import { config } from '../../lib/config';
import type { Item } from '../../lib/store/dynamodb';
import { tradeItem } from '../../lib/store/trades-table';
import type { Dataset } from './dataset';

type Requests = NonNullable<BatchWriteCommandInput['RequestItems']>;

/** The items of a dataset, by table name (this process's tables unless others are named). */
export function datasetItems(dataset: Dataset, names: { accounts: string; balances: string; trades: string } = config.tables): Record<string, Item[]> {
  return {
    [names.accounts]: dataset.accounts.map(({ account, bot }) => accountItem(account, bot)),
    [names.balances]: dataset.accounts.map(({ balance }) => balanceItem(balance)),
    [names.trades]: dataset.trades.map(tradeItem),
  };
}

/** Writes items 25 at a time, several batches in flight, asking again for UnprocessedItems until none remain. */
export async function writeItems(
  client: DynamoDBClient,
  itemsByTable: Record<string, Item[]>,
  onProgress: (written: number, total: number) => void = () => {},
): Promise<void> {
  const documents = DynamoDBDocumentClient.from(client);
  const puts = Object.entries(itemsByTable).flatMap(([table, items]) => items.map((Item) => ({ table, Item })));
  const batches: Requests[] = [];
  for (let i = 0; i < puts.length; i += 25) {
    const batch: Requests = {};
    for (const { table, Item } of puts.slice(i, i + 25)) (batch[table] ??= []).push({ PutRequest: { Item } });
    batches.push(batch);
  }
  let written = 0;
  let nextBatch = 0;
  const worker = async () => {
    while (nextBatch < batches.length) {
      let pending: Requests | undefined = batches[nextBatch++];
      const size = Object.values(pending).reduce((sum, requests) => sum + requests.length, 0);
      for (let attempt = 0; pending && Object.keys(pending).length; attempt++) {
        if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(1000, 20 * 2 ** attempt)));
        const output = await documents.send(new BatchWriteCommand({ RequestItems: pending }));
        pending = output.UnprocessedItems as Requests | undefined;
      }
      written += size;
      onProgress(written, puts.length);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
}

/** Writes a whole dataset. */
export async function loadDataset(client: DynamoDBClient, dataset: Dataset, onProgress?: (written: number, total: number) => void) {
  await writeItems(client, datasetItems(dataset), onProgress);
}
