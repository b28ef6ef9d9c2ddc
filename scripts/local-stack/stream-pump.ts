/**
 * The local stand-in for the fleet projector's event source mappings: reads the streams of the accounts, balances
 * and ledger tables from DynamoDB Local (which has the Streams API) and hands their records to the same projector
 * the deployed function runs (api/projector/project.ts), in batches of at most 1,000 as its event source mappings do. `npm start`, the
 * end-to-end tests and the bench run it beside serverless offline (local-api.ts); the integration harness drains it
 * before each invocation. A failed batch is read again from where it began on the next round, as Lambda retries.
 */
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record as StreamRecord,
} from '@aws-sdk/client-dynamodb-streams';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { Store } from '@trading-bot-api/core/store/dynamodb';
import type { Source } from '@trading-bot-api/core/store/fleet-table';
import { project, type SourceRecord } from '../../api/projector/project';
import { LOCAL_AWS_ENV } from './local-db';

const SOURCES: Source[] = ['accounts', 'balances', 'ledger'];
const BATCH = 1000;

/**
 * Where a shard is read from: after its last record projected (none yet: from its start), unless it is closed and
 * read to its end. A round asks for a new iterator from there: DynamoDB Local refuses (TrimmedDataAccessException) an
 * iterator kept from a round when the shard was still empty.
 */
interface ShardPosition {
  after?: string;
  closed?: boolean;
}

export interface StreamPump {
  /** Projects every record the streams hold now; resolves once done (rounds never overlap). */
  drain(): Promise<void>;
  /** Stops the timer, waits for a round under way, and releases the client. */
  stop(): Promise<void>;
}

/** The pump of tables without streams: nothing to project (their fleet answers read the tables). */
export const NO_PUMP: StreamPump = { drain: async () => {}, stop: async () => {} };

export function startStreamPump(options: {
  store: Store;
  endpoint: string;
  windowSeconds: number;
  /** A round every so many milliseconds; none when absent (drain() alone). */
  intervalMs?: number;
  /** Hears a failed round (the next one tries again). */
  onError?: (error: unknown) => void;
}): StreamPump {
  const { store } = options;
  const streams = new DynamoDBStreamsClient({
    endpoint: options.endpoint,
    region: LOCAL_AWS_ENV.AWS_REGION,
    credentials: { accessKeyId: LOCAL_AWS_ENV.AWS_ACCESS_KEY_ID, secretAccessKey: LOCAL_AWS_ENV.AWS_SECRET_ACCESS_KEY },
  });
  const arns = new Map<Source, string>();
  const positions = new Map<string, ShardPosition>();

  async function streamOf(source: Source): Promise<string> {
    if (!arns.has(source)) {
      const { Table } = await store.client.send(new DescribeTableCommand({ TableName: store.tables[source] }));
      if (!Table?.LatestStreamArn)
        throw new Error(`${store.tables[source]} has no stream (tables made by an older npm start: delete .data)`);
      arns.set(source, Table.LatestStreamArn);
    }
    return arns.get(source)!;
  }

  /** The records of one shard from where it was left, in order. */
  async function readShard(arn: string, shardId: string): Promise<{ records: StreamRecord[]; position: ShardPosition }> {
    const held = positions.get(`${arn}/${shardId}`) ?? {};
    const start = held.after
      ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER' as const, SequenceNumber: held.after }
      : { ShardIteratorType: 'TRIM_HORIZON' as const };
    let iterator = (await streams.send(new GetShardIteratorCommand({ StreamArn: arn, ShardId: shardId, ...start }))).ShardIterator;
    const records: StreamRecord[] = [];
    while (iterator) {
      const page = await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }));
      records.push(...(page.Records ?? []));
      iterator = page.NextShardIterator;
      if (!page.Records?.length) break;
    }
    const last = records.at(-1)?.dynamodb?.SequenceNumber ?? held.after;
    return { records, position: { after: last, closed: iterator === undefined } };
  }

  async function round(): Promise<void> {
    for (const source of SOURCES) {
      const arn = await streamOf(source);
      const shards = (await streams.send(new DescribeStreamCommand({ StreamArn: arn }))).StreamDescription?.Shards ?? [];
      for (const shard of shards) {
        const key = `${arn}/${shard.ShardId}`;
        if (positions.get(key)?.closed) continue;
        const { records, position } = await readShard(arn, shard.ShardId!);
        const projected: SourceRecord[] = records.map((record) => ({
          source,
          before: record.dynamodb?.OldImage && unmarshall(record.dynamodb.OldImage as never),
          after: record.dynamodb?.NewImage && unmarshall(record.dynamodb.NewImage as never),
        }));
        for (let at = 0; at < projected.length; at += BATCH) {
          await project({ store, windowSeconds: options.windowSeconds }, projected.slice(at, at + BATCH));
          // Each batch done is not read again, even if a later one fails.
          const done = records[Math.min(at + BATCH, records.length) - 1].dynamodb?.SequenceNumber;
          positions.set(key, { after: done });
        }
        positions.set(key, position);
      }
    }
  }

  let running: Promise<void> = Promise.resolve();
  const drain = () => {
    running = running.then(round, round);
    return running;
  };
  let timer: NodeJS.Timeout | undefined;
  if (options.intervalMs !== undefined) {
    const tick = () => {
      drain()
        .catch((error) => options.onError?.(error))
        .finally(() => {
          if (timer) timer = setTimeout(tick, options.intervalMs);
        });
    };
    timer = setTimeout(tick, 0);
  }
  return {
    drain,
    stop: async () => {
      clearTimeout(timer);
      timer = undefined;
      await running.catch(() => {});
      streams.destroy();
    },
  };
}
