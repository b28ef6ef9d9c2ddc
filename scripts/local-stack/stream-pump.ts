/**
 * The local stand-in for the fleet projector's event source mappings: reads the streams of the streamed tables from
 * DynamoDB Local (which has the Streams API) and hands their records to the projector the deployed function runs
 * (api/projector/project.ts), as the mappings do (resources/projector.js): in batches of MAPPING.batchSize; a batch
 * with failed records is tried again from the first of them MAPPING.maximumRetryAttempts times, then what still fails
 * goes to the on-failure queue (here a file of JSON lines, each the message the deployed mapping sends to SQS) and
 * the shard goes on. `npm start`, the end-to-end tests and the bench run it beside serverless offline (local-api.ts);
 * the integration harness drains it before each function that reads the fleet's summary. It loads neither serverless
 * offline nor the gateway: the harness, loaded anew by each of some forty test files, needs the projector alone.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
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
import { MAPPING } from '../../resources/projector.js';
import stages from '../../resources/stages.js';
import { project, SOURCES, type SourceRecord } from '../../api/projector/project';
import { LOCAL_CLIENT_CONFIG, localStore } from './local-db';

/** The longest wait between two rounds of a pump on a timer while nothing is written. */
const IDLE_MS = 1000;
/** How long a stream's list of shards is used before it is asked for again. */
const SHARDS_FRESH_MS = 30_000;

/**
 * Where a shard is read from: after its last record projected (none yet: from its start), unless it is closed and
 * read to its end. `iterator`, the one the last round's read ended with, goes on from there without asking for a new
 * one (half of a quiet stack's requests); there is none while the shard is empty (DynamoDB Local refuses an iterator
 * kept from an empty shard), and one refused (expired after 15 minutes, or trimmed) is replaced from `after`.
 */
interface ShardPosition {
  after?: string;
  closed?: boolean;
  iterator?: string;
}

export type StreamPump = ReturnType<typeof startStreamPump>;

/**
 * The fleet projector over `stage`'s streams in the DynamoDB at `endpoint`, with the stale threshold the functions run
 * with (`env` overrides the stage's settings).
 */
export function startStreamPump(options: {
  endpoint: string;
  stage: string;
  env?: Record<string, string>;
  /** The store the projector writes through: its own over `endpoint` unless given. */
  store?: Store;
  /** The on-failure queue: a file each message is appended to, as a line of JSON (.data/projector-failed-<stage>.jsonl). */
  failedQueue?: string;
  /** A round every so many milliseconds; none when absent (drain() alone). */
  intervalMs?: number;
  /** Hears a failed round (the next one tries again) and each record the projector could not project. */
  onError?: (error: unknown) => void;
}) {
  const store = options.store ?? localStore(options.endpoint, options.stage);
  const { staleAfterSeconds } = stages.stageSettings(options.stage, { ...process.env, ...options.env });
  const failedQueue = options.failedQueue ?? join(__dirname, '..', '..', '.data', `projector-failed-${options.stage}.jsonl`);
  mkdirSync(dirname(failedQueue), { recursive: true });
  const streams = new DynamoDBStreamsClient({ endpoint: options.endpoint, ...LOCAL_CLIENT_CONFIG });
  const arns = new Map<string, string>();
  const positions = new Map<string, ShardPosition>();

  async function streamOf(source: string): Promise<string> {
    if (!arns.has(source)) {
      const table = store.tables[source as keyof Store['tables']];
      const { Table } = await store.client.send(new DescribeTableCommand({ TableName: table }));
      if (!Table?.LatestStreamArn) throw new Error(`${table} has no stream (tables made by an older npm start: delete .data)`);
      arns.set(source, Table.LatestStreamArn);
    }
    return arns.get(source)!;
  }

  /**
   * The records of one shard from where it was left, in order. When the record it was left at has been trimmed
   * meanwhile (TrimmedDataAccessException), from the shard's oldest record instead: a record projected twice leaves
   * what one projection leaves, one never read would be lost.
   */
  async function readShard(arn: string, shardId: string): Promise<{ records: StreamRecord[]; position: ShardPosition }> {
    const held = positions.get(`${arn}/${shardId}`) ?? {};
    const fresh = () =>
      readFrom(arn, shardId, held.after).catch((error: Error) => {
        if (error.name !== 'TrimmedDataAccessException' || held.after === undefined) throw error;
        return readFrom(arn, shardId, undefined);
      });
    // A kept iterator refused: a new one from the same place.
    return held.iterator ? readFrom(arn, shardId, held.after, held.iterator).catch(fresh) : fresh();
  }

  async function readFrom(arn: string, shardId: string, after: string | undefined, kept?: string) {
    const start = after
      ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER' as const, SequenceNumber: after }
      : { ShardIteratorType: 'TRIM_HORIZON' as const };
    let iterator = kept ?? (await streams.send(new GetShardIteratorCommand({ StreamArn: arn, ShardId: shardId, ...start }))).ShardIterator;
    const records: StreamRecord[] = [];
    while (iterator) {
      const page = await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }));
      records.push(...(page.Records ?? []));
      iterator = page.NextShardIterator;
      if (!page.Records?.length) break;
    }
    const last = records.at(-1)?.dynamodb?.SequenceNumber ?? after;
    return { records, position: { after: last, closed: iterator === undefined, iterator: last === undefined ? undefined : iterator } };
  }

  /**
   * A stream's shards, asked for again only when one of them was read to its closed end (its child is then listed) or
   * after SHARDS_FRESH_MS. A list with no open shard (a stream not written to yet has none) is asked for each round.
   */
  const shardLists = new Map<string, { shards: string[]; at: number }>();
  async function shardsOf(arn: string): Promise<string[]> {
    const known = shardLists.get(arn);
    if (known && Date.now() - known.at < SHARDS_FRESH_MS) return known.shards;
    const shards = (await streams.send(new DescribeStreamCommand({ StreamArn: arn }))).StreamDescription?.Shards ?? [];
    const ids = shards.map((shard) => shard.ShardId!);
    if (ids.some((id) => !positions.get(`${arn}/${id}`)?.closed)) shardLists.set(arn, { shards: ids, at: Date.now() });
    return ids;
  }

  /**
   * One batch as the mapping runs it: tried again from its first failed record (every record, when the projector
   * threw), then given up to the queue.
   */
  async function runBatch(arn: string, shardId: string, batch: SourceRecord[]): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const { failures } = await project({ store, staleAfterSeconds }, batch).catch((error) => ({
        failures: batch.map(({ id }) => ({ id, error })),
      }));
      if (!failures.length) return;
      const failed = new Set(failures.map(({ id }) => id));
      batch = batch.slice(batch.findIndex((record) => failed.has(record.id)));
      if (attempt > MAPPING.maximumRetryAttempts) {
        for (const { id, error } of failures)
          options.onError?.(new Error(`record ${id} not projected after ${attempt} tries`, { cause: error }));
        const message = {
          requestContext: { condition: 'RetryAttemptsExhausted', approximateInvokeCount: attempt },
          timestamp: new Date().toISOString(),
          DDBStreamBatchInfo: {
            shardId,
            startSequenceNumber: batch[0].id,
            endSequenceNumber: batch.at(-1)!.id,
            batchSize: batch.length,
            streamArn: arn,
          },
        };
        appendFileSync(failedQueue, `${JSON.stringify(message)}\n`);
        return;
      }
    }
  }

  /** Projects what the streams hold; resolves to the number of records read. */
  async function round(): Promise<number> {
    let count = 0;
    for (const source of SOURCES) {
      const arn = await streamOf(source);
      for (const shardId of await shardsOf(arn)) {
        const key = `${arn}/${shardId}`;
        if (positions.get(key)?.closed) continue;
        const { records, position } = await readShard(arn, shardId);
        const projected: SourceRecord[] = records.map((record) => ({
          id: record.dynamodb!.SequenceNumber!,
          source,
          before: record.dynamodb?.OldImage && unmarshall(record.dynamodb.OldImage as never),
          after: record.dynamodb?.NewImage && unmarshall(record.dynamodb.NewImage as never),
        }));
        for (let at = 0; at < projected.length; at += MAPPING.batchSize) {
          const batch = projected.slice(at, at + MAPPING.batchSize);
          await runBatch(arn, shardId, batch);
          // Each batch done is not read again, even if a later one fails.
          positions.set(key, { after: batch.at(-1)!.id });
        }
        positions.set(key, position);
        count += records.length;
        // Its child shard, if any, is listed from now on.
        if (position.closed) shardLists.delete(arn);
      }
    }
    return count;
  }

  let running: Promise<number> = Promise.resolve(0);
  const next = () => {
    running = running.then(round, round);
    return running;
  };
  let timer: NodeJS.Timeout | undefined;
  if (options.intervalMs !== undefined) {
    const busyMs = options.intervalMs;
    // While the streams are quiet the rounds space out, doubling up to IDLE_MS (deployed, the event source mapping
    // waits up to its 1 s batching window); the first round that finds records brings them back to `intervalMs`.
    let delay = busyMs;
    const tick = () => {
      next()
        .then((count) => {
          delay = count > 0 ? busyMs : Math.min(delay * 2, Math.max(IDLE_MS, busyMs));
        })
        .catch((error) => options.onError?.(error))
        .finally(() => {
          if (timer) timer = setTimeout(tick, delay);
        });
    };
    timer = setTimeout(tick, 0);
  }
  return {
    // Projects every record the streams hold now; resolves once done (rounds never overlap).
    drain: async () => {
      await next();
    },
    // Stops the timer, waits for a round under way, and releases the clients.
    stop: async () => {
      clearTimeout(timer);
      timer = undefined;
      await running.catch(() => {});
      streams.destroy();
      if (!options.store) store.client.destroy();
    },
  };
}
