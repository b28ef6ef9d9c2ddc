/**
 * `npm run digest -- [--send] [--stage NAME] [--endpoint URL]`
 *
 * The daily digest of yesterday (UTC), as the notifier sends it every day at DIGEST_HOUR_UTC: printed, and with
 * --send also sent to every configured channel (ALERT_* variables; with --stage, also that stage's secret and
 * parameters). Its figures are the API's own answers (api/alerts/digest.ts). Locally it reads `npm start`'s database
 * (DB_PORT); with --stage that deployed stage's tables (AWS credentials and region from the environment).
 * Exit: 0; 1 when the database did not answer, or with --send when a channel did not take the digest, is configured
 * wrong or none is; 2 when the command is wrong.
 */
import './support/quiet-sdk';
import { randomBytes } from 'node:crypto';
import tables from '../resources/tables.js';
import { commandLine, TARGET_OPTIONS, runCommand, usageFailure } from './support/command-line';
import { LOCAL_AWS_ENV } from './local-stack/local-db';
import { resolveTarget } from './support/write-target';

const USAGE = 'usage: npm run digest -- [--send] [--stage NAME] [--endpoint URL]';

async function main() {
  const { values, positionals } = commandLine('digest', USAGE, {
    send: { type: 'boolean', default: false },
    ...TARGET_OPTIONS,
  });
  if (positionals.length) usageFailure('digest', USAGE, `unexpected ${positionals.join(' ')}`);
  const { stage, endpoint } = resolveTarget(values);
  // The API's operations read their configuration when they load: the stage's tables, and the database to reach.
  // The digest signs no cursor, but the configuration asks for a secret: one that lives as long as this command.
  Object.assign(process.env, {
    ...tables.tableEnvironment(stage),
    ...(endpoint ? { ...LOCAL_AWS_ENV, DYNAMODB_ENDPOINT: endpoint } : {}),
    STAGE: stage,
    AUTH_MODE: 'off',
    CURSOR_SECRET: randomBytes(32).toString('hex'),
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'ERROR',
  });
  process.env.AWS_REGION ??= process.env.AWS_DEFAULT_REGION ?? 'us-east-1';
  const { buildDigest } = await import('../api/alerts/digest');
  const { digestEvent } = await import('../api/alerts/digest-text');
  const now = new Date();
  const event = digestEvent(await buildDigest(now), stage, now.toISOString(), undefined);
  console.log(event.text);
  if (!values.send) return;

  console.log('');
  const { sendToChannels } = await import('./support/send-alerts');
  const sent = await sendToChannels(event, values.stage, {
    none: 'digest: no channel is configured (docs/alerts.md): printed only',
    took: 'sent',
    failed: 'not sent',
  });
  if (!sent) process.exitCode = 1;
}

runCommand('digest', main);
