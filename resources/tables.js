// The one definition of every DynamoDB table. serverless.yml deploys it (through `${file()}`), and
// `npm start`, the tests and the benchmark create the same tables in DynamoDB Local from it, so deploy and local
// runs cannot drift apart. Plain CommonJS because the Serverless variable resolver loads it without a compiler.
'use strict';

const SERVICE = 'trading-bot-api';

/**
 * Trades are listed newest first under eight filter combinations (account or all × status × instrument).
 * Each combination has its own index whose partition key is exactly that filter and whose sort key is the
 * global order key, so every listing is one Query with a key condition and never a FilterExpression: a page
 * reads only the items it returns plus one to learn whether another page exists.
 */
const TRADE_INDEXES = {
  'account-status': 'accountStatus',
  'account-instrument': 'accountInstrument',
  'account-status-instrument': 'accountStatusInstrument',
  all: 'allTrades',
  status: 'status',
  instrument: 'instrument',
  'status-instrument': 'statusInstrument',
};

const TABLES = {
  // The accounts, balances and ledger tables stream their changes (each item before and after) to the fleet
  // projector (api/projector/), the one writer of the fleet table.
  accounts: { logicalId: 'AccountsTable', partitionKey: 'accountId', stream: true },
  balances: { logicalId: 'BalancesTable', partitionKey: 'accountId', stream: true },
  trades: { logicalId: 'TradesTable', partitionKey: 'accountId', sortKey: 'orderKey', indexes: TRADE_INDEXES },
  apiKeys: { logicalId: 'ApiKeysTable', partitionKey: 'keyId', name: 'api-keys' },
  // The writer's bookkeeping per account: one item per period of closed-trade P&L (day, ISO week, month), one per
  // equity bucket (hour, day), one per period of performance figures (day, block of a month, month), and the register
  // of trade ids (which keeps an id to one trade). Sorted by kind and start time, so a series of N points is one Query
  // that reads about N items.
  ledger: { logicalId: 'LedgerTable', partitionKey: 'accountId', sortKey: 'entryKey', stream: true },
  // The fleet's summary (packages/core/src/store/fleet-table.ts): a few items holding one short stamp per account, and
  // per currency its account list and the sums of its accounts' performance and P&L per period, written by the fleet projector alone from the
  // other tables' streams. A fleet poll reads a few of these items, whatever the fleet's size. (Its own name: the
  // `fleet` table of older stages held stamps that bots wrote themselves; nothing uses it now, docs/operations.md.)
  fleet: { logicalId: 'FleetSummaryTable', partitionKey: 'part', sortKey: 'key', name: 'fleet-summary' },
  // What the alerts last said of each bot (packages/core/src/store/alerts-table.ts): one small item per bot that is or was in
  // trouble, written only by the probe, on condition that no other probe run changed it meanwhile, so that runs
  // racing each other send one message per change. Its own table: the probe's role may write it and nothing else,
  // and neither the bots' writer policy nor the API's role reaches it.
  alerts: { logicalId: 'AlertsTable', partitionKey: 'subject' },
};

/** The tables the bot's writer writes (and the API reads). */
const WRITER_TABLES = ['accounts', 'balances', 'trades', 'ledger'];

/** The tables the API reads: the writer's and the fleet's summary (every table but the API keys and alerts). */
const DATA_TABLES = [...WRITER_TABLES, 'fleet'];

/** The tables whose streams the fleet projector reads. */
const STREAMED_TABLES = Object.keys(TABLES).filter((table) => TABLES[table].stream);

/** Physical table name of `table` in `stage`, e.g. `trading-bot-api-dev-trades`. */
function tableName(stage, table) {
  if (!TABLES[table]) throw new Error(`unknown table ${table}`);
  return `${SERVICE}-${stage}-${TABLES[table].name ?? table}`;
}

/**
 * The physical names of a stage's tables, by role (packages/core/src/tables.ts): every table but the probe's alerts.
 * @param {string} stage
 * @returns {{ accounts: string, balances: string, trades: string, apiKeys: string, ledger: string, fleet: string }}
 */
function tableNames(stage) {
  return /** @type {any} */ (Object.fromEntries(ROLES.map((table) => [table, tableName(stage, table)])));
}

/** The tables packages/core/src/tables.ts names by role: every table but the probe's alerts. */
const ROLES = Object.keys(TABLES).filter((table) => table !== 'alerts');

/** The environment variable that tells the functions where `table` is: `apiKeys` in API_KEYS_TABLE, and so on. */
const tableVariable = (table) => `${table.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}_TABLE`;

/** Every table's variable and name in `stage`. */
function tableEnvironment(stage) {
  return Object.fromEntries(Object.keys(TABLES).map((table) => [tableVariable(table), tableName(stage, table)]));
}

/** What every change of a streamed table writes to its stream: the item before and after (the projector folds both). */
const STREAM_VIEW_TYPE = 'NEW_AND_OLD_IMAGES';

/**
 * The keys and indexes of `table`, shared by its two shapes below (its stream is where they differ).
 * @returns {{ TableName: string, BillingMode: string, KeySchema: object[], AttributeDefinitions: object[], GlobalSecondaryIndexes?: object[] }}
 */
function keyDefinition(stage, table) {
  const spec = TABLES[table];
  const attributes = new Set([spec.partitionKey]);
  const keySchema = [{ AttributeName: spec.partitionKey, KeyType: 'HASH' }];
  if (spec.sortKey) {
    attributes.add(spec.sortKey);
    keySchema.push({ AttributeName: spec.sortKey, KeyType: 'RANGE' });
  }
  const definition = { TableName: tableName(stage, table), BillingMode: 'PAY_PER_REQUEST', KeySchema: keySchema };
  if (spec.indexes) {
    definition.GlobalSecondaryIndexes = Object.entries(spec.indexes).map(([IndexName, partitionKey]) => {
      attributes.add(partitionKey);
      return {
        IndexName,
        KeySchema: [
          { AttributeName: partitionKey, KeyType: 'HASH' },
          { AttributeName: spec.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      };
    });
  }
  definition.AttributeDefinitions = [...attributes].map((AttributeName) => ({ AttributeName, AttributeType: 'S' }));
  return definition;
}

/**
 * DynamoDB's `CreateTable` input for `table` (npm start, the tests, the bench), where a stream is
 * `{ StreamEnabled, StreamViewType }`. Without `streams` a streamed table is made without one (local-db.ts says when).
 */
function createTableInput(stage, table, { streams = true } = {}) {
  const stream = streams && TABLES[table].stream;
  return {
    ...keyDefinition(stage, table),
    ...(stream ? { StreamSpecification: { StreamEnabled: true, StreamViewType: STREAM_VIEW_TYPE } } : {}),
  };
}

/**
 * CloudFormation's `Properties` of `table`. Its `StreamSpecification` is not CreateTable's: giving one enables the
 * stream, and it knows no `StreamEnabled` (CloudFormation refuses a property its schema does not know, which is how
 * the streams of issue 31 made the stack undeployable: test/package/cloudformation-schema.test.ts now checks).
 */
function cloudFormationProperties(stage, table) {
  return {
    ...keyDefinition(stage, table),
    ...(TABLES[table].stream ? { StreamSpecification: { StreamViewType: STREAM_VIEW_TYPE } } : {}),
    PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
    SSESpecification: { SSEEnabled: true },
  };
}

/** CloudFormation resources for every table of `stage`. */
function cloudFormationResources(stage) {
  const resources = {};
  for (const table of Object.keys(TABLES)) {
    resources[TABLES[table].logicalId] = {
      Type: 'AWS::DynamoDB::Table',
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: cloudFormationProperties(stage, table),
    };
  }
  return resources;
}

module.exports = {
  SERVICE,
  TABLES,
  DATA_TABLES,
  STREAMED_TABLES,
  TRADE_INDEXES,
  tableName,
  ROLES,
  tableNames,
  tableVariable,
  tableEnvironment,
  createTableInput,
  cloudFormationResources,
  // Entry points for serverless.yml's `${file(./resources/tables.js):...}`.
  resources: async ({ resolveVariable }) => cloudFormationResources(await resolveVariable('sls:stage')),
  environment: async ({ resolveVariable }) => tableEnvironment(await resolveVariable('sls:stage')),
};

/** The ARN of `table`'s resource (or another of its attributes: `StreamArn`). */
const arnOf = (table, attribute = 'Arn') => ({ 'Fn::GetAtt': [TABLES[table].logicalId, attribute] });

/** The ARNs of `table`'s indexes. */
const indexArns = (table) =>
  Object.keys(TABLES[table].indexes || {}).map((index) => ({ 'Fn::Join': ['/', [arnOf(table), 'index', index]] }));

/** An IAM statement allowing `actions` on `resources`. */
const allow = (actions, resources) => ({ Effect: 'Allow', Action: actions, Resource: resources });

/** What the writer does (packages/writer): the reads of its read-modify-writes and its transactions' writes. */
const writerStatement = () =>
  allow(
    ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
    WRITER_TABLES.map((table) => arnOf(table)),
  );

/**
 * IAM statements that let the data functions read the data tables and nothing else: GetItem, Query and BatchGetItem
 * on the exact table and index ARNs, and Scan on the two small tables that `/api/accounts` and `/api/all/balance`
 * read whole for a key that sees every account (never on trades). The API writes nothing.
 */
module.exports.dataReadStatements = async () => [
  allow(
    ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:BatchGetItem'],
    DATA_TABLES.flatMap((table) => [arnOf(table), ...indexArns(table)]),
  ),
  allow(['dynamodb:Scan'], [arnOf('accounts'), arnOf('balances')]),
];

/**
 * The managed policy a bot's role attaches to use the writer (packages/writer): the reads of its read-modify-writes
 * (GetItem, BatchGetItem) and the writes its transactions are made of (PutItem, UpdateItem), on the data tables only.
 * Nothing on the api-keys table, no Scan, no Query of the listings, no delete.
 */
module.exports.botWriterPolicy = async ({ resolveVariable }) => ({
  BotWriterPolicy: {
    Type: 'AWS::IAM::ManagedPolicy',
    Properties: {
      ManagedPolicyName: `${SERVICE}-${await resolveVariable('sls:stage')}-bot-writer`,
      Description:
        'Attach to a trading bot role: lets it write its accounts, trades, balances and heartbeats through the writer (packages/writer).',
      PolicyDocument: { Version: '2012-10-17', Statement: [writerStatement()] },
    },
  },
});

Object.assign(module.exports, { arnOf, indexArns, allow, writerStatement });
