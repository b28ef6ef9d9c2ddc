/**
 * The fleet projector's Lambda (not an HTTP route): invoked by the event source mappings of the accounts, balances and
 * ledger tables' streams (resources/projector.js) with a batch of their changes, it keeps the fleet table
 * (api/projector/). It answers a partial batch response: a record it could not project is named (and logged with why),
 * the rest are applied; the mapping retries from it, then hands it to the on-failure queue, whose alarm says the
 * summary needs `npm run backfill -- --fleet` (docs/operations.md).
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { Context, DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { config } from '../api/config';
import { store } from '../api/database';
import { project, SOURCES, type SourceRecord } from '../api/projector/project';
import { logger } from '../api/telemetry';

/** The source of a record: the table its stream belongs to (`arn:…:table/<name>/stream/<label>`). */
function sourceOf(arn: string | undefined): SourceRecord['source'] {
  const table = arn?.split(':table/')[1]?.split('/')[0];
  const source = SOURCES.find((name) => config.tables[name] === table);
  if (!source) throw new Error(`a stream record of ${table ?? 'no table'}, which the fleet projector does not read`);
  return source;
}

const image = (value: unknown) => (value ? unmarshall(value as Record<string, AttributeValue>) : undefined);

export const handler = async (event: DynamoDBStreamEvent, context: Context): Promise<DynamoDBBatchResponse> => {
  logger.addContext(context);
  const records: SourceRecord[] = event.Records.map((record) => ({
    id: record.dynamodb?.SequenceNumber ?? '',
    source: sourceOf(record.eventSourceARN),
    before: image(record.dynamodb?.OldImage),
    after: image(record.dynamodb?.NewImage),
  }));
  const { moved, sums, failures } = await project({ store, staleAfterSeconds: config.staleAfterSeconds }, records);
  for (const { id, error } of failures) logger.error('record not projected', { sequenceNumber: id, error });
  logger.info('projected', { records: records.length, moved, sums, failed: failures.length });
  return { batchItemFailures: failures.map(({ id }) => ({ itemIdentifier: id })) };
};
