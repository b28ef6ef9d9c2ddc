// The scheduled exchange feed's settings per stage (docs/operations.md, "Deployed"), read by serverless.yml through
// `${file(./resources/exchange-feeds.js):settings}`. Apart from resources/stages.js, which the API's functions bundle: what
// only the feed needs adds nothing to their bundles. An environment variable of the same name in SCREAMING_SNAKE_CASE
// overrides a value at deploy time (EXCHANGE_FEEDS='[{"exchange":"binance","account":"bn-main"}]').
'use strict';

const { allow, arnOf, indexArns, writerStatement } = require('./tables');

const DEFAULTS = {
  // The exchange accounts the feed mirrors: a JSON list of the config file's accounts without their keys, which are
  // in the secret `trading-bot-api/<stage>/exchange-keys`. None when empty: the schedule is then off.
  exchangeFeeds: '',
  // How often it runs (an EventBridge schedule expression).
  exchangeFeedRate: 'rate(5 minutes)',
};

function parsedOrNull(text) {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** The feed's settings of `stage`, with environment overrides applied. */
function exchangeFeedSettings(stage, env = process.env) {
  const settings = { ...DEFAULTS };
  if (env.EXCHANGE_FEEDS) settings.exchangeFeeds = env.EXCHANGE_FEEDS;
  if (env.EXCHANGE_FEED_RATE) settings.exchangeFeedRate = env.EXCHANGE_FEED_RATE;
  if (settings.exchangeFeeds && !Array.isArray(parsedOrNull(settings.exchangeFeeds)))
    throw new Error(
      'exchange feeds: EXCHANGE_FEEDS must be a JSON list of exchange accounts, e.g. [{"exchange":"binance","account":"bn-main"}]',
    );
  // Scheduled only with accounts to mirror, and never in local runs (SCHEDULES=false), as the probe.
  settings.enabled = settings.exchangeFeeds !== '' && env.SCHEDULES !== 'false';
  settings.keysSecretId = `trading-bot-api/${stage}/exchange-keys`;
  return settings;
}

module.exports = {
  // Entry points for serverless.yml's `${file(./resources/exchange-feeds.js):...}`.
  settings: async ({ resolveVariable }) => exchangeFeedSettings(await resolveVariable('sls:stage')),
};

/**
 * The scheduled exchange feed's table permissions: the writer's (as the bots' policy: reads of its read-modify-writes
 * and the writes of its transactions, on the data tables the writer keeps) and the Queries of the feed itself: its
 * checkpoints and the fills it reconciles with (ledger), the reconciled bot's trades and instruments (trades and
 * their indexes). Nothing on the api-keys or fleet tables, no Scan, no delete.
 */
module.exports.statements = async () => [
  writerStatement(),
  allow(['dynamodb:Query'], [arnOf('ledger'), arnOf('trades'), ...indexArns('trades')]),
];
