// Per-stage settings, in one place: serverless.yml reads them through `${file(./resources/stages.js)}`.
// Any stage not listed gets `default`; an environment variable of the same name in SCREAMING_SNAKE_CASE
// overrides a value at deploy time (e.g. CORS_ALLOWED_ORIGINS=https://a.example,https://b.example).
'use strict';

const fs = require('node:fs');
const path = require('node:path');

const STAGES = {
  default: {
    // Pages served from this machine (a dashboard's development server on any port), never any site.
    corsAllowedOrigins: 'http://localhost,http://localhost:*,http://127.0.0.1,http://127.0.0.1:*',
    throttleRateLimit: 50,
    throttleBurstLimit: 100,
    reservedConcurrency: 10,
    logRetentionInDays: 14,
    authorizerCacheTtl: 300,
    memorySize: 256,
    // Seconds a client is told to wait after a 503 or 429, by the functions and by API Gateway alike.
    retryAfterSeconds: 5,
    authMode: 'required',
    // A running bot silent for longer than this is reported stale (the status and the probe alike).
    staleAfterSeconds: 300,
    // Where the alarms are sent by email (an SNS subscription the recipient confirms); none when empty.
    alertEmail: '',
    // The API's p99 latency above which its alarm fires.
    latencyP99Ms: 2000,
    // The hour (UTC) the daily digest is sent at (docs/alerts.md).
    digestHourUtc: 7,
    // The currency GET /api/all/balance also gives every NAV in (`reporting`, docs/operations.md); none when empty.
    reportingCurrency: '',
  },
  // `npm start`'s stage. `serverless invoke local --stage local` reaches the same database (DB_PORT) with the same
  // cursor secret, and with keys off as `npm start` has them unless AUTH=on.
  local: {
    authMode: 'off',
    // The demo bot's lapsing heartbeat turns stale within a minute and a half, not after five.
    staleAfterSeconds: 60,
  },
  prod: {
    corsAllowedOrigins: 'https://dashboard.trading-bot.example',
    throttleRateLimit: 100,
    throttleBurstLimit: 200,
    reservedConcurrency: 20,
    logRetentionInDays: 90,
    latencyP99Ms: 1000,
  },
};

function toEnvName(name) {
  return name.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase();
}

/** The settings of `stage`, with environment overrides applied. */
function stageSettings(stage, env = process.env) {
  const settings = { ...STAGES.default, ...(STAGES[stage] || {}) };
  for (const name of Object.keys(settings)) {
    const override = env[toEnvName(name)];
    if (override !== undefined && override !== '') {
      settings[name] = typeof settings[name] === 'number' ? Number(override) : override;
    }
  }
  if (!Number.isInteger(settings.digestHourUtc) || settings.digestHourUtc < 0 || settings.digestHourUtc > 23) {
    throw new Error(`stages: DIGEST_HOUR_UTC must be an hour from 0 to 23, got "${settings.digestHourUtc}"`);
  }
  if (stage === 'prod' && settings.corsAllowedOrigins.split(',').includes('*')) {
    throw new Error('stages: CORS_ALLOWED_ORIGINS must list origins in prod, never "*"');
  }
  settings.corsOrigins = settings.corsAllowedOrigins.split(',').map((origin) => origin.trim());
  // In AWS the SDK's own endpoint, and the secret resolved by CloudFormation at deploy time (never in the package).
  settings.dynamodbEndpoint = stage === 'local' ? `http://127.0.0.1:${env.DB_PORT || 8000}` : '';
  settings.cursorSecret = (stage === 'local' && localCursorSecret()) || `{{resolve:secretsmanager:trading-bot-api/${stage}/cursor-secret}}`;
  // Where the probe reads the P&L alerts' rules beside the environment (docs/alerts.md); none under npm start, whose
  // environment holds them.
  settings.alertSecretId = stage === 'local' ? '' : `trading-bot-api/${stage}/alerts`;
  settings.alertParametersPath = stage === 'local' ? '' : `/trading-bot-api/${stage}/alerts`;
  return settings;
}

/**
 * What is wrong with a cursor secret, or undefined when nothing is. CloudFormation resolves the `{{resolve:…}}`
 * reference at deploy time: seen as-is it means nothing resolved it, and a publicly known text would sign cursors.
 * @param {unknown} secret
 * @returns {string | undefined}
 */
function cursorSecretProblem(secret) {
  if (typeof secret !== 'string' || secret === '') return 'CURSOR_SECRET is required';
  if (secret.startsWith('{{resolve:')) return 'CURSOR_SECRET is an unresolved reference';
  if (secret.length < 32) return 'CURSOR_SECRET must be at least 32 characters';
  return undefined;
}

/** The cursor secret `npm start` keeps in .data/ (scripts/start.ts), if it has run. */
function localCursorSecret() {
  const file = path.join(__dirname, '..', '.data', 'cursor-secret');
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim() : undefined;
}

module.exports = async ({ resolveVariable }) => stageSettings(await resolveVariable('sls:stage'));
module.exports.stageSettings = stageSettings;
module.exports.DEFAULTS = STAGES.default;
module.exports.cursorSecretProblem = cursorSecretProblem;
