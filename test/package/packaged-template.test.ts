/**
 * The deployable stage, checked from what `serverless package --stage prod` generates: the CloudFormation
 * template that would be deployed, not the YAML that describes it. The package is the run's one build of it
 * (test/kit/packaged.ts: the dashboard's test builds it beside its npm start), made here when that test has not.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { openapi, schemaViolations } from '../kit/contract';
import { alertResources } from '../../resources/observability.js';
import stages from '../../resources/stages.js';
import { ALERT_SECRETS, deployEnv, EXCHANGE_FEEDS, packagedStage, SCRATCH_BUILDS, SERVERLESS } from '../kit/packaged';

jest.setTimeout(300_000);

const ROOT = join(__dirname, '..', '..');
/** What a deploy from a clean shell sees, bundling (if at all) where no other build of the run does. */
const CLEAN_ENV = deployEnv({ ESBUILD_WORK_FOLDER: `${SCRATCH_BUILDS}/package-test` });
let templateText: string;
type Resource = { Type: string; Properties: any };
let resources: Record<string, Resource>;
let outputs: Record<string, any>;
/** The file names inside each function's zip. */
const packaged: Record<string, string[]> = {};
/** Each function's zip, in bytes. */
const zipBytes: Record<string, number> = {};

/** The names in a zip's central directory (enough of the format to list it; no dependency). */
function zipEntries(zip: Buffer): string[] {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const names: string[] = [];
  for (let i = 0; i < count; i++) {
    const nameLength = zip.readUInt16LE(at + 28);
    names.push(zip.toString('utf8', at + 46, at + 46 + nameLength));
    at += 46 + nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
  }
  return names;
}

beforeAll(async () => {
  const out = await packagedStage();
  templateText = readFileSync(join(out, 'cloudformation-template-update-stack.json'), 'utf8');
  const template = JSON.parse(templateText);
  resources = template.Resources;
  outputs = template.Outputs;
  for (const name of ['dashboard', 'health', 'exchangeFeed']) packaged[name] = zipEntries(readFileSync(join(out, `${name}.zip`)));
  for (const file of readdirSync(out).filter((name) => name.endsWith('.zip')))
    zipBytes[file.replace(/\.zip$/, '')] = statSync(join(out, file)).size;
});

const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
const functions = () => ofType('AWS::Lambda::Function');
const getMethods = () => ofType('AWS::ApiGateway::Method').filter(([, r]) => r.Properties.HttpMethod === 'GET');

it('puts the authorizer on every data method and not on health or the dashboard', () => {
  const authorizers = ofType('AWS::ApiGateway::Authorizer');
  expect(authorizers).toHaveLength(2);
  const [authorizerId, authorizer] = authorizers.find(([, r]) => r.Properties.Name === 'authorizer')!;
  expect(authorizer.Properties).toMatchObject({
    Type: 'REQUEST',
    IdentitySource: 'method.request.header.x-api-key',
    AuthorizerResultTtlInSeconds: 300,
  });
  // The metrics route's (1.4): no identity source and no cache, so a Bearer key (Prometheus's) reaches the authorizer.
  const [metricsAuthorizerId, metricsAuthorizer] = authorizers.find(([, r]) => r.Properties.Name === 'metrics-authorizer')!;
  expect(metricsAuthorizer.Properties).toMatchObject({ Type: 'REQUEST', AuthorizerResultTtlInSeconds: 0 });
  expect(metricsAuthorizer.Properties.IdentitySource).toBeUndefined();
  const methods = getMethods();
  // Sixteen API routes, and the dashboard's page (/) and files (/assets/{file}).
  expect(methods).toHaveLength(18);
  const publicMethods = ['ApiGatewayMethodApiHealthGet', 'ApiGatewayMethodGet', 'ApiGatewayMethodAssetsFileVarGet'];
  for (const [id, method] of methods) {
    if (publicMethods.includes(id)) expect(method.Properties.AuthorizationType).toBe('NONE');
    else {
      const expected = id === 'ApiGatewayMethodApiMetricsGet' ? metricsAuthorizerId : authorizerId;
      expect(method.Properties).toMatchObject({ AuthorizationType: 'CUSTOM', AuthorizerId: { Ref: expected } });
    }
  }
});

it('gives each concern its own least-privilege role', () => {
  expect(resources).not.toHaveProperty('IamRoleLambdaExecution');
  const roleOf: Record<string, string> = {
    AuthorizerLambdaFunction: 'AuthorizerRole',
    MetricsDashauthorizerLambdaFunction: 'AuthorizerRole',
    DashboardLambdaFunction: 'DashboardRole',
    ProbeLambdaFunction: 'ProbeRole',
    NotifierLambdaFunction: 'NotifierRole',
    FleetProjectorLambdaFunction: 'FleetProjectorRole',
    ExchangeFeedLambdaFunction: 'ExchangeFeedRole',
  };
  for (const [id, fn] of functions()) {
    expect(fn.Properties.Role).toEqual({ 'Fn::GetAtt': [roleOf[id] ?? 'DataFunctionsRole', 'Arn'] });
  }
  const statementsOf = (role: string) => resources[role].Properties.Policies.flatMap((policy: any) => policy.PolicyDocument.Statement);
  const dynamodbStatements = (role: string) =>
    statementsOf(role).filter((s: any) => s.Action.some((a: string) => a.startsWith('dynamodb:')));

  expect(dynamodbStatements('AuthorizerRole')).toEqual([
    { Effect: 'Allow', Action: ['dynamodb:GetItem'], Resource: { 'Fn::GetAtt': ['ApiKeysTable', 'Arn'] } },
  ]);

  const [data, scan, ...others] = dynamodbStatements('DataFunctionsRole');
  expect(others).toEqual([]);
  expect(data.Action).toEqual(['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:BatchGetItem']);
  const indexes = resources.TradesTable.Properties.GlobalSecondaryIndexes.map((index: any) => index.IndexName);
  expect(data.Resource).toEqual([
    { 'Fn::GetAtt': ['AccountsTable', 'Arn'] },
    { 'Fn::GetAtt': ['BalancesTable', 'Arn'] },
    { 'Fn::GetAtt': ['TradesTable', 'Arn'] },
    ...indexes.map((name: string) => ({ 'Fn::Join': ['/', [{ 'Fn::GetAtt': ['TradesTable', 'Arn'] }, 'index', name]] })),
    { 'Fn::GetAtt': ['LedgerTable', 'Arn'] },
    { 'Fn::GetAtt': ['FleetSummaryTable', 'Arn'] },
  ]);
  // /api/accounts and /api/all/balance read the two small tables whole for a key that sees every account (the
  // store's scanAll); without Scan they would fail in AWS while passing locally. The trades table is never scanned.
  expect(scan).toEqual({
    Effect: 'Allow',
    Action: ['dynamodb:Scan'],
    Resource: [{ 'Fn::GetAtt': ['AccountsTable', 'Arn'] }, { 'Fn::GetAtt': ['BalancesTable', 'Arn'] }],
  });
  // The dashboard's files are in its package: its role reads nothing.
  expect(dynamodbStatements('DashboardRole')).toEqual([]);
  // The fleet projector reads the three streams, an account's currency and the accounts' own statistics; it writes
  // the fleet table and nothing else, and hands what it gives up on to its queue.
  const projector = dynamodbStatements('FleetProjectorRole');
  const arn = (table: string) => ({ 'Fn::GetAtt': [table, 'Arn'] });
  const streamed = ['AccountsTable', 'BalancesTable', 'LedgerTable'];
  expect(projector).toEqual([
    {
      Effect: 'Allow',
      Action: ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:ListStreams'],
      Resource: streamed.map((table) => ({ 'Fn::Join': ['/', [arn(table), 'stream', '*']] })),
    },
    { Effect: 'Allow', Action: ['dynamodb:GetItem', 'dynamodb:BatchGetItem'], Resource: [arn('AccountsTable'), arn('LedgerTable')] },
    {
      Effect: 'Allow',
      Action: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:Query'],
      Resource: [arn('FleetSummaryTable')],
    },
  ]);
  expect(statementsOf('FleetProjectorRole').filter((s: any) => s.Action.includes('sqs:SendMessage'))).toEqual([
    { Effect: 'Allow', Action: ['sqs:SendMessage'], Resource: [{ 'Fn::GetAtt': ['ProjectorFailedQueue', 'Arn'] }] },
  ]);
  for (const table of streamed) {
    expect(resources[table].Properties.StreamSpecification).toEqual({ StreamViewType: 'NEW_AND_OLD_IMAGES' });
  }
  const mappings = ofType('AWS::Lambda::EventSourceMapping').map(([, mapping]) => mapping.Properties);
  expect(mappings.map((mapping) => mapping.EventSourceArn)).toEqual(streamed.map((table) => ({ 'Fn::GetAtt': [table, 'StreamArn'] })));
  for (const mapping of mappings) {
    // From the first record; a record the projector names as failed retried with the rest of its batch ten times (the
    // batch split in two each time), then handed to the on-failure queue: one poison record never stalls its shard.
    expect(mapping).toMatchObject({
      StartingPosition: 'TRIM_HORIZON',
      BatchSize: 1000,
      MaximumBatchingWindowInSeconds: 1,
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: 10,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': ['ProjectorFailedQueue', 'Arn'] } } },
    });
  }
  expect(resources.ProjectorFailedQueue).toMatchObject({
    Type: 'AWS::SQS::Queue',
    Properties: { QueueName: 'trading-bot-api-prod-projector-failed', MessageRetentionPeriod: 1209600, SqsManagedSseEnabled: true },
  });
  expect(resources.ProjectorFailedQueueAlarm.Properties).toMatchObject({
    Namespace: 'AWS/SQS',
    MetricName: 'ApproximateNumberOfMessagesVisible',
    Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': ['ProjectorFailedQueue', 'QueueName'] } }],
    ComparisonOperator: 'GreaterThanThreshold',
    Threshold: 0,
    AlarmActions: [{ Ref: 'AlertsTopic' }],
  });
  for (const role of ['AuthorizerRole', 'DataFunctionsRole', 'DashboardRole']) {
    const actions: string[] = statementsOf(role).flatMap((s: any) => s.Action);
    expect(actions.filter((a) => a.includes('*') || (a.startsWith('dynamodb:') && /Put|Update|Delete|Write/.test(a)))).toEqual([]);
    expect(actions.filter((a) => !a.startsWith('dynamodb:'))).toEqual([
      'xray:PutTraceSegments',
      'xray:PutTelemetryRecords',
      'logs:CreateLogStream',
      'logs:PutLogEvents',
    ]);
  }
});

it('offers bots a least-privilege managed policy for the writer, and nothing of it to the API', () => {
  const [[id, policy]] = ofType('AWS::IAM::ManagedPolicy');
  expect(id).toBe('BotWriterPolicy');
  expect(policy.Properties.ManagedPolicyName).toBe('trading-bot-api-prod-bot-writer');
  expect(policy.Properties.PolicyDocument.Statement).toEqual([
    {
      Effect: 'Allow',
      Action: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
      // Never the fleet's summary, which the projector alone writes, nor the old `fleet` table of stages before it.
      Resource: ['AccountsTable', 'BalancesTable', 'TradesTable', 'LedgerTable'].map((table) => ({ 'Fn::GetAtt': [table, 'Arn'] })),
    },
  ]);
  expect(JSON.stringify(policy)).not.toContain('FleetSummaryTable');
  expect(JSON.stringify(policy)).not.toContain('table/trading-bot-api-prod-fleet');
  expect(JSON.stringify(policy)).not.toContain('ApiKeysTable');
  expect(outputs.BotWriterPolicyArn.Value).toEqual({ Ref: 'BotWriterPolicy' });
  // No role of the stack carries it: the API's functions stay read-only.
  for (const [, role] of ofType('AWS::IAM::Role')) expect(JSON.stringify(role)).not.toContain('BotWriterPolicy');
});

it('shapes API Gateway’s own errors as problem+json with the security headers', () => {
  const responses = Object.fromEntries(
    ofType('AWS::ApiGateway::GatewayResponse').map(([, r]) => [r.Properties.ResponseType, r.Properties]),
  );
  for (const type of [
    'UNAUTHORIZED',
    'ACCESS_DENIED',
    'THROTTLED',
    'INTEGRATION_TIMEOUT',
    'AUTHORIZER_FAILURE',
    'MISSING_AUTHENTICATION_TOKEN',
    'DEFAULT_4XX',
    'DEFAULT_5XX',
  ]) {
    const response = responses[type];
    expect(response).toBeDefined();
    expect(response.ResponseParameters).toMatchObject({
      'gatewayresponse.header.Content-Type': "'application/problem+json'",
      'gatewayresponse.header.Cache-Control': "'no-store'",
      'gatewayresponse.header.X-Content-Type-Options': "'nosniff'",
      'gatewayresponse.header.Strict-Transport-Security': expect.stringMatching(/^'max-age=\d+/),
    });
    const body = JSON.parse(
      response.ResponseTemplates['application/json'].replace('$context.requestId', 'r-1').replace('$context.resourcePath', '/api/accounts'),
    );
    expect(body.status).toBe(Number(response.StatusCode));
    expect(schemaViolations('Problem', body)).toEqual([]);
  }
  // Prod allows one origin, so even the gateway's own refusals can be read by that page (and only it).
  for (const response of Object.values<any>(responses)) {
    expect(response.ResponseParameters).toMatchObject({
      'gatewayresponse.header.Access-Control-Allow-Origin': "'https://dashboard.trading-bot.example'",
      'gatewayresponse.header.Vary': "'Origin'",
    });
    expect(response.ResponseParameters).not.toHaveProperty('gatewayresponse.header.Access-Control-Allow-Credentials');
    if (['429', '503'].includes(response.StatusCode)) expect(response.ResponseParameters['gatewayresponse.header.Retry-After']).toBe("'5'");
  }
  expect(responses.UNAUTHORIZED.StatusCode).toBe('401');
  expect(responses.ACCESS_DENIED.StatusCode).toBe('403');
  expect(responses.THROTTLED.StatusCode).toBe('429');
  expect(responses.INTEGRATION_TIMEOUT.StatusCode).toBe('503');
});

it('throttles the stage and caps every function’s concurrency', () => {
  const [[, deployment]] = ofType('AWS::ApiGateway::Deployment');
  expect(deployment.Properties.StageDescription).toMatchObject({ ThrottlingRateLimit: 100, ThrottlingBurstLimit: 200 });
  // Sixteen operations, the two authorizers, the probe, the notifier, the fleet projector, the dashboard and the
  // exchange feed.
  expect(functions()).toHaveLength(23);
  for (const [id, fn] of functions()) {
    // The exchange feed's runs take turns (its limiters' state passes from one to the next).
    expect(fn.Properties.ReservedConcurrentExecutions).toBe(id === 'ExchangeFeedLambdaFunction' ? 1 : 20);
    expect(fn.Properties.Runtime).toBe('nodejs22.x');
    // Under API Gateway's 29 s; the notifier and the projector have no route: room to wait out a channel's rate limit,
    // or to fold a batch of a thousand changes; the exchange feed, to backfill (the next run resumes where it stopped).
    if (id === 'NotifierLambdaFunction' || id === 'FleetProjectorLambdaFunction') expect(fn.Properties.Timeout).toBe(60);
    else if (id === 'ExchangeFeedLambdaFunction') expect(fn.Properties.Timeout).toBe(300);
    else expect(fn.Properties.Timeout).toBeLessThan(29);
  }
});

it('allows only the configured origins in prod, never *, never with credentials', () => {
  for (const [, method] of ofType('AWS::ApiGateway::Method').filter(([, r]) => r.Properties.HttpMethod === 'OPTIONS')) {
    const [integration] = method.Properties.Integration.IntegrationResponses;
    const parameters = integration.ResponseParameters;
    // The preflight names an origin only through its template, and only the allowed one: no fixed value that a missing
    // or foreign Origin would be told. Its answer depends on the Origin, as Vary says.
    expect(parameters).not.toHaveProperty('method.response.header.Access-Control-Allow-Origin');
    expect(integration.ResponseTemplates['application/json']).toContain(
      '#if($origin.matches("https://dashboard[.]trading-bot[.]example")) #set($context.responseOverride.header.Access-Control-Allow-Origin = $origin) #end',
    );
    expect(parameters['method.response.header.Vary']).toBe("'Origin'");
    expect(method.Properties.MethodResponses[0].ResponseParameters).toMatchObject({
      'method.response.header.Access-Control-Allow-Origin': true,
      'method.response.header.Vary': true,
    });
    expect(parameters['method.response.header.Access-Control-Allow-Headers']).toBe("'Content-Type,X-Api-Key,If-None-Match'");
    expect(parameters).not.toHaveProperty('method.response.header.Access-Control-Allow-Credentials');
    // The preflight carries the security headers of every other answer.
    expect(parameters).toMatchObject({
      'method.response.header.Cache-Control': "'no-store'",
      'method.response.header.X-Content-Type-Options': "'nosniff'",
      'method.response.header.Strict-Transport-Security': "'max-age=63072000; includeSubDomains'",
    });
    expect(method.Properties.MethodResponses[0].ResponseParameters).toMatchObject({
      'method.response.header.Cache-Control': true,
      'method.response.header.Strict-Transport-Security': true,
    });
  }
  for (const [, fn] of functions())
    expect(fn.Properties.Environment.Variables.CORS_ALLOWED_ORIGINS).toBe('https://dashboard.trading-bot.example');
  expect(() =>
    execFileSync(process.execPath, [SERVERLESS, 'print', '--stage', 'prod'], {
      cwd: ROOT,
      env: { ...CLEAN_ENV, CORS_ALLOWED_ORIGINS: '*' },
      stdio: 'pipe',
    }),
  ).toThrow();
});

it('runs the probe on its schedule in AWS, and the digest daily at DIGEST_HOUR_UTC; health stays an HTTP route', () => {
  const rules = Object.fromEntries(
    ofType('AWS::Events::Rule').map(([, rule]) => [rule.Properties.Targets[0].Arn['Fn::GetAtt'][0], rule.Properties]),
  );
  expect(Object.keys(rules).sort()).toEqual(['ExchangeFeedLambdaFunction', 'NotifierLambdaFunction', 'ProbeLambdaFunction']);
  expect(rules.ExchangeFeedLambdaFunction).toMatchObject({ ScheduleExpression: 'rate(5 minutes)', State: 'ENABLED' });
  expect(rules.ProbeLambdaFunction).toMatchObject({ ScheduleExpression: 'rate(5 minutes)', State: 'ENABLED' });
  expect(rules.NotifierLambdaFunction).toMatchObject({ ScheduleExpression: 'cron(0 7 * * ? *)', State: 'ENABLED' });
  expect(JSON.parse(rules.NotifierLambdaFunction.Targets[0].Input)).toEqual({ digest: true });
});

describe('the exchange feed, scheduled (docs/operations.md)', () => {
  const feed = () => resources.ExchangeFeedLambdaFunction.Properties;
  const statementsOf = (role: string) => resources[role].Properties.Policies.flatMap((policy: any) => policy.PolicyDocument.Statement);
  const secretArn = {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: CloudFormation's Fn::Sub placeholders, not JavaScript's
    'Fn::Sub': 'arn:${AWS::Partition}:secretsmanager:${AWS::Region}:${AWS::AccountId}:secret:trading-bot-api/prod/exchange-keys-*',
  };

  it('runs its own handler with the accounts the deploy named, and the name of its keys’ secret, never a key', () => {
    expect(feed()).toMatchObject({ Handler: 'functions/exchange-feed.handler', Timeout: 300, MemorySize: 512 });
    expect(feed().Environment.Variables).toMatchObject({
      EXCHANGE_FEEDS: EXCHANGE_FEEDS,
      EXCHANGE_KEYS_SECRET_ID: 'trading-bot-api/prod/exchange-keys',
      ALERTS_TOPIC_ARN: { Ref: 'AlertsTopic' },
    });
    // Not retried: the next run resumes from the checkpoints.
    expect(
      ofType('AWS::Lambda::EventInvokeConfig').find(([, r]) => r.Properties.FunctionName.Ref === 'ExchangeFeedLambdaFunction')?.[1],
    ).toMatchObject({
      Properties: { MaximumRetryAttempts: 0 },
    });
  });

  it('alone may read the keys’ secret, scoped to its ARN; its tables as the writer’s with its Queries; the alerts topic', () => {
    const secretStatements = (role: string) =>
      statementsOf(role).filter((s: any) => s.Action.some((a: string) => a.startsWith('secretsmanager:')));
    expect(secretStatements('ExchangeFeedRole')).toEqual([
      { Effect: 'Allow', Action: ['secretsmanager:GetSecretValue'], Resource: secretArn },
    ]);
    for (const [id] of ofType('AWS::IAM::Role').filter(([id]) => id !== 'ExchangeFeedRole')) {
      expect(JSON.stringify(resources[id])).not.toContain('exchange-keys');
      for (const statement of secretStatements(id))
        expect(JSON.stringify(statement.Resource)).not.toMatch(/secret:\*|secret:trading-bot-api\/prod\/\*|"\*"/);
    }
    expect(JSON.stringify(resources.BotWriterPolicy)).not.toContain('secretsmanager');
    const arn = (table: string) => ({ 'Fn::GetAtt': [table, 'Arn'] });
    const [write, query, ...others] = statementsOf('ExchangeFeedRole').filter((s: any) =>
      s.Action.some((a: string) => a.startsWith('dynamodb:')),
    );
    expect(others).toEqual([]);
    expect(write).toEqual({
      Effect: 'Allow',
      Action: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
      Resource: ['AccountsTable', 'BalancesTable', 'TradesTable', 'LedgerTable'].map(arn),
    });
    expect(query.Action).toEqual(['dynamodb:Query']);
    expect(query.Resource.slice(0, 2)).toEqual([arn('LedgerTable'), arn('TradesTable')]);
    expect(statementsOf('ExchangeFeedRole').filter((s: any) => s.Action.includes('sns:Publish'))).toEqual([
      { Effect: 'Allow', Action: ['sns:Publish'], Resource: { Ref: 'AlertsTopic' } },
    ]);
  });

  it('is the one bundle with ccxt: the API’s bundles stay their size', () => {
    expect(packaged.exchangeFeed).toEqual(['functions/exchange-feed.js']);
    // ccxt alone is some 6 MB of code (about 1.5 MB zipped); every other function's zip was under 290 KB before the
    // feed was deployed (docs/operations.md), and stays so.
    expect(zipBytes.exchangeFeed).toBeGreaterThan(1_000_000);
    const others = Object.entries(zipBytes).filter(([name]) => name !== 'exchangeFeed');
    expect(others.length).toBe(22);
    expect(others.filter(([, bytes]) => bytes > 290_000)).toEqual([]);
  });
});

it('traces the API stage and every function with X-Ray, with no tracing SDK in the bundles', () => {
  const [[, deployment]] = ofType('AWS::ApiGateway::Deployment');
  expect(deployment.Properties.StageDescription.TracingEnabled).toBe(true);
  for (const [, fn] of functions()) expect(fn.Properties.TracingConfig).toEqual({ Mode: 'Active' });
  expect(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')).not.toMatch(
    /"node_modules\/(aws-xray-sdk-core|@aws-lambda-powertools\/tracer)"/,
  );
});

describe('alerts', () => {
  const probeMetric = (name: string) => ({
    Namespace: 'TradingBotApi',
    MetricName: name,
    Dimensions: [
      { Name: 'service', Value: 'trading-bot-api' },
      { Name: 'stage', Value: 'prod' },
    ],
  });
  const alarm = (id: string) => resources[id]?.Properties;

  it('go to one SNS topic, on alarm and on recovery', () => {
    expect(resources.AlertsTopic).toMatchObject({ Type: 'AWS::SNS::Topic', Properties: { TopicName: 'trading-bot-api-prod-alerts' } });
    expect(outputs.AlertsTopicArn.Value).toEqual({ Ref: 'AlertsTopic' });
    const alarms = ofType('AWS::CloudWatch::Alarm');
    // Errors and throttles per function, but no Errors alarm on the two authorizers (below).
    expect(alarms.length).toBe(7 + 2 * functions().length - 2);
    for (const [, { Properties }] of alarms) {
      expect(Properties.AlarmActions).toEqual([{ Ref: 'AlertsTopic' }]);
      expect(Properties.OKActions).toEqual([{ Ref: 'AlertsTopic' }]);
    }
    // No address is configured for prod in resources/stages.js: no email subscription (see the ALERT_EMAIL test);
    // the one subscriber is the notifier (below).
    expect(ofType('AWS::SNS::Subscription').filter(([, r]) => r.Properties.Protocol !== 'lambda')).toEqual([]);
  });

  it('watch the fleet through the probe’s metrics: the database, the probe itself; stale and erroring bots by name instead', () => {
    // Each bot's change reaches the topic by name from the probe (docs/alerts.md): no alarm counts them any more.
    expect(alarm('StaleBotsAlarm')).toBeUndefined();
    expect(alarm('BotsInErrorAlarm')).toBeUndefined();
    expect(alarm('DatabaseUnhealthyAlarm')).toMatchObject({
      ...probeMetric('DatabaseHealthy'),
      Statistic: 'Minimum',
      ComparisonOperator: 'LessThanThreshold',
      Threshold: 1,
    });
    expect(alarm('ProbeNotRunningAlarm')).toMatchObject({
      ...probeMetric('ProbeRuns'),
      Statistic: 'Sum',
      ComparisonOperator: 'LessThanThreshold',
      Threshold: 1,
      TreatMissingData: 'breaching',
    });
  });

  it('watch the API (5xx rate, p99 latency at the stage’s threshold) and every function’s errors and throttles', () => {
    // Refusing a key is an error to Lambda ("Unauthorized" is how a 401 is asked for): an alarm on the authorizer's
    // Errors would fire on every wrong key. Its failed lookups are 5xx answers, which the 5xx rate alarm sees.
    const authorizerErrors = Object.values(resources).find(
      (r) =>
        r.Type === 'AWS::CloudWatch::Alarm' &&
        r.Properties.MetricName === 'Errors' &&
        ['AuthorizerLambdaFunction', 'MetricsDashauthorizerLambdaFunction'].includes(r.Properties.Dimensions[0].Value.Ref),
    );
    expect(authorizerErrors).toBeUndefined();
    const api = [
      { Name: 'ApiName', Value: 'prod-trading-bot-api' },
      { Name: 'Stage', Value: 'prod' },
    ];
    expect(alarm('Api5xxRateAlarm')).toMatchObject({
      Namespace: 'AWS/ApiGateway',
      MetricName: '5XXError',
      Dimensions: api,
      Statistic: 'Average',
      Threshold: 0.05,
      TreatMissingData: 'notBreaching',
    });
    expect(alarm('ApiLatencyP99Alarm')).toMatchObject({
      Namespace: 'AWS/ApiGateway',
      MetricName: 'Latency',
      Dimensions: api,
      ExtendedStatistic: 'p99',
      Threshold: 1000,
    });
    expect(resources.RestApiName ?? resources.ApiGatewayRestApi.Properties.Name).toBe('prod-trading-bot-api');
    for (const [id] of functions()) {
      const key = id.replace(/LambdaFunction$/, '');
      const errors = Object.values(resources).find(
        (r) => r.Type === 'AWS::CloudWatch::Alarm' && r.Properties.MetricName === 'Errors' && r.Properties.Dimensions[0].Value.Ref === id,
      );
      const throttles = Object.values(resources).find(
        (r) =>
          r.Type === 'AWS::CloudWatch::Alarm' && r.Properties.MetricName === 'Throttles' && r.Properties.Dimensions[0].Value.Ref === id,
      );
      if (key !== 'Authorizer' && key !== 'MetricsDashauthorizer')
        expect([key, errors?.Properties]).toEqual([
          key,
          expect.objectContaining({ Namespace: 'AWS/Lambda', Statistic: 'Sum', Threshold: 0, ComparisonOperator: 'GreaterThanThreshold' }),
        ]);
      expect([key, throttles?.Properties]).toEqual([
        key,
        expect.objectContaining({ Namespace: 'AWS/Lambda', Statistic: 'Sum', Threshold: 0 }),
      ]);
    }
  });

  it('and a dashboard shows the probe’s metrics and each function’s requests, errors and latency', () => {
    const body = JSON.parse(resources.OperationsDashboard.Properties.DashboardBody['Fn::Sub']);
    const titles = body.widgets.map((widget: any) => widget.properties.title);
    expect(titles).toEqual(
      expect.arrayContaining(['Bots by state (probe)', 'Requests per function', 'Errors per function', 'Duration per function, p99 (ms)']),
    );
    const text = JSON.stringify(body);
    for (const name of ['StaleBots', 'BotsInError', 'DatabaseHealthy', 'ProbeRuns', 'ProbeLatencyMs', 'OldestHeartbeatAgeSeconds'])
      expect(text).toContain(name);
    for (const [, fn] of functions()) expect(text).toContain(fn.Properties.FunctionName);
  });

  it('reach an email address when the stage names one', () => {
    // ALERT_EMAIL through the settings serverless.yml reads (resources/stages.js) into the builder of the alert
    // resources the package's plugin adds (resources/observability.js): the same topic as the package above, and
    // its email subscription. A package of its own for it would cost the run some 8 CPU-seconds.
    const settings = stages.stageSettings('prod', { ...CLEAN_ENV, ALERT_EMAIL: 'ops@trading-bot.example' });
    const alerts = alertResources(settings, 'prod');
    expect(alerts.AlertsTopic).toEqual(resources.AlertsTopic);
    expect(alerts.AlertsEmailSubscription).toEqual({
      Type: 'AWS::SNS::Subscription',
      Properties: { TopicArn: { Ref: 'AlertsTopic' }, Protocol: 'email', Endpoint: 'ops@trading-bot.example' },
    });
    expect(alertResources(stages.stageSettings('prod', CLEAN_ENV), 'prod').AlertsEmailSubscription).toBeUndefined();
  });
});

it('keeps logs for a set time and secrets out of the package', () => {
  const logGroups = ofType('AWS::Logs::LogGroup');
  expect(logGroups).toHaveLength(23);
  for (const [, group] of logGroups) expect(group.Properties.RetentionInDays).toBe(90);
  for (const [, fn] of functions()) {
    const env = fn.Properties.Environment.Variables;
    expect(env.CURSOR_SECRET).toBe('{{resolve:secretsmanager:trading-bot-api/prod/cursor-secret}}');
    expect(env.AUTH_MODE).toBe('required');
    expect(env.DYNAMODB_ENDPOINT).toBe('');
  }
});

it('documents every problem code the gateway can send', () => {
  const documented = JSON.stringify(openapi.components.schemas.Problem);
  for (const code of ['UNAUTHORIZED', 'FORBIDDEN', 'TOO_MANY_REQUESTS', 'SERVICE_UNAVAILABLE', 'NOT_FOUND', 'INVALID_PARAMETER'])
    expect(documented).toContain(code);
});

it('packs the dashboard’s built files with the dashboard function only, and serves them from the API’s origin, gzipped', () => {
  expect(packaged.dashboard).toEqual(expect.arrayContaining(['functions/dashboard.js', 'dashboard/dist/index.html']));
  expect(packaged.dashboard.filter((name) => /^dashboard\/dist\/assets\/index-[\w-]+\.(js|css)$/.test(name))).toHaveLength(2);
  expect(packaged.health.filter((name) => name.startsWith('dashboard/'))).toEqual([]);
  expect(resources.ApiGatewayRestApi.Properties.MinimumCompressionSize).toBe(1024);
});

describe('the notifier (docs/alerts.md)', () => {
  const notifier = () => resources.NotifierLambdaFunction;

  it('hears the alerts topic, and the probe publishes there', () => {
    expect(ofType('AWS::SNS::Subscription')).toEqual([
      [
        expect.any(String),
        expect.objectContaining({
          Properties: {
            TopicArn: { Ref: 'AlertsTopic' },
            Protocol: 'lambda',
            Endpoint: { 'Fn::GetAtt': ['NotifierLambdaFunction', 'Arn'] },
          },
        }),
      ],
    ]);
    const permission = ofType('AWS::Lambda::Permission').find(([, p]) => p.Properties.Principal === 'sns.amazonaws.com')![1];
    expect(permission.Properties).toMatchObject({
      FunctionName: { 'Fn::GetAtt': ['NotifierLambdaFunction', 'Arn'] },
      SourceArn: { Ref: 'AlertsTopic' },
    });
    const probe = resources.ProbeLambdaFunction.Properties.Environment.Variables;
    expect(probe.ALERTS_TOPIC_ARN).toEqual({ Ref: 'AlertsTopic' });
    expect(probe.ALERTS_TABLE).toBe('trading-bot-api-prod-alerts');
    // Links lead to the stage's URL, the dashboard's, unless DASHBOARD_URL named one at deploy.
    const url = { 'Fn::Sub': `https://\${ApiGatewayRestApi}.execute-api.\${AWS::Region}.\${AWS::URLSuffix}/prod/` };
    expect(probe.DASHBOARD_URL).toEqual(url);
    expect(notifier().Properties.Environment.Variables.DASHBOARD_URL).toEqual(url);
  });

  it('hands an event it could not deliver to its on-failure queue, without retrying, and that queue is alarmed on', () => {
    const [[, config]] = ofType('AWS::Lambda::EventInvokeConfig');
    expect(config.Properties).toEqual({
      FunctionName: { Ref: 'NotifierLambdaFunction' },
      Qualifier: '$LATEST',
      // A retry would repeat the message on every channel that took it.
      MaximumRetryAttempts: 0,
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': ['AlertsFailedQueue', 'Arn'] } } },
    });
    expect(resources.AlertsFailedQueue).toMatchObject({
      Type: 'AWS::SQS::Queue',
      Properties: { QueueName: 'trading-bot-api-prod-alerts-failed', MessageRetentionPeriod: 1209600, SqsManagedSseEnabled: true },
    });
    expect(resources.AlertsFailedQueueAlarm.Properties).toMatchObject({
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': ['AlertsFailedQueue', 'QueueName'] } }],
      ComparisonOperator: 'GreaterThanThreshold',
      Threshold: 0,
      AlarmActions: [{ Ref: 'AlertsTopic' }],
    });
    expect(resources.AlertDeliveryFailuresAlarm.Properties).toMatchObject({
      Namespace: 'TradingBotApi',
      MetricName: 'AlertDeliveryFailures',
      Dimensions: [
        { Name: 'service', Value: 'trading-bot-api' },
        { Name: 'stage', Value: 'prod' },
      ],
      Statistic: 'Sum',
      Threshold: 0,
      AlarmActions: [{ Ref: 'AlertsTopic' }],
    });
  });

  it('holds only references to the channels’ secrets, never a value, whatever the deploying shell holds', () => {
    const variables = notifier().Properties.Environment.Variables;
    const names = { ALERT_PARAMETERS_PATH: '/trading-bot-api/prod/alerts', ALERT_SECRET_ID: 'trading-bot-api/prod/alerts' };
    expect(variables).toMatchObject({ ...names, DIGEST_HOUR_UTC: '7' });
    // The probe reads the P&L alerts' rules from the same places, and knows its schedule's interval.
    expect(resources.ProbeLambdaFunction.Properties.Environment.Variables).toMatchObject({ ...names, PROBE_INTERVAL_SECONDS: '300' });
    for (const [, fn] of functions())
      for (const name of Object.keys(ALERT_SECRETS)) expect(fn.Properties.Environment.Variables).not.toHaveProperty(name);
    for (const value of Object.values(ALERT_SECRETS)) expect(templateText).not.toContain(value);
    expect(templateText).not.toContain('SENTINEL');
  });

  it('gives the probe and the notifier each only what its alerts need', () => {
    const statementsOf = (role: string) => resources[role].Properties.Policies.flatMap((policy: any) => policy.PolicyDocument.Statement);
    const beyondReading = (role: string) =>
      statementsOf(role).filter(
        (statement: any) =>
          !statement.Action.every((action: string) =>
            ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:BatchGetItem', 'dynamodb:Scan'].includes(action),
          ) || JSON.stringify(statement.Resource).includes('AlertsTable'),
      );
    // CloudFormation's own placeholders (\${...}) in an ARN of this account and region.
    const sub = (service: string, path: string) => ({
      'Fn::Sub': `arn:\${AWS::Partition}:${service}:\${AWS::Region}:\${AWS::AccountId}:${path}`,
    });
    // Both read the alerts' settings: the notifier its channels, the probe the P&L alerts' rules.
    const readSettings = [
      {
        Effect: 'Allow',
        Action: ['ssm:GetParametersByPath'],
        Resource: [sub('ssm', 'parameter/trading-bot-api/prod/alerts'), sub('ssm', 'parameter/trading-bot-api/prod/alerts/*')],
      },
      {
        Effect: 'Allow',
        Action: ['secretsmanager:GetSecretValue'],
        Resource: sub('secretsmanager', 'secret:trading-bot-api/prod/alerts-*'),
      },
    ];
    expect(beyondReading('ProbeRole')).toEqual([
      {
        Effect: 'Allow',
        Action: ['dynamodb:Scan', 'dynamodb:PutItem', 'dynamodb:DeleteItem'],
        Resource: { 'Fn::GetAtt': ['AlertsTable', 'Arn'] },
      },
      ...readSettings,
      { Effect: 'Allow', Action: ['sns:Publish'], Resource: { Ref: 'AlertsTopic' } },
      { Effect: 'Allow', Action: ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'], Resource: '*' },
      {
        Effect: 'Allow',
        Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        Resource: sub('logs', 'log-group:/aws/lambda/trading-bot-api-prod-probe:*'),
      },
    ]);
    expect(beyondReading('NotifierRole')).toEqual([
      ...readSettings,
      { Effect: 'Allow', Action: ['sqs:SendMessage'], Resource: { 'Fn::GetAtt': ['AlertsFailedQueue', 'Arn'] } },
      { Effect: 'Allow', Action: ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'], Resource: '*' },
      {
        Effect: 'Allow',
        Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        Resource: sub('logs', 'log-group:/aws/lambda/trading-bot-api-prod-notifier:*'),
      },
    ]);
    // Only the probe writes the alerts table; nothing else of the stack reaches it.
    for (const [id, role] of ofType('AWS::IAM::Role'))
      if (id !== 'ProbeRole') expect([id, JSON.stringify(role)]).toEqual([id, expect.not.stringContaining('AlertsTable')]);
    expect(resources.AlertsTable.Properties.KeySchema).toEqual([{ AttributeName: 'subject', KeyType: 'HASH' }]);
    expect(JSON.stringify(resources.BotWriterPolicy)).not.toContain('AlertsTable');
  });
});
