/**
 * The exchange feed, scheduled (not an HTTP route, and in no API function's bundle: it alone loads ccxt). Each run
 * syncs the stage's exchange accounts (EXCHANGE_FEEDS, no keys) with their read-only keys from the secret
 * EXCHANGE_KEYS_SECRET_ID, which only this function's role may read (docs/operations.md, "Deployed"); the
 * differences a reconciliation finds first go to the alerts topic. Fails when an account was not synced, so its
 * Errors alarm tells; a run stops between pages 20 s before its deadline, and the next resumes from the checkpoints.
 */
import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import type { FeedKeys } from '@trading-bot-api/feeds/bridges/exchange/config';
import { runScheduled, scheduledAccounts } from '@trading-bot-api/feeds/bridges/exchange/scheduled';
import { createWriter, type Difference } from '@trading-bot-api/writer';
import type { Context } from 'aws-lambda';
import { reconciliationEvent } from '../api/alerts/events';
import { publishAlerts } from '../api/alerts/topic';

const env = process.env;
const stage = env.STAGE ?? 'dev';
const writer = createWriter({ stage, endpoint: env.DYNAMODB_ENDPOINT || undefined });
const secrets = new SecretsProvider({
  awsSdkV3Client: new SecretsManagerClient({
    requestHandler: new NodeHttpHandler({ connectionTimeout: 2_000, requestTimeout: 5_000, throwOnRequestTimeout: true }),
  }),
});
/** Room left at the deadline for the page under way and the limiter's state. */
const MARGIN_MS = 20_000;

export const handler = async (_event: unknown, context: Context) => {
  const report = (line: string) => console.log(`exchange feed ${line}`);
  const settings = env.EXCHANGE_FEEDS ?? '';
  if (!settings) return { accounts: 0 };
  // Kept five minutes per instance (a rotated key is used from the next run after); never logged.
  const keys = (await secrets.get(env.EXCHANGE_KEYS_SECRET_ID ?? '', { transform: 'json', maxAge: 300 })) as Record<string, FeedKeys>;
  const accounts = scheduledAccounts(settings, keys ?? {});
  const topic = env.ALERTS_TOPIC_ARN;
  const alert = topic
    ? async (found: { accountId: string; exchangeAccountId: string; checkedAt: string; fresh: Difference[] }) =>
        publishAlerts(
          topic,
          found.fresh.map((difference) => reconciliationEvent({ ...found, difference }, stage, env.DASHBOARD_URL || undefined)),
        )
    : undefined;
  const outcomes = await runScheduled(accounts, writer, {
    report,
    alert,
    signal: AbortSignal.timeout(Math.max(1_000, context.getRemainingTimeInMillis() - MARGIN_MS)),
  });
  const failed = outcomes.filter((outcome) => 'error' in outcome);
  if (failed.length)
    throw new Error(`exchange feed: ${failed.map((outcome) => outcome.account).join(', ')} not synced (see the lines above)`);
  return { accounts: outcomes.length };
};
