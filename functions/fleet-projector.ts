/**
 * The fleet projector's Lambda (not an HTTP route): invoked by the event source mappings of the accounts, balances
 * and ledger tables' DynamoDB Streams with a batch of their changes, it keeps the fleet table (api/projector/). A
 * failure fails the batch, which Lambda retries (with the batch split in two) until it goes through: projecting is
 * idempotent, and a skipped change would leave the fleet's answers wrong. Its iterator age is the alarm to watch.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { Context, DynamoDBStreamEvent } from 'aws-lambda';
import { stampSecondsFor } from '@trading-bot-api/core/store/fleet-table';
import { config } from '../api/config';
import { store } from '../api/database';
import { project, type SourceRecord } from '../api/projector/project';
import { invocationKeys, logger } from '../api/telemetry';

const windowSeconds = stampSecondsFor(config.staleAfterSeconds);

/** The source of a record: the table its stream belongs to (`arn:…:table/<name>/stream/<label>`). */
function sourceOf(arn: string | undefined): SourceRecord['source'] {
  const table = arn?.split(':table/')[1]?.split('/')[0];
  const source = (['accounts', 'balances', 'ledger'] as const).find((name) => config.tables[name] === table);
  if (!source) throw new Error(`a stream record of ${table ?? 'no table'}, which the fleet projector does not read`);
  return source;
}

const image = (value: unknown) => (value ? unmarshall(value as Record<string, AttributeValue>) : undefined);

export const handler = async (event: DynamoDBStreamEvent, context: Context) => {
  const records: SourceRecord[] = event.Records.map((record) => ({
    source: sourceOf(record.eventSourceARN),
    before: image(record.dynamodb?.OldImage),
    after: image(record.dynamodb?.NewImage),
  }));
  try {
    const projected = await project({ store, windowSeconds }, records);
    logger.info('projected', { ...invocationKeys(context), records: records.length, ...projected });
    return projected;
  } catch (error) {
    logger.error('projection failed: the batch will be retried', { ...invocationKeys(context), records: records.length, error });
    throw error;
  }
};
