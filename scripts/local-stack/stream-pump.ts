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
import { LOCAL_CLIENT_CONFIG } from './local-db';

const SOURCES: Source[] = ['accounts', 'balances', 'ledger'];
const BATCH = 1000;
/** The longest wait between two rounds of a pump on a timer while nothing is written. */
export const IDLE_MS = 1000;
/** How long a stream's list of shards is used before it is asked for again. */
const SHARDS_FRESH_MS = 30_000;

/**
 * Where a shard is read from: after its last record projected (none yet: from its start), unless it is closed and
 * read to its end. `iterator`, the one the last round's read ended with, goes on from there without asking for a new
 * one (half of a quiet stack's requests); there is none while the shard is empty (DynamoDB Local refuses, with
 * TrimmedDataAccessException, an iterator kept from an empty shard) or after a failed batch, and one refused
 * (expired after 15 minutes, or trimmed) is replaced by a new iterator from `after`.
 */
interface ShardPosition {
  after?: string;
  closed?: boolean;
  iterator?: string;
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
  const streams = new DynamoDBStreamsClient({ endpoint: options.endpoint, ...LOCAL_CLIENT_CONFIG });
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

  /**
   * The records of one shard from where it was left, in order. When the record it was left at has been trimmed
   * meanwhile (TrimmedDataAccessException, seen once in a test run), from the shard's oldest record instead: a record
   * projected twice leaves what one projection leaves (api/projector/project.ts), one never read would be lost.
   */
  async function readShard(arn: string, shardId: string): Promise<{ records: StreamRecord[]; position: ShardPosition }> {
    const held = positions.get(`${arn}/${shardId}`) ?? {};
    if (held.iterator) {
      try {
        return await readFrom(arn, shardId, held.after, held.iterator);
      } catch {
        // Refused: a new iterator from the same place, below.
      }
    }
    try {
      return await readFrom(arn, shardId, held.after);
    } catch (error) {
      if ((error as Error).name !== 'TrimmedDataAccessException' || held.after === undefined) throw error;
      return readFrom(arn, shardId, undefined);
    }
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
   * after SHARDS_FRESH_MS: asking each round was a third of an idle stack's requests. A list with no open shard (a
   * stream not written to yet has none) is asked for again each round.
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

  /** Projects what the streams hold; resolves to the number of records projected. */
  async function round(): Promise<number> {
    let count = 0;
    for (const source of SOURCES) {
      const arn = await streamOf(source);
      for (const shardId of await shardsOf(arn)) {
        const key = `${arn}/${shardId}`;
        if (positions.get(key)?.closed) continue;
        const { records, position } = await readShard(arn, shardId);
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
  const drain = async () => {
    await next();
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
    drain,
    stop: async () => {
      clearTimeout(timer);
      timer = undefined;
      await running.catch(() => {});
      streams.destroy();
    },
  };
}
