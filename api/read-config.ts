import stages from '../resources/stages.js';
import tables from '../resources/tables.js';
import { DEFAULT_STALE_AFTER_SECONDS } from '@trading-bot-api/core/status';
import type { Tables } from '@trading-bot-api/core/tables';

type LogLevel = 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
const LOG_LEVELS: readonly LogLevel[] = ['DEBUG', 'INFO', 'WARN', 'ERROR'];

type Env = Record<string, string | undefined>;

export function required(env: Env, name: string): string {
  const value = env[name];
  if (!value) throw new Error(`configuration: environment variable ${name} is required`);
  return value;
}

export function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new Error(`configuration: ${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return Number(raw);
}

/**
 * Configuration, as read from an environment: a pure parse, so the rules can be tested without a function's
 * environment; config.ts reads this process's once, when a function's module loads.
 */
export type Config = ReturnType<typeof readConfig>;

/**
 * Parses the environment into a Config; throws on the first missing or invalid variable. What serverless.yml sets
 * comes from resources/stages.js; a variable left unset falls back to that file's defaults too.
 */
export function readConfig(env: Env) {
  // `required`: every data request must carry an authorizer context; `off`: no keys, every account visible.
  const authMode = env.AUTH_MODE ?? 'required';
  if (authMode !== 'required' && authMode !== 'off') {
    throw new Error(`configuration: AUTH_MODE must be "required" or "off", got "${authMode}"`);
  }
  // The HMAC key of pagination cursors.
  const cursorSecret = required(env, 'CURSOR_SECRET');
  const secretProblem = stages.cursorSecretProblem(cursorSecret);
  if (secretProblem) throw new Error(`configuration: ${secretProblem}`);
  // The least severe level logged.
  const logLevel = (env.LOG_LEVEL || 'INFO').toUpperCase() as LogLevel;
  if (!LOG_LEVELS.includes(logLevel))
    throw new Error(`configuration: LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${env.LOG_LEVEL}"`);
  // The currency every NAV is also given in on GET /api/all/balance (1.8); undefined: none.
  const reportingCurrency = env.REPORTING_CURRENCY || undefined;
  if (reportingCurrency && !/^[A-Z0-9]{2,12}$/.test(reportingCurrency))
    throw new Error(`configuration: REPORTING_CURRENCY must be a currency code such as USD, got "${reportingCurrency}"`);
  const tableNames = Object.fromEntries(tables.ROLES.map((role) => [role, required(env, tables.tableVariable(role))]));
  return {
    tables: tableNames as Record<keyof Tables, string>,
    // Set only for DynamoDB Local (local runs, tests, benchmark); unset in AWS.
    dynamodbEndpoint: env.DYNAMODB_ENDPOINT || undefined,
    region: env.AWS_REGION || required(env, 'AWS_DEFAULT_REGION'),
    // Per attempt: a refused or unroutable endpoint fails in connectTimeoutMs, a hung one in requestTimeoutMs;
    // with maxAttempts and the SDK's backoff the worst case stays inside the 10 s function timeout.
    dynamodb: {
      connectTimeoutMs: integer(env, 'DYNAMODB_CONNECT_TIMEOUT_MS', 500, 10, 10000),
      requestTimeoutMs: integer(env, 'DYNAMODB_REQUEST_TIMEOUT_MS', 1500, 10, 10000),
      maxAttempts: integer(env, 'DYNAMODB_MAX_ATTEMPTS', 3, 1, 5),
    },
    cursorSecret,
    // A running bot whose last heartbeat is older than this is reported `stale`.
    staleAfterSeconds: integer(env, 'STALE_AFTER_SECONDS', DEFAULT_STALE_AFTER_SECONDS, 1, 86400),
    reportingCurrency,
    // Origins allowed by CORS; `*` allows any origin (never with credentials).
    corsAllowedOrigins: (env.CORS_ALLOWED_ORIGINS ?? '')
      .split(',')
      .map((origin) => origin.trim())
      .filter(Boolean),
    authMode,
    // Seconds a client is told to wait after a 503.
    retryAfterSeconds: integer(env, 'RETRY_AFTER_SECONDS', stages.DEFAULTS.retryAfterSeconds, 1, 3600),
    // The deployed stage's name (a dimension of every metric, a key of every log line).
    stage: required(env, 'STAGE'),
    logLevel,
  };
}
