// The fleet projector's deployment (functions/fleet-projector.ts, api/projector/): an event source mapping per streamed
// table, the queue its failed records go to, and what its role may do. The mapping's settings have this one home:
// serverless.yml deploys them, and the local stream pump (scripts/local-stack/stream-pump.ts) behaves by them.
'use strict';

const { SERVICE, STREAMED_TABLES, allow, arnOf } = require('./tables.js');

/**
 * How each mapping feeds the projector: batches of up to 1,000 records gathered for up to a second, from the stream's
 * oldest record. The projector names the records it could not project (a partial batch response); the mapping
 * retries the batch from the first of them MAXIMUM_RETRY_ATTEMPTS times, splitting it in two at each failed try,
 * then sends what still fails to the on-failure queue and goes on: a poison record never stalls its shard.
 */
const MAPPING = {
  startingPosition: 'TRIM_HORIZON',
  batchSize: 1000,
  batchWindow: 1,
  maximumRetryAttempts: 10,
  bisectBatchOnFunctionError: true,
  functionResponseType: 'ReportBatchItemFailures',
};

const QUEUE = 'ProjectorFailedQueue';

// A fresh object per use: the resolved configuration shares no node between two places.
const queueArn = () => ({ 'Fn::GetAtt': [QUEUE, 'Arn'] });

// Entry points for serverless.yml's `${file(./resources/projector.js):...}`, and the mapping's settings.
module.exports = { MAPPING };

/** The fleet projector's events: one stream mapping per streamed table, failures to the queue. */
module.exports.streamEvents = async () =>
  STREAMED_TABLES.map((table) => ({
    stream: { type: 'dynamodb', arn: arnOf(table, 'StreamArn'), ...MAPPING, destinations: { onFailure: { type: 'sqs', arn: queueArn() } } },
  }));

/**
 * Where the mappings leave what they gave up on: the stream's shard and the range of sequence numbers, which
 * `npm run backfill -- --fleet` makes whole again from the tables (docs/operations.md). Kept 14 days, the most SQS keeps;
 * its alarm (resources/observability.js) fires at the first message.
 */
module.exports.resources = async ({ resolveVariable }) => ({
  [QUEUE]: {
    Type: 'AWS::SQS::Queue',
    Properties: {
      QueueName: `${SERVICE}-${await resolveVariable('sls:stage')}-projector-failed`,
      MessageRetentionPeriod: 1209600,
      SqsManagedSseEnabled: true,
    },
  },
});

/**
 * What the projector's role may do: read the streams; read an account's currency and the accounts' own figures (to
 * recount a sum a correction moved); read and write the fleet table; hand failed batches to its queue.
 */
module.exports.statements = async () => [
  allow(
    ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:ListStreams'],
    STREAMED_TABLES.map((table) => ({ 'Fn::Join': ['/', [arnOf(table), 'stream', '*']] })),
  ),
  allow(['dynamodb:GetItem', 'dynamodb:BatchGetItem'], [arnOf('accounts'), arnOf('ledger')]),
  allow(['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:Query'], [arnOf('fleet')]),
  allow(['sqs:SendMessage'], [queueArn()]),
];
