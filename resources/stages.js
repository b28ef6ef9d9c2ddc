// Per-stage settings, in one place: serverless.yml reads them through `${file(./resources/stages.js)}`.
// Any stage not listed gets `default`; an environment variable of the same name in SCREAMING_SNAKE_CASE
// overrides a value at deploy time (e.g. CORS_ALLOWED_ORIGINS=https://a.example,https://b.example).
'use strict';

const STAGES = {
  default: {
    corsAllowedOrigins: '*',
    throttleRateLimit: 50,
    throttleBurstLimit: 100,
    reservedConcurrency: 10,
    logRetentionInDays: 14,
    authorizerCacheTtl: 300,
    memorySize: 256,
  },
  prod: {
    corsAllowedOrigins: 'https://dashboard.trading-bot.example',
    throttleRateLimit: 100,
    throttleBurstLimit: 200,
    reservedConcurrency: 20,
    logRetentionInDays: 90,
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
  if (stage === 'prod' && settings.corsAllowedOrigins.split(',').includes('*')) {
    throw new Error('stages: CORS_ALLOWED_ORIGINS must list origins in prod, never "*"');
  }
  settings.corsOrigins = settings.corsAllowedOrigins.split(',').map((origin) => origin.trim());
  return settings;
}

module.exports = async ({ resolveVariable }) => stageSettings(await resolveVariable('sls:stage'));
module.exports.stageSettings = stageSettings;
