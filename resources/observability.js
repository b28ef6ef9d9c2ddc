// A local Serverless plugin: what operators watch, added to the packaged template from the functions it compiled
// and the stage's settings (resources/stages.js), so every function and route is covered without listing them twice:
//
// - an SNS topic for alerts (with an email subscription when the stage names an address); every alarm notifies it
//   when it fires and when it recovers, and the probe publishes each bot's change there by name (docs/alerts.md),
//   which is why no alarm counts stale or erroring bots any more ("StaleBots > 0" named no bot);
// - alarms on the probe's metrics (the database unhealthy; the probe not running, where missing data counts as
//   breaching), on the API's 5xx rate and p99 latency, on each function's errors (but the authorizer's, below) and
//   throttles, and on the alerts themselves: messages a channel did not take, and events in the on-failure queue; and on
//   the fleet projector's on-failure queue;
// - the alerts' wiring that exists only in AWS: the topic's ARN in the probe's environment, and the stage's URL
//   (for the alerts' links to the dashboard) where DASHBOARD_URL was not given at deploy;
// - a CloudWatch dashboard: the probe's metrics, the API's requests and latency, and each function's invocations,
//   errors and duration.
'use strict';

const NAMESPACE = 'TradingBotApi';
const SERVICE = 'trading-bot-api';
const PERIOD = 300;

function addResources(serverless) {
  const { service } = serverless;
  const settings = service.custom.stage;
  const stage = service.provider.stage;
  const template = service.provider.compiledCloudFormationTemplate;
  const naming = serverless.getProvider('aws').naming;
  // An authorizer tells API Gateway to answer 401 by failing with "Unauthorized": Lambda counts every refused key
  // among its Errors, so no Errors alarm watches it (a failed key lookup is a 5xx, which Api5xxRate watches).
  const authorizers = new Set(
    service.getAllFunctions().flatMap((key) =>
      service
        .getAllEventsInFunction(key)
        .map((event) => event.http?.authorizer?.name)
        .filter(Boolean),
    ),
  );
  const functions = service.getAllFunctions().map((key) => ({
    key,
    logicalId: naming.getLambdaLogicalId(key),
    name: service.getFunction(key).name,
    authorizer: authorizers.has(key),
  }));
  Object.assign(
    template.Resources,
    alertResources(settings, stage),
    alarmResources(settings, stage, functions),
    dashboardResource(stage, functions),
  );
  wireAlerts(template, stage, naming);
  template.Outputs = {
    ...template.Outputs,
    AlertsTopicArn: { Description: 'Subscribe to this topic for the alarms.', Value: { Ref: 'AlertsTopic' } },
  };
}

/**
 * The alert topic, and its email subscription when the stage names an address.
 * @returns {Record<string, any>}
 */
function alertResources(settings, stage) {
  const resources = {
    AlertsTopic: {
      Type: 'AWS::SNS::Topic',
      Properties: { TopicName: `${SERVICE}-${stage}-alerts`, DisplayName: `Trading Bot API ${stage} alerts` },
    },
  };
  if (settings.alertEmail) {
    resources.AlertsEmailSubscription = {
      Type: 'AWS::SNS::Subscription',
      Properties: { TopicArn: { Ref: 'AlertsTopic' }, Protocol: 'email', Endpoint: settings.alertEmail },
    };
  }
  return resources;
}

function alarm(description, metric, rule) {
  return {
    Type: 'AWS::CloudWatch::Alarm',
    Properties: {
      AlarmDescription: description,
      ...metric,
      Period: PERIOD,
      ...rule,
      AlarmActions: [{ Ref: 'AlertsTopic' }],
      OKActions: [{ Ref: 'AlertsTopic' }],
    },
  };
}

function alarmResources(settings, stage, functions) {
  const dimensions = [
    { Name: 'service', Value: SERVICE },
    { Name: 'stage', Value: stage },
  ];
  const probe = (MetricName, Statistic) => ({ Namespace: NAMESPACE, MetricName, Dimensions: dimensions, Statistic });
  const api = (MetricName) => ({
    Namespace: 'AWS/ApiGateway',
    MetricName,
    Dimensions: [
      { Name: 'ApiName', Value: `${stage}-${SERVICE}` },
      { Name: 'Stage', Value: stage },
    ],
  });
  const queueDepth = (queue) => ({
    Namespace: 'AWS/SQS',
    MetricName: 'ApproximateNumberOfMessagesVisible',
    Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queue, 'QueueName'] } }],
    Statistic: 'Maximum',
  });
  const rule = (ComparisonOperator) => (threshold, periods, missing) => ({
    ComparisonOperator,
    Threshold: threshold,
    EvaluationPeriods: periods,
    DatapointsToAlarm: periods,
    TreatMissingData: missing,
  });
  const [anyAbove, below] = [rule('GreaterThanThreshold'), rule('LessThanThreshold')];
  const resources = {
    // Its changes are the alerts' database_down and database_up (api/alerts/events.ts knows it by this name): the
    // probe cannot record the database's state in the database, so this alarm keeps it.
    DatabaseUnhealthyAlarm: alarm('The probe could not read DynamoDB.', probe('DatabaseHealthy', 'Minimum'), below(1, 1, 'notBreaching')),
    ProbeNotRunningAlarm: alarm(
      'The scheduled probe has not reported for two of its periods: nothing watches the bots.',
      probe('ProbeRuns', 'Sum'),
      below(1, 2, 'breaching'),
    ),
    Api5xxRateAlarm: alarm(
      'More than 5 % of the API’s answers are 5xx.',
      { ...api('5XXError'), Statistic: 'Average' },
      anyAbove(0.05, 1, 'notBreaching'),
    ),
    AlertDeliveryFailuresAlarm: alarm(
      'A channel (Telegram, Discord, Slack, webhook) did not take an alert after its retries; the notifier logged why once.',
      probe('AlertDeliveryFailures', 'Sum'),
      anyAbove(0, 1, 'notBreaching'),
    ),
    AlertsFailedQueueAlarm: alarm(
      'Alert events wait in the on-failure queue (trading-bot-api-<stage>-alerts-failed): read them, then purge it.',
      queueDepth('AlertsFailedQueue'),
      anyAbove(0, 1, 'notBreaching'),
    ),
    ProjectorFailedQueueAlarm: alarm(
      'Stream records the fleet projector gave up on wait in trading-bot-api-<stage>-projector-failed: the fleet answers may be wrong until `npm run backfill -- --fleet` (docs/operations.md).',
      queueDepth('ProjectorFailedQueue'),
      anyAbove(0, 1, 'notBreaching'),
    ),
    ApiLatencyP99Alarm: alarm(
      `The API’s p99 latency is above ${settings.latencyP99Ms} ms for 15 minutes.`,
      { ...api('Latency'), ExtendedStatistic: 'p99' },
      anyAbove(settings.latencyP99Ms, 3, 'notBreaching'),
    ),
  };
  for (const fn of functions) {
    const metric = (MetricName) => ({
      Namespace: 'AWS/Lambda',
      MetricName,
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: fn.logicalId } }],
      Statistic: 'Sum',
    });
    const id = fn.key
      .split('-')
      .map((part) => part[0].toUpperCase() + part.slice(1))
      .join('');
    if (!fn.authorizer)
      resources[`${id}ErrorsAlarm`] = alarm(
        `The ${fn.key} function failed (an error its own code did not turn into an answer).`,
        metric('Errors'),
        anyAbove(0, 1, 'notBreaching'),
      );
    resources[`${id}ThrottlesAlarm`] = alarm(
      `Invocations of the ${fn.key} function were throttled (reserved concurrency reached).`,
      metric('Throttles'),
      anyAbove(0, 1, 'notBreaching'),
    );
  }
  return resources;
}

/**
 * What the alerts need that only the deployed stack has: the probe publishes to the alerts topic, and links point to
 * the stage's URL (the dashboard's) unless DASHBOARD_URL named one, e.g. a custom domain. Set here, not in
 * serverless.yml, because serverless offline would hand the functions these CloudFormation references unresolved.
 */
function wireAlerts(template, stage, naming) {
  const environmentOf = (key) => template.Resources[naming.getLambdaLogicalId(key)]?.Properties.Environment.Variables;
  for (const key of ['probe', 'exchangeFeed']) {
    const variables = environmentOf(key);
    if (variables) variables.ALERTS_TOPIC_ARN = { Ref: 'AlertsTopic' };
  }
  for (const key of ['probe', 'notifier', 'exchangeFeed']) {
    const variables = environmentOf(key);
    if (variables && !variables.DASHBOARD_URL)
      variables.DASHBOARD_URL = {
        'Fn::Sub': `https://\${ApiGatewayRestApi}.execute-api.\${AWS::Region}.\${AWS::URLSuffix}/${stage}/`,
      };
  }
}

function dashboardResource(stage, functions) {
  const probeMetric = (name, extra = {}) => [NAMESPACE, name, 'service', SERVICE, 'stage', stage, extra];
  const apiMetric = (name, extra = {}) => ['AWS/ApiGateway', name, 'ApiName', `${stage}-${SERVICE}`, 'Stage', stage, extra];
  const widget = (title, metrics, x, y) => ({
    type: 'metric',
    x,
    y,
    width: 8,
    height: 6,
    // biome-ignore lint/suspicious/noTemplateCurlyInString: CloudFormation's Fn::Sub placeholder, filled in at deploy time.
    properties: { title, metrics, period: PERIOD, region: '${AWS::Region}', view: 'timeSeries' },
  });
  const perFunction = (name, stat) =>
    functions.map((fn) => [
      'AWS/Lambda',
      name,
      'FunctionName',
      fn.name,
      { stat, label: fn.authorizer && name === 'Errors' ? `${fn.key} (refused keys)` : fn.key },
    ]);
  // Three widgets a row, left to right, in this order.
  const widgets = [
    [
      'Bots by state (probe)',
      ['BotsRunning', 'BotsPaused', 'BotsStopped', 'BotsInError'].map((name) => probeMetric(name, { stat: 'Maximum' })),
    ],
    [
      'Stale bots and oldest heartbeat (s)',
      [probeMetric('StaleBots', { stat: 'Maximum' }), probeMetric('OldestHeartbeatAgeSeconds', { stat: 'Maximum', yAxis: 'right' })],
    ],
    [
      'Database and probe',
      [
        probeMetric('DatabaseHealthy', { stat: 'Minimum' }),
        probeMetric('ProbeRuns', { stat: 'Sum' }),
        probeMetric('ProbeLatencyMs', { stat: 'Maximum', yAxis: 'right' }),
      ],
    ],
    [
      'API requests and errors',
      [apiMetric('Count', { stat: 'Sum' }), apiMetric('4XXError', { stat: 'Sum' }), apiMetric('5XXError', { stat: 'Sum' })],
    ],
    ['API latency (ms)', [apiMetric('Latency', { stat: 'p50' }), apiMetric('Latency', { stat: 'p99' })]],
    ['Requests per function', perFunction('Invocations', 'Sum')],
    ['Errors per function', perFunction('Errors', 'Sum')],
    ['Throttles per function', perFunction('Throttles', 'Sum')],
    ['Duration per function, p99 (ms)', perFunction('Duration', 'p99')],
  ];
  const body = { widgets: widgets.map(([title, metrics], i) => widget(title, metrics, (i % 3) * 8, Math.floor(i / 3) * 6)) };
  return {
    OperationsDashboard: {
      Type: 'AWS::CloudWatch::Dashboard',
      Properties: { DashboardName: `${SERVICE}-${stage}`, DashboardBody: { 'Fn::Sub': JSON.stringify(body) } },
    },
  };
}

module.exports = require('./plugin')({ 'before:package:finalize': addResources });
// The alert resources of a stage's settings, for the packaged template's test of ALERT_EMAIL.
module.exports.alertResources = alertResources;
